"""The engine's shortcuts change nothing a player can see.

- apply_action skips re-checking an action that legal_actions listed for the same state,
  but still refuses anything else, even after a listing (and even if the caller's list was edited);
- clone shares what is never changed in place, yet a clone and its original play on independently.
"""
from __future__ import annotations

import random

import pytest

from tessera.replay.tiles import engine_for


def _midgame(eng, seed, moves):
    g = eng.new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        acts = g.legal_actions()
        g.apply_action(acts[rng.randrange(len(acts))])
    return g


def test_unlisted_actions_are_still_refused_after_a_listing():
    """BASE-PLACE-1: a tile goes next to the tiles already placed, never on one."""
    eng = engine_for(["base"], [])
    g = _midgame(eng, 2, 10)
    acts = g.legal_actions()
    taken = next(iter(g.board.tiles))
    bogus = (taken, 0, None)
    assert bogus not in acts
    mine = list(acts) + [bogus]  # a caller's list of its own; the engine's listing is read-only
    assert bogus in mine and bogus not in acts and len(acts) == len(mine) - 1
    with pytest.raises(eng.IllegalAction):
        g.apply_action(bogus)
    far = ((500, 500), 0, None)
    with pytest.raises(eng.IllegalAction):
        g.apply_action(far)
    with pytest.raises(eng.IllegalAction):
        g.apply_action(("discard",))  # BASE-PLACE-3: only a tile that fits nowhere is discarded


def test_listed_action_is_refused_once_the_state_moved_on():
    eng = engine_for(["base"], [])
    g = _midgame(eng, 4, 6)
    acts = g.legal_actions()
    a = acts[0]
    g.apply_action(a)
    with pytest.raises(eng.IllegalAction):
        g.apply_action(a)  # the same cell is taken now


def test_clone_and_original_play_on_independently():
    eng = engine_for(["base", "river", "abbot", "king_robber"], [])
    g = _midgame(eng, 7, 25)
    before = sorted((f["kind"], sorted(f["cells"]), f["figures"], f["complete"]) for f in g.features())
    scores = g.returns()
    h = g.clone()
    rng = random.Random(1)
    while not h.is_terminal():
        acts = h.legal_actions()
        if not acts:
            h.finish()
            break
        h.apply_action(acts[rng.randrange(len(acts))])
    assert sorted((f["kind"], sorted(f["cells"]), f["figures"], f["complete"]) for f in g.features()) == before
    assert g.returns() == scores
    # and the original still plays exactly as a fresh replay of its own moves does
    twin = eng.Game.from_json(eng.rules, g.to_json())
    for _ in range(20):
        a = g.legal_actions()[0]
        assert twin.legal_actions()[0] == a
        g.apply_action(a)
        twin.apply_action(a)
    assert g.returns() == twin.returns()

    # each feature's sets compared by their members: a cloned board's merges make new sets of cells, a board
    # never cloned grows its own in place (Board.solo), so the same members may print in another order
    def canon(f):
        return repr(sorted((k, sorted(v) if isinstance(v, frozenset) else v) for k, v in f.items()))

    assert sorted(map(canon, g.features())) == sorted(map(canon, twin.features()))

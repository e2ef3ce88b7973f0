"""The lazy listing of a turn's moves (runtime/listing.py) reads as the list it stands for.

`legal_actions` keeps a turn's placements as blocks and builds a move only when it is read: its
length, each index, iteration, membership and equality must agree with one another at every
state of real games (base, and every module with its figures on corners, towers, recalls and
ransoms), so a player choosing by index picks the move it always picked.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tessera.replay.tiles import engine_for

ALL = ["base", "river", "abbot", "king_robber", "barn", "tower", "siege"]


@pytest.mark.parametrize("rules", [["base"], ALL], ids=["base", "all"])
def test_every_index_iteration_and_membership_agree(rules):
    eng = engine_for(rules, [])
    listings = 0
    for seed in (1, 2):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            whole = list(acts)
            n = len(acts)
            assert len(whole) == n
            assert [acts[i] for i in range(n)] == whole
            assert [acts[i - n] for i in range(n)] == whole  # negative indices
            assert acts[1:4] == whole[1:4] and acts == whole and whole == acts
            assert all(a in acts for a in whole)
            assert len(set(whole)) == n  # each move listed once
            for bad in (n, -n - 1):
                with pytest.raises(IndexError):
                    acts[bad]
            listings += 1
            g.apply_action(acts[rng.randrange(n)])
    assert listings > 100


def test_a_move_not_listed_is_not_in_the_listing():
    """BASE-PLACE-1: a tile never goes on a taken cell, so such a move is not among them."""
    eng = engine_for(["base"], [])
    g = eng.new_game(2, 3)
    acts = g.legal_actions()
    taken = next(iter(g.board.tiles))
    first = acts[0]
    assert (taken, first.rotation, None) not in acts
    assert (first.cell, first.rotation, (0, 99)) not in acts  # no feature 99 on any tile
    assert ("discard",) not in acts


@pytest.mark.parametrize("rules", [["base"], ALL], ids=["base", "all"])
def test_figures_kept_per_key_are_those_the_conditions_give(rules):
    """BASE-FOLLOW-2 (and the Barn's, the Tower's, the Abbot's figure statements): where the rules'
    conditions read only masks of occupied parts (FIG_PURE, decided in lowering), the listing keeps
    each placement's figures per (orientation, masks, figures in supply, ready corners); at every
    state of real games they are exactly what the conditions give when asked afresh."""
    eng = engine_for(rules, [])
    assert eng.rules.FIG_PURE is True
    options_for = eng.runtime.figures.options_for
    figure_context = eng.runtime.figures.figure_context
    asked = 0
    for seed in (3, 4):
        g = eng.new_game(2, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            for key, orients, k0 in getattr(acts, "blocks", ()):
                if k0 < 0:
                    continue
                cell = acts.cells[key]  # a block names its cell by the cell's integer (geometry.KEY)
                sup = g.supply.left[g.current]
                for k, o in enumerate(orients):
                    got = acts.opts[k0 + k]
                    if got:
                        assert list(got) == options_for(g, o, cell, figure_context(g, cell), sup)
                        asked += 1
            g.apply_action(acts[rng.randrange(len(acts))])
    assert asked > 50


@pytest.mark.parametrize("when,masks,pure", [
    ("figures == 0", True, True),
    ("0 == figures or count(follower) >= 1", True, True),
    ("figures == 0 or players > 5", True, False),  # reads the number of players: not the masks alone
    ("tiles > 3", False, False),
])
def test_figure_options_are_kept_only_when_the_masks_decide_them(tmp_path, when, masks, pure):
    """BASE-FOLLOW-2 rewritten by a house rule: lowering keeps a placement's figures per masks only
    when no figure condition reads anything but `figures` and `count(F)` compared with 0; either
    way every listed figure is one `apply_action` accepts when it checks."""
    house = tmp_path / "crowded.tess"
    house.write_text(f"module crowded extends base\nallow follower on road when {when}  [BASE-FOLLOW-2]\n",
                     encoding="utf-8")
    eng = engine_for([str(house)], [])
    assert (eng.rules.FIG_MASKS, eng.rules.FIG_PURE) == (masks, pure)
    g = eng.new_game(2, 5)
    rng = random.Random(5)
    for _ in range(30):
        acts = g.legal_actions()
        for a in acts:
            if a.figure is not None:
                assert g.figure_refusal(g.orientation(a.rotation), a.cell, *a.figure) is None
        g.apply_action(acts[rng.randrange(len(acts))])


@pytest.mark.parametrize("counted,masks", [(4, True), (5, False)])
def test_masks_count_at_most_four_figures(tmp_path, counted, masks):
    """BASE-FOLLOW-2 rewritten by a house rule that reads `count(F)` of many figures: the occupied parts
    of at most four counted figures are masks (Board.occupied_parts packs them in one machine integer);
    with a fifth each condition reads the features it would join instead.  Either way the figures
    listed are exactly those `apply_action` accepts."""
    extra = [f"a{i}" for i in range(1, counted)]
    when = " and ".join(f"count({f}) == 0" for f in [*extra, "follower"])
    house = tmp_path / "crowded.tess"
    house.write_text("module crowded extends base\n"
                     + "".join(f"figure {f} 1 per player on road\n" for f in extra)
                     + f"allow follower on road when {when}  [BASE-FOLLOW-2]\n", encoding="utf-8")
    eng = engine_for([str(house)], [])
    assert eng.rules.FIG_MASKS is masks
    assert len(eng.rules.FIG_MASK_COUNTS) == (counted if masks else 0)
    g = eng.new_game(2, 7)
    rng = random.Random(7)
    puts = 0
    for _ in range(40):
        acts = g.legal_actions()
        if not acts:
            break
        for a in acts:
            if a.figure is not None:
                assert g.figure_refusal(g.orientation(a.rotation), a.cell, *a.figure) is None
        chosen = [a for a in acts if a.figure is not None] or list(acts)
        g.apply_action(chosen[rng.randrange(len(chosen))])
        puts += chosen[0].figure is not None
    assert puts > 5


def test_a_crashing_figure_condition_names_its_rule_line(tmp_path, monkeypatch):
    """A figure's condition (its `when`, its `allow`s and `forbid`s as one) is a small generated
    function whose line maps to the figure statement's (SOURCE_MAP): a condition that fails while
    the turn's moves are listed is reported there, as before the conditions became tables."""
    house = tmp_path / "crowded.tess"
    house.write_text("module crowded extends base\nallow follower on road when count(follower) < 2  [BASE-FOLLOW-2]\n",
                     encoding="utf-8")
    monkeypatch.setenv("TESSERA_KERNEL", "python")  # the native kernel's Board is an extension type: no patching
    eng = engine_for([str(house)], [])

    def broken(self, roots, gi):
        raise ZeroDivisionError("forced by the test")

    monkeypatch.setattr(eng.runtime.board.Board, "count_on", broken)  # what `count(follower)` reads
    g = eng.new_game(2, 1)
    rng = random.Random(1)
    with pytest.raises(ZeroDivisionError) as exc:
        while not g.is_terminal():  # until a road meets a road with a follower on it
            acts = g.legal_actions()
            g.apply_action(acts[-1] if rng.random() < 0.5 else acts[rng.randrange(len(acts))])
    base = (Path(__file__).resolve().parent.parent / "rules" / "base.tess").read_text(encoding="utf-8")
    line = next(i for i, text in enumerate(base.splitlines(), 1) if text.startswith("figure follower"))
    assert eng.runtime.rule_location(exc.value) == f"rules/base.tess:{line}"

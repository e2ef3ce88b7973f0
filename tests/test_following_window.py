"""The adapters' window follows the board (docs/engine.md, section 6, "The window"): recentred on the
placed tiles' bounding box, with cells numbered relative to it, so the default window plays whole games
of every bundled rule set; a board that outgrows it is truncated with the reason (PettingZoo) or refused
(OpenSpiel), never ended as if the game were over.  And the adapters' input checks (issue 38, item 12):
actions are whole numbers in range, window sizes bounded, chance outcomes tiles the bag can give."""
from __future__ import annotations

import math
import random

import numpy as np
import pyspiel
import pytest

from tessera.adapters import openspiel as O
from tessera.adapters.pettingzoo import env
from tessera.replay.actions import ActionCodec, WindowExceeded, default_radius, window_centre
from tessera.replay.tiles import engine_for

EVERY = ["base", "river", "abbot", "king_robber", "barn", "tower", "siege", "refcard"]
# every bundled tile rule set: the base game, each expansion with it, the README's example, all at once
RULE_SETS = [["base"]] + [["base", m] for m in EVERY[1:]] + [["base", "river", "abbot"], EVERY]


def _random_game(engine, codec, seed: int):
    g, rng = engine.new_game(2, seed), random.Random(seed)
    while not g.is_terminal():
        legal = codec.legal(g)  # WindowExceeded if the board outgrew the window
        if not legal:
            break
        g.apply_action(legal[rng.choice(list(legal))])
    return g


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS, ids="+".join)
def test_20_games_of_every_rule_set_use_the_whole_deck_at_the_documented_radius(rules):
    engine = engine_for(rules, [])
    codec = ActionCodec(engine, follow=True)  # what both adapters use, at the default radius
    assert codec.radius == default_radius(codec.tiles) == math.ceil(1.5 * math.sqrt(codec.tiles))
    for seed in range(20):
        g = _random_game(engine, codec, seed)
        assert g.is_terminal() and g.tiles_left() == 0, (seed, g.tiles_left())
    assert codec.masked == 0 and codec.ended_by_window == 0  # nothing left out, nothing ended early


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS, ids="+".join)
def test_both_adapters_play_a_whole_game_at_the_default_window(rules):
    state = O.load(rules).new_initial_state()
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        O.random_step(state, rng)
    assert state.engine_game().tiles_left() == 0 and sum(state.returns()) == 0
    e = env(rules=rules)
    e.reset(seed=0)
    rng2 = np.random.default_rng(0)
    for agent in e.agent_iter():
        _, _, terminated, truncated, info = e.last(observe=False)
        assert not truncated, info.get("truncated")
        e.step(None if terminated else int(rng2.choice(np.flatnonzero(info["action_mask"]))))
    assert e.game.is_terminal() and e.game.tiles_left() == 0


def test_action_numbers_are_relative_to_the_boards_window():
    engine = engine_for(["base"], [])
    codec = ActionCodec(engine, follow=True)
    g = engine.new_game(2, 0)
    assert codec.radius == 13 and codec.size == 27 * 27 * 4 * codec.slots + 1  # a square: 27 x 27 cells
    legal = codec.legal(g)
    n = next(n for n, a in legal.items() if a.cell == (-1, 0) and a[2] is None)
    assert codec.describe(n).startswith("[-1,+0] from the window's centre rotation")
    g.apply_action(legal[n])  # the board is now [-1..0] x [0..0]: its centre is (-1, 0), rounded down
    assert window_centre(g) == (-1, 0) == codec.window_centre(g)
    for number, a in codec.legal(g).items():
        cx, cy = a.cell[0] + 1, a.cell[1]  # the cell relative to the new centre
        assert codec.describe(number).startswith(f"[{cx:+d},{cy:+d}] from the window's centre")


def test_a_board_that_outgrows_the_window_is_truncated_in_pettingzoo_with_the_reason():
    e = env(rules=["base"], radius=2)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    moves = 0
    for agent in e.agent_iter():
        _, _, terminated, truncated, info = e.last(observe=False)
        if truncated:
            assert not terminated and not e.game.is_terminal() and e.game.tiles_left() > 0
            assert "the board outgrew the window (radius 2)" in info["truncated"]
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        moves += 1
    assert 0 < moves < 71 and e.truncated_by is not None and e.agents == []


def test_a_board_that_outgrows_the_window_is_refused_by_openspiel_not_ended():
    state = O.load("base", radius=2).new_initial_state()
    rng = np.random.RandomState(0)
    with pytest.raises(WindowExceeded, match=r"tessera\(rules=base,radius=2\): the board outgrew the window"):
        for _ in range(200):
            O.random_step(state, rng)
    assert not state.engine_game().is_terminal()  # never a terminal state with returns


def test_pettingzoo_refuses_actions_that_are_not_whole_numbers_in_range():
    e = env(rules=["base"])
    e.reset(seed=1)
    *_, info = e.last(observe=False)
    first = int(np.flatnonzero(info["action_mask"])[0])
    for bad, message in ((first + 0.9, "not a whole number"), (float("nan"), "not a whole number"),
                         (True, "not a whole number"), ("3", "not a whole number"),
                         (-1, "out of range"), (e.codec.size, "out of range")):
        with pytest.raises(ValueError, match=message):
            e.step(bad)
    assert len(e.game.board.tiles) == 1  # nothing was played
    e.step(np.int64(first))  # a number of the action space, as Discrete.sample gives it
    assert len(e.game.board.tiles) == 2


@pytest.mark.parametrize("size", [0, -3, 5000, 2.5])
def test_window_sizes_are_bounded_with_a_message(size):
    with pytest.raises(ValueError, match=r"a whole number from 1 to 71"):
        env(rules=["base"], radius=size)
    with pytest.raises(ValueError, match=r"view .*a whole number from 1 to 71"):
        env(rules=["base"], view=size)


def test_openspiel_refuses_a_chance_outcome_the_bag_cannot_give():
    state = O.load("base").new_initial_state()
    with pytest.raises(ValueError, match="chance outcome 999 is not a tile the bag can give"):
        state.apply_action(999)
    assert state.is_chance_node()
    with pytest.raises(Exception, match="radius -3: a whole number from 1 to 71"):
        O.load("base", radius=-3)


def test_ansi_render_returns_the_text_and_prints_nothing(capsys):
    e = env(rules=["base"], render_mode="ansi")
    e.reset(seed=2)
    *_, info = e.last(observe=False)
    e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert capsys.readouterr().out == ""  # a step prints nothing
    text = e.render()
    assert isinstance(text, str) and text.startswith("player_1 to place tile") and "legend:" in text


def test_make_observation_gives_the_named_views():
    from open_spiel.python.observation import make_observation

    game = O.load("base+tower")
    state = game.new_initial_state()
    rng = np.random.RandomState(3)
    for _ in range(12):
        O.random_step(state, rng)
    named = make_observation(game, params={"views": "named"})
    plain = make_observation(game)
    named.set_from(state, 0)
    plain.set_from(state, 0)
    assert set(named.dict) == {"board", "tile", "supply", "scores", "turn", "bag", "prisoners"}
    assert (named.tensor == plain.tensor).all()  # the same numbers, named
    g = state.engine_game()
    assert named.dict["scores"].tolist() == [float(s) for s in g.scores]
    assert named.dict["board"][0].sum() == len(g.board.tiles)  # plane 0: a tile lies there
    assert named.dict["supply"].shape == (2, len(game.codec.figures))
    assert list(plain.dict) == ["observation"] and game.observation_tensor_shape() == list(plain.dict["observation"].shape)
    with pytest.raises(ValueError, match="views='named'"):
        make_observation(game, params={"views": "flat"})


def test_the_factored_head_on_a_following_window_has_no_corner_without_a_number():
    from tessera.adapters.factored import Factored, candidate_features, candidates

    codec = ActionCodec(engine_for(["base", "tower"], []), 3, follow=True)
    F = Factored(codec)
    assert F.shape == (4, codec.slots, 7, 7) and F.size == codec.size  # a square: every logit is a number
    every = np.arange(codec.size)
    assert (F.to_number(F.to_logit(every)) == every).all()
    # a number's cell is its offset from the window's centre: the candidates' dx, dy
    n = codec.placements - 1  # the last cell: (+3, +3) from the centre, rotation 270, the last slot
    row = candidates(codec, [n])[0]
    cols = candidate_features(codec)
    assert row[cols.index("dx")] == 1.0 and row[cols.index("dy")] == 1.0

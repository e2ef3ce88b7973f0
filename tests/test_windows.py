"""Compact windows for learning programs (docs/engine.md, section 6, "The window"): a move beyond
the radius is masked out, never raised; and the factored and candidate action encodings
(tessera/adapters/factored.py)."""
from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from tessera.replay.actions import ActionCodec, OutsideWindow
from tessera.replay.tiles import engine_for
from tessera.adapters import openspiel as O  # registers "tessera"
from tessera.adapters.factored import Factored, candidate_features, candidates

COMPACT = 8  # the documented compact window (docs/engine.md): |dx| + |dy| <= 8 around the start tile


def _within(codec, cell):
    cx, cy = codec.centre
    return abs(cell[0] - cx) + abs(cell[1] - cy) <= codec.radius


@pytest.mark.slow
def test_100_random_games_at_the_compact_window_finish_and_stay_inside_it():
    # bench/bench_adapters.py plays 1,000 (docs/engine.md quotes the share of games the window bit)
    eng = engine_for(["base"], [])
    codec = ActionCodec(eng, COMPACT)
    for seed in range(100):
        g, rng = eng.new_game(2, seed), random.Random(seed)
        while not g.is_terminal():
            legal = codec.legal(g)
            if not legal:
                break
            a = legal[rng.choice(list(legal))]
            g.apply_action(a)
        assert g.is_terminal()
        assert all(_within(codec, cell) for cell in g.board.tiles)  # every tile placed lies in the window
    assert codec.masked > 0  # the window did bite: moves beyond it were offered by the rules and left out


def test_a_move_beyond_the_radius_has_no_number_but_is_not_an_error_of_legal():
    eng = engine_for(["base"], [])
    codec = ActionCodec(eng, 1)
    g = eng.new_game(2, 0)
    g.apply_action(codec.legal(g)[min(codec.legal(g))])  # one tile next to the start tile
    far = [a for a in g.legal_actions() if not isinstance(a, tuple) or not _within(codec, a[0])]
    assert far, "the rules offer a cell two steps from the start tile"
    with pytest.raises(OutsideWindow):
        codec.encode(g, far[0])
    legal = codec.legal(g)
    assert legal and all(_within(codec, a[0]) for a in legal.values())


def test_a_tile_that_fits_nowhere_in_the_window_ends_the_game_with_final_scoring():
    eng = engine_for(["base"], [])
    codec = ActionCodec(eng, 1)  # five cells: the start tile and its four neighbours
    g, rng = eng.new_game(2, 3), random.Random(3)
    while (legal := codec.legal(g)):
        g.apply_action(legal[rng.choice(list(legal))])
    assert g.is_terminal() and codec.ended_by_window == 1
    assert len(g.board.tiles) <= 5 and g.tiles_left() > 0


@pytest.mark.slow
@pytest.mark.filterwarnings("error")  # the done-when check: no warning either
@pytest.mark.parametrize("rules", ["base", "base+tower", "base+siege"])
def test_openspiel_random_sim_test_at_the_compact_window(rules):
    game = pyspiel.load_game(f"tessera(rules={rules})")  # the default: a compact window that follows the board
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.slow
def test_windowed_openspiel_games_never_raise():
    # issue 24: at radius 8 every one of 20 random games raised "lies outside radius 8" mid-game
    game = pyspiel.load_game("tessera(rules=base)")  # the default window, which follows the board
    rng = np.random.RandomState(0)
    for _ in range(20):
        s = game.new_initial_state()
        while not s.is_terminal():
            O.random_step(s, rng)
        assert sum(s.returns()) == 0


def test_factored_head_maps_every_number_both_ways():
    codec = ActionCodec(engine_for(["base", "tower"], []), 3)
    F = Factored(codec)
    assert F.shape == (4, codec.slots, 7, 7) and F.size == 4 * codec.slots * 49 + codec.size - codec.placements
    every = np.arange(codec.size)
    logits = F.to_logit(every)
    assert len(set(logits.tolist())) == codec.size  # one logit per number
    assert (F.to_number(logits) == every).all()
    # the square's corners beyond |dx| + |dy| <= 3 have no number
    planes, _ = F.planes(F.to_number(np.arange(F.size)))
    assert (planes[:, :, 0, 0] == -1).all() and (planes[:, :, 3, 3] >= 0).all()
    assert int((F.to_number(np.arange(F.size)) == -1).sum()) == 4 * codec.slots * (49 - len(codec.cells))


def test_factored_worked_example_of_docs_engine_md():
    eng = engine_for(["base"], [])
    codec = ActionCodec(eng, COMPACT)
    F = Factored(codec)
    assert (codec.size, F.shape, F.size) == (14_501, (4, 25, 17, 17), 28_901)
    g = eng.new_game(2, 0)
    legal = codec.legal(g)
    assert g.tile_name() == "U" and len(legal) == 12
    assert codec.describe(7111) == "[-1,0] rotation 0, follower on Wn" and 7111 in legal
    assert np.unravel_index(int(F.to_logit(7111)), F.shape) == (0, 11, 8, 7)  # rotation 0, slot 11, row 8, column 7
    mask = F.mask(legal)
    planes, tail = F.planes(mask)
    assert mask.sum() == 12 and planes[0, 11, 8, 7] == 1 and tail.tolist() == [0]  # the discard is not legal


def test_candidates_describe_each_move():
    codec = ActionCodec(engine_for(["base", "abbot"], []), COMPACT)
    cols = candidate_features(codec)
    rows = candidates(codec, [codec.discard, 0])
    assert rows.shape == (2, len(cols))
    assert rows[0, cols.index("kind=discard")] == 1 and rows[0].sum() == 1
    # number 0: the first cell (dy = -8, dx = 0), rotation 0, no figure
    assert rows[1, cols.index("kind=place")] == 1 and rows[1, cols.index("dy")] == -1.0
    assert rows[1, cols.index("rotation=0")] == 1 and rows[1, cols.index("dx")] == 0
    n = codec.size - 1 - 1  # the last placement: last cell, rotation 270, the last recall slot of the abbot
    row = candidates(codec, [n])[0]
    assert "recall own abbot" in codec.describe(n)
    assert row[cols.index("recall")] == 1 and row[cols.index("figure=abbot")] == 1 and row[cols.index("rotation=270")] == 1


# ---------------------------------------------------------------- shaped observations and text boards

def test_openspiel_observation_is_planes_with_the_flat_observers_numbers():
    from tessera.adapters.observation import Observer

    game = pyspiel.load_game(f"tessera(rules=base+tower,radius={COMPACT})")
    state = game.new_initial_state()
    rng = np.random.RandomState(1)
    for _ in range(30):
        O.random_step(state, rng)
    obs = Observer(game.codec, 2)
    flat = obs.set_from(state.engine_game(), 1, drawn=not state.is_chance_node()).copy()
    C, H, W = game.observation_tensor_shape()
    assert (H, W) == (17, 17) and C == obs.planes + flat.size - obs.dict["board"].size
    planes = np.array(state.observation_tensor(1), np.float32).reshape(C, H, W)
    board = obs.dict["board"]
    assert (planes[:obs.planes] == board).all() and board[0].sum() > 1
    rest = flat[board.size:]  # the drawn tile, supply, scores, turn, bag, prisoners: one constant plane each
    assert (planes[obs.planes:] == rest[:, None, None]).all() and rest.sum() > 0


def test_BASE_SETUP_1_the_start_tile_reads_as_text():
    # BASE-SETUP-1: the start tile (D) -- a city on one side, a road across, fields either side of it
    game = pyspiel.load_game(f"tessera(rules=base,radius={COMPACT})")
    state = game.new_initial_state()
    text = state.observation_string(0)
    assert text.splitlines()[1:5] == ["x 0..0, y 0..0 (north up)", " c", "r r", " f"]
    assert "c city" in text and "r road" in text


@pytest.mark.slow
@pytest.mark.parametrize("rules", [["base"], ["base", "tower"], ["base", "siege"]], ids="+".join)
def test_pettingzoo_api_test_on_the_default_observation_gives_no_warning(rules):
    import warnings

    from pettingzoo.test import api_test

    from tessera.adapters.pettingzoo import env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = env(rules=rules)  # planes by default, the mask in the info; the compact window by default
        api_test(e, num_cycles=100)
    assert e.observation_space("player_0").shape == e.observer.planes_shape
    assert [str(w.message) for w in caught] == []


@pytest.mark.slow
def test_pettingzoo_seed_test_with_planes():
    from pettingzoo.test import seed_test

    from tessera.adapters.pettingzoo import env

    seed_test(lambda: env(rules=["base"]), num_cycles=10)


def test_pettingzoo_planes_and_the_mask_in_the_info():
    from tessera.adapters.pettingzoo import env

    e = env(rules=["base"], radius=COMPACT, render_mode="ansi")
    e.reset(seed=4)
    obs, _, _, _, info = e.last()
    assert isinstance(obs, np.ndarray) and obs.shape == e.observation_space("player_0").shape
    assert obs.shape[1:] == (17, 17) and e.observation_space("player_0").contains(obs)
    assert info["action_mask"].sum() == len(e.codec.legal(e.game)) > 0
    e.step(int(np.flatnonzero(info["action_mask"])[0]))
    text = e.render()
    assert text.startswith("player_1 to place tile") and "legend:" in text and len(text.splitlines()) >= 5


@pytest.mark.slow
def test_the_training_example_runs_and_reports_its_curve(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "examples" / "train_candidates.py"
    spec = importlib.util.spec_from_file_location("train_candidates", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "2", "--every", "1", "--eval", "2"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("after")]
    assert [ln.split()[1] for ln in lines] == ["0", "1", "2"]
    assert all("greedy games against random" in ln for ln in lines) and "largest weights:" in out

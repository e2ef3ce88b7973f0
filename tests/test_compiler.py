"""The compiler: deterministic output, a standalone package, the engine API (issue: The compiler)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.compiler.build import compile_to_dir, load_engine
from tessera.compiler.codegen import generate
from conftest import rule_set
from tessera.dsl.loader import load_rule_set

ROOT = Path(__file__).resolve().parent.parent
COMBOS = [["base"], ["base", "river"], ["base", "abbot"], ["base", "king_robber"],
          ["base", "river", "abbot", "king_robber"]]


def _rules(names):
    return rule_set(*names)  # loaded once per session (tests/conftest.py)


@pytest.mark.parametrize("names", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_generated_source_is_deterministic(names):
    a = generate(_rules(names)).source
    b = generate(_rules(names)).source
    assert a == b


def test_generated_functions_name_their_rule_line():
    src = generate(_rules(["base"])).source
    # every generated scoring function is preceded by the rule-file line it came from
    assert "# rules/base.tess:" in src
    for line in src.splitlines():
        if line.startswith("def score_") or line.startswith("def complete_"):
            idx = src.splitlines().index(line)
            assert ".tess:" in src.splitlines()[idx - 1], line


def test_compiled_package_runs_on_the_standard_library_alone(tmp_path):
    compile_to_dir(_rules(["base", "river", "abbot", "king_robber"]), tmp_path, "carc")
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import carc\n"
            "g = carc.play_random(3, 7)\n"
            "assert g.is_terminal()\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('dsl', 'compiler', 'verifier', 'tessera', 'lark', 'z3', 'networkx')]\n"
            "assert not bad, bad\n"
            "print(g.returns())\n") % str(tmp_path)
    # -I: isolated (no site-packages, no user paths): only the standard library is importable
    res = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("[")


def test_state_api_clone_and_json_round_trip():
    eng = load_engine(_rules(["base"]))
    g = eng.new_game(players=3, seed=11)
    assert g.current_player() == 0
    import random
    rng = random.Random(3)
    for _ in range(20):
        acts = g.legal_actions()
        g.apply_action(acts[rng.randrange(len(acts))])
    c = g.clone()
    acts = c.legal_actions()
    c.apply_action(acts[0])
    assert len(c.board.tiles) == len(g.board.tiles) + 1  # the clone moved, the original did not
    back = eng.Game.from_json(eng.rules, g.to_json())
    assert back.scores == g.scores
    assert back.board.tiles.keys() == g.board.tiles.keys()
    assert back.legal_actions() == g.legal_actions()
    assert json.loads(g.to_json())["format"] == "tessera-state/1"


def test_player_counts_follow_the_rules():
    eng = load_engine(_rules(["base"]))
    for n in (2, 3, 4, 5):
        assert eng.new_game(n, 0).nplayers == n
    with pytest.raises(ValueError):
        eng.new_game(6, 0)  # base: 5 colours (BASE-COMP-2)


def test_variant_changes_the_engine_without_python():
    """A house rule that overrides one number changes the generated scoring function."""
    base = generate(_rules(["base"])).source
    big = generate(_rules([str(ROOT / "rules/variants/big_cities.tess")])).source
    assert "2 * len(g.board.cells[r]) + 2 * g.board.shields[r]" in base
    assert "3 * len(g.board.cells[r]) + 2 * g.board.shields[r]" in big


def test_same_seed_same_game():
    eng = load_engine(_rules(["base", "river"]))
    a = eng.play_random(2, 42)
    b = eng.play_random(2, 42)
    assert a.history == b.history and a.scores == b.scores


def test_a_record_start_tile_comes_from_the_bag(tmp_path):
    """BASE-COMP-1: a record that starts with C has no other C, and the rules' start D is back in the bag."""
    from tessera.replay.tiles import replay

    rec = {"format": "tessera-game/1", "rules": ["base"], "players": ["red", "blue"],
           "start": {"tile": "C", "at": [0, 0], "rotation": 0},
           "turns": [{"tile": "C", "at": [0, -1], "rotation": 0}], "end": "none"}
    res = replay(rec)
    assert res.error is not None and "already used" in res.error["message"]
    g = replay({**rec, "turns": []}).game
    R = g.R
    left = [R.TILES[t][1] for d in g.bag.decks for t in d] + ([R.TILES[g.bag.drawn][1]] if g.bag.drawn is not None else [])
    assert left.count("D") == 4 and left.count("C") == 0 and len(left) == 71


def test_a_start_far_away_is_refused_and_one_within_reach_plays():
    """A start tile lies at most 1,000,000 cells out (as a rule file's numbers; a record's cells at most
    1,000): the board keys its cells by one integer (geometry.KEY), distinct for every cell a game reaches."""
    from tessera.compiler.runtime.geometry import KEY, REACH, START_REACH
    from tessera.dsl.limits import MAX_NUMBER, MAX_TILES
    from tessera.replay.tiles import replay

    # the runtime cannot import the toolchain: its bound is the rule files' own, and within reach
    assert START_REACH == MAX_NUMBER and START_REACH + MAX_TILES + 1 < REACH and 2 * REACH < KEY
    rec = {"format": "tessera-game/1", "rules": ["base"], "players": ["red", "blue"],
           "start": {"tile": "D", "at": [1000, -999], "rotation": 0},
           "turns": [{"tile": "D", "at": [1000, -1000], "rotation": 180}], "end": "none"}
    res = replay(rec)
    assert res.error is None and (1000, -1000) in res.game.board.tiles and len(res.game.board.tiles) == 2
    eng = load_engine(_rules(["base"]))
    d = eng.rules.TILE_IDS["D"][0]
    g = eng.new_game(2, 1, None, (d, 1_000_000, -1_000_000, 0))
    assert all(abs(x - 1_000_000) <= 1 and abs(y + 1_000_000) <= 1 for x, y in (g.board.cell_of[k] for k in g.board.frontier))
    assert len(g.legal_actions()) > 0
    with pytest.raises(ValueError, match="at most 1000000"):
        eng.new_game(2, 1, None, (d, 0, 10 ** 30, 0))


def test_a_house_rule_can_recount_tiles():
    """`override tile` in a variant replaces every copy of the tile (BASE-COMP-1 is then the designer's)."""
    rs = _rules([str(ROOT / "rules/variants/more_cloisters.tess")])
    eng = load_engine(rs)
    bag = [eng.rules.TILES[t][1] for d in eng.rules.DECKS for t in d]
    assert bag.count("B") == 8 and bag.count("U") == 4 and len(bag) == 71


def test_override_of_a_missing_tile_is_reported(tmp_path):
    f = tmp_path / "v.tess"
    f.write_text("module v\nextends base\noverride tile Z x1 { edges F F F F field Nw Ne En Es Se Sw Ws Wn }\n")
    rs, diags, _ = load_rule_set([str(f)])
    assert rs is None
    assert [d.code for d in diags] == ["override-missing"]

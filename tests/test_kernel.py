"""The engine kernel (issue 9) and generated code as untrusted text (issue 17, item 1).

- generated code is written from a lowered specification: named constants, one
  function per distinct placement check, nothing dead;
- a rule file's *name* never becomes code, whatever characters it holds;
- an exception raised inside a generated rule function is reported with the
  rule-file line it came from, by replay, simulate and the engine check;
- a refusal cites the clause of the part that is broken (RIVER-TURN-1, RIVER-SETUP-1;
  BASE-COMP-1 is a record in rules/records/base).
"""
from __future__ import annotations

import ast
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.compiler.build import compile_to_dir, load_engine
from tessera.compiler.codegen import generate
from tessera.compiler.runtime.errors import RuleFailure
from tessera.replay.turns import draw  # chance's move: deal the tile a test names
from tessera.dsl.loader import load_rule_set, require_rule_set

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "rules" / "base.tess"


def _line_of(path: Path, text: str) -> int:
    """The line of `path` holding `text` (1-based), read from the rule file itself."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(f"{text!r} not in {path}")


# ---------------------------------------------------------------- the generated module
def test_generated_module_reads_with_names_and_has_no_dead_artefacts():
    src = generate(require_rule_set(["base", "river", "abbot", "king_robber"])).source
    tree = ast.parse(src)
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(defs) == len(set(defs))
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("place_check")]
    assert len(checks) == 1, [c.name for c in checks]  # every river tile shares one check
    assert "if True" not in src and "FIG_CLAUSE =" not in src and "build_orientations" not in src
    assert "g.continues(o, cell, RIVER)" in src and "ROAD = " in src and "FOLLOWER = " in src
    # the module imports what it uses, by name, from its own runtime and nothing else
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(n, ast.ImportFrom) and n.level == 1 and n.module.startswith("runtime") for n in imports)


def test_the_runtime_package_is_small_modules():
    for py in sorted((ROOT / "compiler" / "runtime").glob("*.py")):
        assert len(py.read_text(encoding="utf-8").splitlines()) <= 400, py.name


# ---------------------------------------------------------------- hostile file names (issue 17, item 1)
PAYLOAD = 'open("PWNED", "w").close()'
HOSTILE = [
    f"evil\n{PAYLOAD}\n#.tess",  # newline ends a comment
    f"evil\r{PAYLOAD}\r#.tess",  # so does a carriage return
    f"evil\r\n{PAYLOAD}\r\n#.tess",
    f'evil"""\n{PAYLOAD}\n""".tess',  # quotes that would end a docstring
    f"evil'\n{PAYLOAD}\n'.tess",
    f"evil\u2028{PAYLOAD}\u2029.tess",  # Unicode line and paragraph separators
    f"evil\x85\x0c{PAYLOAD}\\.tess",  # NEL, form feed, backslash
]


@pytest.mark.slow
@pytest.mark.parametrize("name", HOSTILE, ids=range(len(HOSTILE)))
def test_a_rule_file_name_never_becomes_code(name, tmp_path, monkeypatch):
    rules = tmp_path / "rules"
    rules.mkdir()
    shutil.copy(BASE, rules / name)
    monkeypatch.chdir(rules)  # the generated comments then name the file by its relative path
    rs, diags, _ = load_rule_set([name])
    assert rs is not None, diags
    eng = load_engine(rs)  # imports the generated module
    src = eng.source
    assert "PWNED" in src  # the name is in there, as text ...
    assert src.splitlines() == src.split("\n")[:-1]  # ... on no line of its own
    assert src.isascii()
    g = eng.play_random(2, 3)
    assert g.is_terminal()
    out = tmp_path / "out"
    compile_to_dir(rs, out, "eng")
    res = subprocess.run([sys.executable, "-I", "-c", "import sys; sys.path.insert(0, '.'); import eng; "
                          "print(eng.play_random(2, 1).returns())"], cwd=out, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    # a record that names the file, replayed from another folder
    from tessera.replay.tiles import replay

    monkeypatch.chdir(tmp_path)
    res = replay({"format": "tessera-game/1", "rules": [name], "players": ["a", "b"],
                  "turns": [{"tile": "U", "at": [1, 0], "rotation": 0}]}, rules)
    assert res.error is None and res.answer["scores"] == {"a": 0, "b": 0}
    assert not list(tmp_path.rglob("PWNED")), "a rule file's name ran as code"


# ---------------------------------------------------------------- source maps
def _engine_whose_rule_crashes(monkeypatch):
    """The base engine with `neighbours` broken: every rule that reads it raises.  On the interpreted
    kernel: the native kernel's Board is an extension type, whose methods cannot be patched (and its
    runtime is every engine's of the process, compiler/native.py); the patch is undone after the test."""
    monkeypatch.setenv("TESSERA_KERNEL", "python")
    eng = load_engine(require_rule_set(["base"]))

    def broken(self, r):
        raise ZeroDivisionError("forced by the test")

    # the generated rules read `g.board.neighbours(r)`
    monkeypatch.setattr(eng.runtime.board.Board, "neighbours", broken)
    return eng


def test_a_crashing_rule_is_reported_at_its_rule_file_line_by_simulate(monkeypatch):
    from tessera.play.simulate import game_seed, simulate

    want = f"rules/base.tess:{_line_of(BASE, 'complete cloister when')}"
    with pytest.raises(RuleFailure) as exc:
        simulate(_engine_whose_rule_crashes(monkeypatch), 3, 2, 0, ["base"])
    assert exc.value.location == want
    assert str(exc.value).startswith(f"{want}: error: this rule failed in game 0 (seed {game_seed(0, 0)})")
    assert "ZeroDivisionError: forced by the test" in str(exc.value)


def test_a_crashing_rule_is_reported_at_its_rule_file_line_by_replay(monkeypatch):
    import tessera.replay.tiles as replay_mod

    eng = _engine_whose_rule_crashes(monkeypatch)
    monkeypatch.setattr(replay_mod, "engine_for", lambda rules, search, confine=None: eng)
    # B is a cloister: placing it asks whether it is complete (neighbours == 8)
    record = {"format": "tessera-game/1", "rules": ["base"], "players": ["red", "blue"],
              "turns": [{"tile": "B", "at": [0, 1], "rotation": 0}]}
    with pytest.raises(RuleFailure) as exc:
        replay_mod.replay(record)
    assert exc.value.location == f"rules/base.tess:{_line_of(BASE, 'complete cloister when')}"
    assert "while turn 0 was played" in str(exc.value)


def test_a_crashing_rule_is_reported_at_its_rule_file_line_by_the_engine_check(monkeypatch):
    import tessera.compiler.build
    from tessera.verifier import engine_check

    eng = _engine_whose_rule_crashes(monkeypatch)
    monkeypatch.setattr(tessera.compiler.build, "load_engine", lambda rs: eng)
    monkeypatch.setattr(engine_check, "ENGINE_GAMES", 2)
    msgs = engine_check.engine_features(require_rule_set(["base"]))
    assert len(msgs) == 1 and msgs[0].startswith(f"rules/base.tess:{_line_of(BASE, 'complete cloister when')}: error:")


@pytest.mark.slow
def test_the_command_line_names_the_rule_line(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    import tessera.compiler.build
    from tessera import engine_cmds  # noqa: F401  (registers the commands)
    from tessera.cli import app

    eng = _engine_whose_rule_crashes(monkeypatch)
    monkeypatch.setattr(tessera.compiler.build, "load_engine", lambda rs: eng)
    res = CliRunner().invoke(app, ["simulate", "-n", "2", "--json"])
    assert res.exit_code == 1, res.output
    assert f'"rule": "rules/base.tess:{_line_of(BASE, "complete cloister when")}"' in res.output


# ---------------------------------------------------------------- the most specific clause
def _river_engine():
    return load_engine(require_rule_set(["base", "river"]))


def test_RIVER_TURN_1_a_land_tile_while_river_tiles_remain():
    eng = _river_engine()
    g = eng.new_game(2, 0)
    with pytest.raises(eng.IllegalAction) as exc:
        draw(g, "U")
    assert exc.value.clause == "RIVER-TURN-1" and "river deck" in exc.value.message


def test_RIVER_SETUP_1_the_lake_before_the_other_river_tiles():
    eng = _river_engine()
    g = eng.new_game(2, 0)
    with pytest.raises(eng.IllegalAction) as exc:
        draw(g, "river.lake")
    assert exc.value.clause == "RIVER-SETUP-1" and "drawn last" in exc.value.message


def test_RIVER_SETUP_1_the_boxed_start_tile():
    """D x4, one of them the start tile, which the source replaces and which goes back in
    the box (RIVER-SETUP-1): the land holds 3 D, and a fourth is refused citing the box."""
    eng = _river_engine()
    g = eng.new_game(2, 5)
    rng = random.Random(5)
    while g.tile_name().startswith("river."):
        acts = g.legal_actions()
        g.apply_action(acts[rng.randrange(len(acts))])
    for _ in range(3):
        draw(g, "D")
        g.apply_action(g.legal_actions()[0])
    with pytest.raises(eng.IllegalAction) as exc:
        draw(g, "D")
    assert exc.value.clause == "RIVER-SETUP-1" and "every copy" in exc.value.message


def test_deck_parts_carry_their_own_clauses():
    from tessera.dsl.ast import DeckDecl

    rs = require_rule_set(["base", "river"])
    river = next(d for d in rs.decks if d.name == "river")
    assert isinstance(river, DeckDecl)
    assert [c.clause for c in river.last_cites] == ["RIVER-SETUP-1"]
    assert [c.clause for c in river.before_cites] == ["RIVER-TURN-1"]
    assert re.search(r"last river\.lake \[RIVER-SETUP-1\] before land\s+\[RIVER-TURN-1\]",
                     (ROOT / "rules" / "river.tess").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- one source for each fact
def test_one_random_player_with_one_seed_formula():
    """simulate's games and the engine's play_random are the same game for the same seed."""
    from tessera.play.simulate import play_one

    eng = load_engine(require_rule_set(["base", "abbot"]))
    for seed in (0, 7):
        g, turns = play_one(eng, 3, seed)
        h = eng.play_random(3, seed)
        assert g.events == h.events and g.scores == h.scores and len(turns) == len(h.history)


def test_one_player_range_on_the_rule_set():
    from tessera.dsl.model import DEFAULT_PLAYERS

    base = require_rule_set(["base"])
    assert base.player_range() == (base.players.low, base.players.high)
    eng = load_engine(base)
    assert eng.rules.PLAYERS == base.player_range()
    base.players = None
    assert base.player_range() == DEFAULT_PLAYERS == load_engine(base).rules.PLAYERS


def test_the_command_line_modules_import_in_no_circle():
    def imports(name):
        tree = ast.parse((ROOT / "tessera" / f"{name}.py").read_text(encoding="utf-8"))
        # the command-line modules beside it (`from .dsl.model import ...` reaches a package below, not a command)
        return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1
                and (n.module is None or "." not in n.module)}

    for name in ("app", "engine_cmds", "picture_cmds", "console", "main"):
        assert "cli" not in imports(name) or name == "main", name
    assert imports("app") <= {None, "console"}  # `from . import __version__` and the consoles
    assert imports("console") == set()  # `tessera check` runs through it alone (tessera/main.py)


def test_the_runtimes_geometry_tables_are_the_languages():
    """The runtime is copied into compiled engines with the standard library only, so it keeps its
    own copy of the corner tables (BARN-PLACE-1's corners) instead of importing tessera.dsl.places; this
    keeps the two copies from drifting apart."""
    from tessera.compiler.runtime import geometry
    from tessera.dsl import places

    assert geometry.CORNER_HALVES == places.CORNER_HALVES
    assert geometry.CORNER_MEETS == places.CORNER_MEETS
    for p in places.ALL_PLACES:
        for r in geometry.ROTATIONS:
            assert geometry.rotate(p, r) == places.rotate(p, r), (p, r)

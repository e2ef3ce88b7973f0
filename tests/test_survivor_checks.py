"""Checks for what the mutation survivors showed (issue 35 item 3).

- BASE-COMP-3 / tiles.md: the gardens are printed on one copy each of E, H, I, M, N, R, U, V (8 tiles):
  `composition 8: E.garden x1, ...` states it and `set-counts` holds the tiles to it.
- BASE-PLACE-2 / BASE-PLACE-3: a tile whose edges meet only copies of itself can never be laid (the first
  copy needs a neighbour on the board): an error, not a tile discarded twice a game.
- SIEGE-SETUP-1: "the first river curve must lead away from the fortress"; without it the river laid by
  the engine runs north along the fortress and the next river tile fits nowhere: "never blocked" fails,
  with a record of the discard.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.dsl.loader import require_rule_set
from tessera.verifier.checks import load_checks, run_check

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"


def mutated(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the bundled rule files with one change in `name` (the mutation benchmark's way)."""
    d = tmp_path / "rules"
    d.mkdir(exist_ok=True)
    for f in RULES.glob("*.tess"):
        shutil.copy(f, d / f.name)
    text = (d / name).read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    (d / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return d


def test_the_bundled_gardens_are_8_tiles():
    res = run_check(load_checks()["set-counts"], require_rule_set(["base"]))
    assert res.passed and "BASE-COMP-3" in res.clauses, [d.message for d in res.diagnostics]


@pytest.mark.parametrize("old, new, says", [
    # a garden on two copies of E: 9 gardens
    ("variant garden x1 { garden C }", "variant garden x2 { garden C }", ["tile E has 2 copies with a garden, but the "
                                                                         "rulebook counts 1 (BASE-COMP-3)",
                                                                         "9 tiles have a garden, but the rulebook has 8"]),
    # E's garden dropped: 7 gardens
    ("  variant garden x1 { garden C }\n", "", ["tile E has 0 copies with a garden, but the rulebook counts 1",
                                               "7 tiles have a garden, but the rulebook has 8"]),
])
def test_a_garden_more_or_less_is_caught(tmp_path, old, new, says):
    d = mutated(tmp_path, "base.tess", old, new)
    res = run_check(load_checks()["set-counts"], require_rule_set([str(d / "base.tess")]))
    text = [x.message for x in res.diagnostics if x.severity == "error"]
    assert not res.passed
    for s in says:
        assert any(s in t for t in text), text


def test_a_tile_that_meets_only_itself_can_never_be_laid(tmp_path):
    p = tmp_path / "unlay.tess"
    p.write_text('module unlay "a tile of its own kind"\nextends base\nfeature lake [BASE-COMP-3]\n'
                 'edge Z = lake "a shore no other tile has"\n'
                 'tile Z1 x2 [BASE-COMP-1] {\n  edges Z Z Z Z\n  lake N E S W\n}\n', encoding="utf-8")
    res = run_check(load_checks()["set-fit"], require_rule_set([str(p)]))
    assert not res.passed
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.span.file == str(p) and d.span.line == 5
    assert "tile Z1 can never be laid: none of its edges (Z Z Z Z) can meet an edge of the start or of a tile " \
           "that can be laid (only of Z1, which cannot be laid first either), so every copy (2) is discarded" in d.message


@pytest.mark.parametrize("rules", [["base"], ["base", "river"], ["base", "river", "siege"], ["base", "king_robber"],
                                   ["base", "tower"], ["base", "refcard"]])
def test_every_bundled_tile_can_be_laid(rules):
    from tessera.verifier.tile_set import never_laid

    assert never_laid(require_rule_set(rules)) == []


@pytest.mark.slow
def test_without_the_sieges_first_curve_rule_the_river_is_blocked_by_the_fortress(tmp_path):
    d = mutated(tmp_path, "siege.tess", '    require siege_river_laid == 1 or turn(river) != -1 '
                                        '"the first river curve must lead away from the fortress"\n', "")
    spec = "+".join(str(d / f) for f in ("base.tess", "riverbed.tess", "river.tess", "siege.tess"))
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", spec, "--no-engine", "--only", "river",
                           "--record", str(tmp_path / "w")], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "never blocked: REFUTED" in out
    assert re.search(r"witness: after \d+ river tiles? laid as the rules allow, river\.\w+ is drawn and fits nowhere", out)
    rec = re.search(r"replay it: tessera replay (\S+)", out).group(1)
    rep = subprocess.run([sys.executable, "-m", "tessera", "replay", rec], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert rep.returncode == 0 and "which fits nowhere [BASE-PLACE-3]" in rep.stdout, rep.stdout + rep.stderr


@pytest.mark.slow
def test_the_bundled_sieges_river_is_never_blocked():
    res = run_check(load_checks()["river"], require_rule_set(["base", "river", "siege"]))
    assert res.passed, [d.message for d in res.diagnostics]


@pytest.mark.parametrize("rules", [["base"], ["base", "river"], ["base", "abbot"], ["base", "king_robber"],
                                   ["base", "barn"], ["base", "tower"], ["base", "siege"], ["base", "refcard"]])
def test_every_bundled_variant_has_its_count_stated(rules):
    """Issue 35's check for the garden survivor, over every bundled rule set: each tile variant the rules
    print (today the gardens, BASE-COMP-3) is named by a `composition` list of that variant, so set-counts
    holds its count to the rulebook's; a variant no list names would be counted by nothing."""
    from tessera.verifier.tile_set import _variant_compositions

    rs = require_rule_set(rules)
    stated = {e.tile for _, comp in _variant_compositions(rs) for e in comp.counts}
    printed = {f"{t.name}.{t.variant}" for t in rs.tiles if t.variant}
    assert printed <= stated, sorted(printed - stated)
    assert printed or rules != ["base"]  # base prints the gardens: the check is not vacuous

"""The mutator of bench/mutation.py (issue 22's mutation campaign): which mutants it makes.

The campaign itself (check and verify on each mutant) is a benchmark, never run here."""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from tessera.dsl import ast as A
from tessera.dsl.parser import parse

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_mutation", REPO / "bench" / "mutation.py")
M = importlib.util.module_from_spec(_spec)
sys.modules["bench_mutation"] = M  # dataclasses look their module up
_spec.loader.exec_module(M)

TEXT = '''# A rule file with one of each: 7 in a comment is not a rule
module mini "Mini 3" [BASE-COMP-1]
figure follower 7 per player [BASE-FOLLOW-3]
    on city, road [BASE-FOLLOW-1]
    when figures == 0 and count(follower) < 8 [BASE-FOLLOW-2]
allow follower on road when open >= 1 or tiles > 2 [BASE-FOLLOW-1]
forbid follower on city when shields != 0 [BASE-FOLLOW-1]
score road complete = 2 * tiles [BASE-ROAD-2]
on complete of city where tiles <= 4 [KING-1] {
  set king = current
}
tile A x2 [BASE-COMP-1] {
  edges C R F R
  city N
  variant garden x1 { garden C }
}
example road_of_3 [BASE-ROAD-2] {
  feature = road  when = complete  tiles = 3
  followers = {you: 1}  points = {you: 6}
}
'''


def _one_point(orig: str, mutant: str) -> tuple[int, str, str]:
    """Where two texts differ, as (offset, old, new): the one region between their common
    prefix and common suffix."""
    p = len(os.path.commonprefix([orig, mutant]))
    s = len(os.path.commonprefix([orig[p:][::-1], mutant[p:][::-1]]))
    return p, orig[p:len(orig) - s], mutant[p:len(mutant) - s]


def _line_col(text: str, off: int) -> tuple[int, int]:
    line = text.count("\n", 0, off) + 1
    return line, off - (text.rfind("\n", 0, off) + 1) + 1


def test_each_kind_of_mutation_is_made():
    mus = M.mutants_of(TEXT, "rules/mini.tess")
    got = {(mu.kind, mu.old.split()[0] if mu.kind == "delete" else mu.old, mu.new) for mu in mus}
    # a number: n+1, n-1 and 0
    assert {("number", "7", "8"), ("number", "7", "6"), ("number", "7", "0")} <= got
    assert {("number", "0", "1"), ("number", "2", "3"), ("number", "2", "1"), ("number", "2", "0")} <= got
    # a comparison negated
    assert {("compare", "==", "!="), ("compare", "<", ">="), ("compare", ">=", "<"), ("compare", ">", "<="),
            ("compare", "!=", "=="), ("compare", "<=", ">")} <= got
    # and/or swapped
    assert {("andor", "and", "or"), ("andor", "or", "and")} <= got
    # one allow/forbid/score/on statement deleted
    assert {k for k, first, _ in got if k == "delete"} == {"delete"}
    assert {first for k, first, _ in got if k == "delete"} == {"allow", "forbid", "score", "on"}
    # a tile count changed (the tile's and its variant's)
    assert {("tilecount", "2", "3"), ("tilecount", "2", "1"), ("tilecount", "1", "2"), ("tilecount", "1", "0")} <= got
    # two edge letters swapped
    edges = {new for k, old, new in got if k == "edges"}
    assert "R C F R" in edges and "C R R F" in edges and "C F R R" in edges
    assert "C R F R" not in edges  # swapping the two R's changes nothing: not a mutant


def test_every_mutant_differs_from_the_original_at_exactly_one_point():
    mus = M.mutants_of(TEXT, "rules/mini.tess")
    assert len({mu.text for mu in mus}) == len(mus)  # no mutant twice
    for mu in mus:
        assert mu.text != TEXT
        off, old, new = _one_point(TEXT, mu.text)
        assert (old, new) != ("", "")
        # the differing region lies inside the mutated span the mutant reports
        line, col = _line_col(TEXT, off)
        start = sum(len(ln) + 1 for ln in TEXT.split("\n")[:mu.line - 1]) + mu.col - 1
        assert start <= off and off + len(old) <= start + len(mu.old), mu.describe()
        assert TEXT[:start] + mu.new + TEXT[start + len(mu.old):] == mu.text


def test_comments_strings_clauses_and_examples_are_never_mutated():
    mus = M.mutants_of(TEXT, "rules/mini.tess")
    ex_from = TEXT.index("example road_of_3")
    for mu in mus:
        start = sum(len(ln) + 1 for ln in TEXT.split("\n")[:mu.line - 1]) + mu.col - 1
        assert start < ex_from, mu.describe()
        assert mu.line != 1, mu.describe()  # the comment
        assert "Mini" in mu.text and "[BASE-COMP-1]" in mu.text and "[BASE-FOLLOW-3]" in mu.text
    # the field arrow `->` is not a comparison
    assert not [mu for mu in M.mutants_of("tile D x1 [X-1] {\n  field Wn En -> N\n}\n", "t.tess") if mu.kind == "compare"]


def test_a_deleted_statement_takes_its_continuation_lines_and_block_but_not_a_figures_on():
    mus = [mu for mu in M.mutants_of(TEXT, "rules/mini.tess") if mu.kind == "delete"]
    on = next(mu for mu in mus if mu.old.startswith("on complete"))
    assert on.old.rstrip().endswith("}") and "set king = current" in on.old
    assert not [mu for mu in mus if mu.old.lstrip().startswith("on city")]  # the figure's `on city, road` line
    before = parse(TEXT, "mini.tess")
    for mu in mus:
        after = parse(mu.text, "mini.tess")  # a whole statement goes: the file still parses
        assert len(after.items) == len(before.items) - 1, mu.describe()


@pytest.mark.slow
@pytest.mark.parametrize("module", ["base", "barn", "tower", "siege", "abbot", "river", "king_robber"])
def test_bundled_rule_files_mutants_stay_out_of_their_worked_examples(module):
    path = REPO / "rules" / f"{module}.tess"
    text = path.read_text(encoding="utf-8")
    mod = parse(text, str(path))
    examples = [(e.span.line, e.span.end_line) for e in mod.of_type(A.ExampleDecl)]
    mus = M.mutants_of(text, f"rules/{module}.tess")
    assert mus
    for mu in mus:
        assert not any(a <= mu.line <= b for a, b in examples), mu.describe()
        off, old, new = _one_point(text, mu.text)
        assert (old, new) != ("", "")
        if mu.kind == "delete":
            parse(mu.text, str(path))  # deleting a whole statement leaves a file that parses


def test_sampling_is_deterministic_and_spread_over_modules():
    by = M.all_mutants(["barn", "abbot", "tower"])
    a = M.sample(by, 12, 3)
    assert [mu.id for mu in a] == [mu.id for mu in M.sample(by, 12, 3)]
    assert [mu.id for mu in a] != [mu.id for mu in M.sample(by, 12, 4)]
    assert {m: sum(1 for mu in a if mu.module == m) for m in by} == {"abbot": 4, "barn": 4, "tower": 4}


def test_a_module_is_verified_in_the_default_rule_sets_that_load_it():
    rules = REPO / "rules"
    assert M.sets_for("barn", rules) == ["base+barn", "base+river+abbot+king_robber+barn+tower+siege"]
    assert "base+river" in M.sets_for("riverbed", rules) and "base+siege" in M.sets_for("riverbed", rules)
    assert len(M.sets_for("base", rules)) == 8


def test_every_mutant_listed_as_equivalent_exists_with_a_reason():
    import json

    listed = json.loads(M.EQUIVALENT.read_text(encoding="utf-8"))
    ids = {mu.id for ms in M.all_mutants().values() for mu in ms}
    assert set(listed) <= ids  # a rule file edited since: the list names mutants that still exist
    assert all(len(reason) > 40 for reason in listed.values())

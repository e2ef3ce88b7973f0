"""One diagnostic per mistake (issue 39, item 6): tests/fixtures/one_mistake/ holds 30 copies of one clean
house rule, each with a single mistake (a misspelt module, keyword, kind, place, edge, quantity or clause,
a block left open, a missing `=`, a chained comparison, a duplicate, ...); each gives exactly one
diagnostic, on the line expected.txt names, in the editor (the LSP's analysis) as in `tessera check`.
After a syntax error the rest of the file is still read (later mistakes are reported too), an unknown
module is reported once and the rest checked as if it were the module it is closest to, and a block
left open is named where it opens."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tessera.dsl.loader import check_paths
from tessera.lsp.analysis import Analysis

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "one_mistake"
EXPECTED = [ln.split() for ln in (FIXTURE / "expected.txt").read_text(encoding="utf-8").splitlines() if ln.strip()]
TESSERA = Path(__import__("sys").executable).with_name("tessera")


def _clean_original() -> str:
    """The clean house rule the mistakes are made in: fixture 01 with its one mistake undone."""
    return (FIXTURE / "01_misspelt_extends_module.tess").read_text(encoding="utf-8").replace("extends bsae", "extends base")


def test_the_fixture_has_30_mistakes_in_a_clean_rule_file(tmp_path):
    assert len(EXPECTED) == 30 == len(list(FIXTURE.glob("*.tess")))
    clean = tmp_path / "house.tess"
    clean.write_text(_clean_original(), encoding="utf-8")
    diags, _ = check_paths([str(clean)])
    assert diags == []


@pytest.mark.parametrize("name, line, code", EXPECTED, ids=[e[0].removesuffix(".tess") for e in EXPECTED])
def test_one_mistake_gives_one_diagnostic(name, line, code):
    path = FIXTURE / name
    diags, _ = check_paths([str(path)])
    mine = [d for d in diags if d.severity == "error"]
    assert [(d.span.line, d.code) for d in mine] == [(int(line), code)], [d.message for d in mine]
    a = Analysis(path.read_text(encoding="utf-8"), str(path))  # the editor sees the same one
    assert [(d.span.line, d.code) for d in a.diagnostics if d.severity == "error"] == [(int(line), code)]


def test_after_a_misspelt_keyword_the_rest_is_still_read(tmp_path):
    text = _clean_original().replace("state bonus = 0", "staet bonus = 0").replace(
        "score pond complete = 1", "score pond complete 1")
    path = tmp_path / "house.tess"
    path.write_text(text, encoding="utf-8")
    out = subprocess.run([str(TESSERA), "check", str(path)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "house.tess:4:1: error: unexpected `staet`; did you mean `state`?" in out.stdout
    assert "house.tess:12:21: error: unexpected `1`; expected `=`" in out.stdout  # the second mistake, after the first
    assert "Found 2 errors" in out.stdout


def test_a_swapped_pair_of_letters_suggests_the_keyword_it_spells():
    diags, _ = check_paths([str(FIXTURE / "04_misspelt_keyword_tile.tess")])
    assert [d.message for d in diags] == ["unexpected `tiel`; did you mean `tile`?"]  # not `tie`, closer by ratio


def test_after_a_syntax_error_the_rest_is_checked_as_if_the_statement_were_not_there(tmp_path):
    # the misspelt keyword sets aside `state bonus = 0`; a later misspelt kind is still found, and the
    # use of `bonus` (declared by the statement set aside) is not a second error for the same mistake
    text = _clean_original().replace("state bonus = 0", "staet bonus = 0").replace(
        "override score city complete = 3 * tiles", "override score ctiy complete = 3 * tiles + bonus")
    path = tmp_path / "house.tess"
    path.write_text(text, encoding="utf-8")
    diags, _ = check_paths([str(path)])
    assert [(d.span.line, d.code) for d in diags] == [(4, "syntax"), (11, "unknown-name")]
    assert "`ctiy`; did you mean `city`?" in diags[1].message
    a = Analysis(text, str(path))  # the editor too
    assert [(d.span.line, d.code) for d in a.diagnostics] == [(4, "syntax"), (11, "unknown-name")]


def test_an_unclosed_brace_is_named_where_it_opens():
    path = FIXTURE / "15_unclosed_tile_block.tess"
    diags, _ = check_paths([str(path)])
    (d,) = diags
    text = path.read_text(encoding="utf-8").split("\n")
    assert text[d.span.line - 1][d.span.column - 1] == "{" and text[d.span.line - 1].startswith("tile Z9")
    assert d.message == "unclosed `{`: this block has no `}` before the next statement (`complete`, line 10)"


def test_a_misspelt_module_is_reported_once_and_the_rest_checked_as_if_right(tmp_path):
    # the rest uses what base declares (the city's score, the field, the edge F): no error for any of it,
    # but a real mistake after it is still found
    text = _clean_original().replace("extends base", "extends bsae").replace("3 * tiles", "3 * tilez")
    path = tmp_path / "house.tess"
    path.write_text(text, encoding="utf-8")
    diags, _ = check_paths([str(path)])
    assert [(d.span.line, d.code) for d in diags] == [(2, "unknown-name"), (11, "unknown-name")]
    assert "did you mean `base`?" in diags[0].message and "`tilez`" in diags[1].message

"""Whatever text a designer writes, the loader answers with a module or diagnostics.

Arbitrary text, token soups drawn from the language's own words, and mutations
of rules/base.tess (tokens deleted, duplicated, swapped, replaced) go through
`Workspace.add_text` and the `Builder`; nothing may raise.  Every diagnostic
must render, and every module that parses must survive `tessera fmt`
(parse(fmt(m)) == m).
"""
from __future__ import annotations

import pytest

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tessera.dsl import ast as A
from tessera.dsl.diagnostics import render
from tessera.dsl.fmt import format_module
from tessera.dsl.loader import Builder, Workspace, module_order
from tessera.dsl.parser import parse

REPO = Path(__file__).resolve().parent.parent
BASE = (REPO / "rules" / "base.tess").read_text(encoding="utf-8")
BASE_TOKENS = re.findall(r"\S+|\s+", BASE)
WORDS = [i for i, t in enumerate(BASE_TOKENS) if not t.isspace()]

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(text: str) -> tuple[A.Module | None, list]:
    """What `tessera check` does with one file, minus the printing."""
    ws = Workspace()
    mod = ws.add_text(text, "fuzz.tess")
    diags = list(ws.diagnostics)
    if mod is not None:
        order = module_order(ws, [mod.name], diags)
        if order:
            b = Builder(order)
            b.build()
            diags.extend(b.diags)
    for d in diags:
        assert d.code and d.message
        assert render(d, ws.sources).startswith(d.header())
    if mod is not None:
        again = parse(format_module(mod), "fuzz.tess")
        assert again == mod
    return mod, diags


# The language's own vocabulary, so soups reach past the first token.
VOCAB = [
    "module", "requires", "extends", "total", "players", "edge", "feature", "centre", "figure",
    "per", "player", "on", "when", "tile", "variant", "edges", "shields", "crosses", "start", "at",
    "rotation", "deck", "tiles", "rest", "last", "before", "box", "placement", "adjacent", "matching",
    "continues", "discard", "complete", "score", "end", "owners", "most", "all", "return", "scored",
    "state", "place", "of", "where", "require", "set", "award", "recall", "invariant", "example",
    "override", "if", "then", "else", "and", "or", "not", "true", "false",
    "city", "road", "field", "cloister", "garden", "follower", "base", "river", "m",
    "N", "E", "S", "W", "Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn", "NW", "SE", "C",
    "A", "D", "river.source", "x1", "x4", "x0", "0", "1", "2", "72", "-1", "..", "=", "==", "!=",
    "<", "<=", ">", "+", "-", "*", "//", "%", "(", ")", "{", "}", "[", "]", ",", ":", "->",
    "[BASE-COMP-1]", "BASE-CITY-2", "NOPE-1", '"title"', '"a \\" b"', "# comment\n", "\n",
    "open", "neighbours", "shields", "figures", "completed(city)", "turn(river)", "max(1, 2)",
]


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    load(text)


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_after_a_module_line(text: str) -> None:
    load("module fuzz\n" + text)


@FUZZ
@given(st.lists(st.sampled_from(VOCAB), max_size=40))
def test_token_soup(words: list[str]) -> None:
    load("module fuzz " + " ".join(words))


_EDIT = st.tuples(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert"]),
                  st.integers(0, len(WORDS) - 1), st.integers(0, len(WORDS) - 1),
                  st.sampled_from(VOCAB))


def mutate(edits) -> str:
    toks = list(BASE_TOKENS)
    for kind, i, j, word in edits:
        a, b = WORDS[i], WORDS[j]
        if kind == "delete":
            toks[a] = ""
        elif kind == "duplicate":
            toks[a] = toks[a] + " " + toks[a]
        elif kind == "swap":
            toks[a], toks[b] = toks[b], toks[a]
        elif kind == "replace":
            toks[a] = word
        else:
            toks[a] = toks[a] + " " + word
    return "".join(toks)


@pytest.mark.slow
@FUZZ
@given(st.lists(_EDIT, min_size=1, max_size=4))
def test_mutations_of_base(edits) -> None:
    load(mutate(edits))


def test_unmutated_base_is_clean() -> None:
    mod, diags = load(BASE)
    assert mod is not None and mod.name == "base"
    assert diags == []


def test_deep_nesting_is_a_diagnostic_not_a_crash() -> None:
    for expr in ["(" * 2000 + "1" + ")" * 2000, "-" * 2000 + "1", "not " * 2000 + "true",
                 " + ".join(["1"] * 2000), "max(" * 500 + "1" + ", 1)" * 500]:
        mod, diags = load(f"module deep\nfeature city\nscore city complete = {expr}\n")
        assert mod is None
        assert [d.code for d in diags] == ["syntax"]
        flat = expr.startswith("1 + 1")  # a flat chain is not nesting: its own limit, its own words
        assert ("operators long" if flat else "nested more than") in diags[0].message


def test_bad_strings_are_diagnostics() -> None:
    for s in ['"\x00"', '"\\x"', '"\\N{NO SUCH NAME}"', '"\\ud800"']:
        mod, diags = load(f"module strs {s}\n")
        assert (mod is None) == bool(diags)


@pytest.mark.parametrize("text", ['"\x1f"', '"\x1b[2J"', 'module m "\u202e"\n"\x07"'])
def test_header_and_render_escape_alike(text: str) -> None:
    """Found by test_arbitrary_text: for `"\\x1f"` render() escaped the control character and
    Diagnostic.header() did not, so a printed diagnostic and its header disagreed (and a header could
    drive the terminal)."""
    mod, diags = load(text)
    assert diags
    for d in diags:
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", d.header()), repr(d.header())
    assert any("\\x1f" in d.header() or "\\x1b" in d.header() or "\\x07" in d.header() for d in diags)

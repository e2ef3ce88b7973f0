"""The TextMate grammar of editors/, run by a TextMate engine (textmate-grammar-python,
a port of vscode-textmate on Oniguruma) over every bundled rule file."""
from __future__ import annotations

import json
import logging
import plistlib
import re
from pathlib import Path

import pytest
from textmate_grammar.parsers.base import LanguageParser

from tessera.dsl.builtins import FUNCTIONS, QUANTITIES

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "editors" / "vscode" / "syntaxes" / "tessera.tmLanguage.json"
RULE_FILES = sorted((ROOT / "rules").rglob("*.tess"))
logging.getLogger("textmate_grammar").setLevel(logging.ERROR)  # it logs every skipped blank


@pytest.fixture(scope="module")
def grammar():
    return json.loads(GRAMMAR.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def parser(grammar):
    return LanguageParser(grammar)


def _scopes(node) -> set[str]:
    out = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "name" and isinstance(v, str) and "." in v:
                out.add(v)
            else:
                out |= _scopes(v)
    elif isinstance(node, list):
        for v in node:
            out |= _scopes(v)
    return out


def _tokens(parser, text: str):
    return parser.parse_string(text).flatten()


def test_every_bundled_rule_file_tokenizes_and_uses_every_scope(parser, grammar):
    assert len(RULE_FILES) >= 10
    seen: set[str] = set()
    for path in RULE_FILES:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        covered = [[False] * len(line) for line in lines]
        for (ln, col), s, scopes in _tokens(parser, text):
            seen.update(scopes)
            assert not any("invalid" in sc for sc in scopes), (path.name, ln + 1, s)
            if len(scopes) > 1:  # a scope of its own beyond the file's source.tessera
                for i in range(col, min(col + len(s), len(covered[ln]))):
                    covered[ln][i] = True
        for ln, line in enumerate(lines):
            bare = [i for i, ch in enumerate(line) if not ch.isspace() and not covered[ln][i]]
            assert not bare, f"{path.relative_to(ROOT)}:{ln + 1}:{bare[0] + 1}: no scope for {line[bare[0]:]!r}"
    assert _scopes(grammar["repository"]) <= seen, _scopes(grammar["repository"]) - seen


def _scope_of(parser, text: str, word: str) -> list[str]:
    for (_, col), s, scopes in _tokens(parser, text):
        if s == word:
            return scopes
    raise AssertionError(f"{word!r} is not one token of {text!r}")


def test_the_languages_keywords_and_builtins_are_highlighted(parser):
    lark = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
    keywords = sorted(set(re.findall(r'"([a-z_]+)"', lark)))
    assert {"module", "figure", "when", "override"} <= set(keywords)
    for k in keywords:
        scopes = _scope_of(parser, f"{k} \n", k)
        assert scopes[-1] != "variable.other.tessera" and len(scopes) > 1, (k, scopes)
    for q in QUANTITIES:
        assert _scope_of(parser, f"score road end = {q} + 1\n", q)[-1] == "variable.language.tessera", q
    for f in FUNCTIONS:
        assert _scope_of(parser, f"state s = {f}(road)\n", f)[-1] == "support.function.tessera", f


def test_declarations_places_and_citations(parser):
    text = 'tile river.lake x1 [RIVER-COMP-1, RIVER-SETUP-1] {\n  edges F F R F\n  road Sw -> N\n}\n'
    assert _scope_of(parser, text, "tile")[-1] == "storage.type.tessera"
    assert _scope_of(parser, text, "river.lake")[-1] == "entity.name.tessera"
    assert _scope_of(parser, text, "x1")[-1] == "constant.numeric.count.tessera"
    assert _scope_of(parser, text, "RIVER-SETUP-1")[-1] == "constant.other.clause.tessera"
    assert _scope_of(parser, text, "Sw")[-1] == "constant.other.place.tessera"
    assert _scope_of(parser, text, "->")[-1] == "keyword.operator.tessera"


def test_a_house_rules_own_clause(parser):
    text = 'clause HOUSE-1 "Roads score 2 per tile"\noverride score road complete = 2 * tiles [HOUSE-1]\n'
    assert _scope_of(parser, text, "clause")[-1] == "storage.type.tessera"
    scopes = [sc for (_, s, sc) in _tokens(parser, text) if s == "HOUSE-1"]
    assert len(scopes) == 2 and all(sc[-1] == "constant.other.clause.tessera" for sc in scopes)


def test_the_sublime_copy_and_the_vscode_extension_match(grammar):
    with open(ROOT / "editors" / "tessera.tmLanguage", "rb") as fh:
        assert plistlib.load(fh) == grammar
    pkg = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    (g,) = pkg["contributes"]["grammars"]
    assert g["scopeName"] == grammar["scopeName"] == "source.tessera"
    assert (ROOT / "editors" / "vscode" / g["path"]).resolve() == GRAMMAR
    (lang,) = pkg["contributes"]["languages"]
    assert lang["extensions"] == [".tess"]
    assert (ROOT / "editors" / "vscode" / lang["configuration"]).is_file()

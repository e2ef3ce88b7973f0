"""What the editor says comes from one source each, and nothing is left out:

- every grammar rule that holds a name has its names' roles in dsl/names.py (so references,
  rename and semantic tokens know a construct as soon as the grammar has it);
- every quantity and function of dsl/builtins.py has its row in docs/language.md 3.3, the
  text hover and completion show; every statement keyword has its section there."""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.dsl import names as N
from tessera.dsl.builtins import FUNCTIONS, QUANTITIES
from tessera.dsl.parser import GRAMMAR, _build
from tessera.lsp import langdoc
from tessera.lsp.complete import STATEMENTS

LANGUAGE = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")


@pytest.mark.slow  # builds the LALR tables from the grammar
def test_every_rule_with_a_name_has_its_roles():
    parser = _build(GRAMMAR.read_text(encoding="utf-8"))
    holding, trees = set(), set()
    for rule in parser.rules:
        data = str(rule.alias or rule.origin.name)
        trees.add(data)
        syms = {s.name for s in rule.expansion}
        if data.startswith("__") or data in ("name_list", "tile_list"):
            continue  # Lark's own helper rules, and the lists (their parent gives the role)
        if rule.options.expand1 and len(rule.expansion) == 1 and not rule.alias:
            continue  # `?rule: NAME` passes its name up to the rule around it
        if syms & {"NAME", "TILE_NAME", "CLAUSE", "name_list", "tile_list"}:
            holding.add(data)
    assert holding - set(N._ROLES) == set(), "rules whose names have no role in dsl/names.py"
    assert set(N._ROLES) - trees == set(), "roles for rules the grammar no longer has"


def test_the_roles_of_the_bundled_rules():
    text = (Path(__file__).resolve().parent.parent / "rules" / "tower.tess").read_text(encoding="utf-8")
    occs = N.occurrences(N.raw_tree(text))
    occs = N.resolve(occs, N.declared([occs]) | {"figure": {"follower", "abbot", "floor"}})
    got = {(o.name, o.role, o.decl) for o in occs}
    assert {("tower", "module", True), ("base", "module", False), ("tower", "kind", True), ("floor", "figure", True),
            ("tower", "kind", False), ("follower", "figure", False), ("TOWER-COMP-1", "clause", False),
            ("tower.A", "tile", True), ("points", "quantity", False), ("count", "function", False),
            ("C", "place", False)} <= got
    # `count(floor)`: the argument is the figure
    line = next(n for n, ln in enumerate(text.split("\n"), 1) if "in line within count(floor)" in ln)
    assert [o.role for o in occs if o.line == line and o.name == "floor"] == ["figure"]


def test_every_builtin_and_statement_has_its_reference_text():
    docs = langdoc.builtins()
    for name in [*QUANTITIES, *FUNCTIONS]:
        assert "*language.md 3.3*" in docs[name], f"`{name}` has no row in docs/language.md 3.3"
        section = LANGUAGE.split("### 3.3 ", 1)[1].split("### 3.4 ", 1)[0]
        row = next(ln for ln in section.split("\n") if ln.startswith((f"| `{name}` ", f"| `{name}(")))
        assert row.split("|")[2].strip() in docs[name]
    for word in sorted(STATEMENTS - {"module"}):
        doc = langdoc.keyword(word, word) or ""
        assert "*language.md 2." in doc or "*language.md 1.2*" in doc or "*language.md 7.2*" in doc, word
    for word in ("if", "and", "or", "not", "true", "false"):
        assert "*language.md 3.1*" in langdoc.keyword(word), word


def test_a_statement_of_both_games_is_explained_by_the_game_it_is_in():
    # `end` starts the tile game's `end after N rounds` (2.30) and the card game's `end when` (7.2); a
    # section titled with several words (`on round end`) is the section of its first one
    assert "end after N rounds" in langdoc.keyword("after", "end")
    assert "end after N rounds" in langdoc.keyword("end", "end", "tile")
    assert "end when COND" in langdoc.keyword("end", "end", "card")
    assert "on round end [where CONDITION]" in langdoc.keyword("round", "on")

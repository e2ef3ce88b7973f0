"""dsl/parser_tables.json: the LALR tables `tessera check` loads instead of building them each run.

They are a generated file, like Lark's standalone parsers: they must be those of
the grammar as it is (otherwise they are ignored and the parser is built, which
is correct but slow), and the parser loaded from them must read every rule file
exactly as the parser built from the grammar does.
"""
from __future__ import annotations

import pytest

from pathlib import Path

from tessera.dsl import parser as P

RULES = Path(__file__).resolve().parent.parent / "rules"


def test_tables_are_those_of_the_grammar():
    """(Lark numbers its states differently from run to run, so the tables are matched by the grammar's hash.)"""
    fresh = P._tables(P.GRAMMAR.read_text(encoding="utf-8")) is not None
    assert fresh, "dsl/grammar.lark changed: run `python -m tessera.dsl.parser --write-tables` and commit dsl/parser_tables.json"


@pytest.mark.slow
def test_loaded_parser_reads_every_rule_file_as_the_built_one():
    grammar = P.GRAMMAR.read_text(encoding="utf-8")
    assert P._tables(grammar) is not None
    loaded = P.make_parser()
    built = P._build(grammar)
    files = sorted(RULES.rglob("*.tess"))
    assert len(files) > 10
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert loaded.parse(text) == built.parse(text), f.name


def test_tables_of_another_grammar_are_not_used():
    grammar = P.GRAMMAR.read_text(encoding="utf-8")
    assert P._tables(grammar + "\n// changed\n") is None

"""Game families declared once (dsl/family.py, issue 36): every signal that named a family -- the
rule set's statements, the engine's rules module, the generated source, the record's format --
answers through one registry, and docs/architecture.md's worked example of declaring a family
runs as written."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tessera.compiler.build import engine_from_source, load_engine
from tessera.dsl import ast as A
from tessera.dsl.family import CARDS, TILES, Family
from tessera.dsl.loader import load_rule_set

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "rules" / "records"


@pytest.mark.slow  # compiles two engines
def test_every_signal_names_the_same_family() -> None:
    for spec, family in ((["base"], TILES), (["card"], CARDS)):
        rs, diags, _ = load_rule_set(spec)
        assert rs is not None and not [d for d in diags if d.severity == "error"]
        assert rs.family is family
        eng = load_engine(rs)
        assert Family.of_rules(eng.rules) is family
        assert Family.of_source(eng.source) is family
        assert eng.family == family.name
        assert engine_from_source(eng.source, spec[0]).family == family.name
    assert Family.of_record({"format": "tessera-cards/1"}) is CARDS
    assert Family.of_record({"format": "tessera-game/1"}) is TILES
    assert Family.of_record({}) is TILES  # the tile game's replay refuses an unknown or missing format itself


def test_checks_belong_to_one_family() -> None:
    assert CARDS.owns_check("card-deal") and not TILES.owns_check("card-deal")
    assert TILES.owns_check("invariants") and not CARDS.owns_check("invariants")
    assert TILES.owns_check("records") and CARDS.owns_check("records")


@pytest.mark.slow  # compiles and replays a card game
def test_the_worked_example_of_docs_architecture_runs() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    part = text[text.index("### Game families, declared once"):]
    code = re.search(r"```python\n(.*?)```", part, re.S).group(1)
    try:
        exec(compile(code, "docs/architecture.md", "exec"), {"RECORDS": RECORDS, "__name__": "example"})
        tarot = Family.named("tarot")
        assert tarot.record_format == "tarot/1" and tarot.replay is CARDS.replay
    finally:
        Family.REGISTRY.pop("tarot", None)
    with pytest.raises(KeyError):
        Family.named("tarot")


def test_each_familys_heads_are_the_first_words_of_its_own_statements():
    # dsl/family.py declares the first words of each family's own statements once (`heads`): the editor
    # offers them and reads a file's family by them while it does not parse.  Every statement of every
    # rule file here starts with a word of its own family's heads, or is a statement both families read.
    from tessera.dsl.family import SHARED_STATEMENTS
    from tessera.dsl.parser import parse

    root = Path(__file__).resolve().parent.parent
    files = sorted(root.glob("rules/**/*.tess")) + sorted(root.glob("tests/designer/**/*.tess"))
    seen = {f.name: set() for f in Family.REGISTRY.values()}
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")

        def statements(items):
            for it in items:
                yield from statements(it.items) if isinstance(it, A.WithDecl) else [it]

        for item in statements(parse(text, str(path)).items):
            inner = item.decl if isinstance(item, A.Override) else item
            line = lines[inner.span.line - 1][inner.span.column - 1:]
            head = re.match(r"[a-z]+", line).group(0)
            if isinstance(inner, SHARED_STATEMENTS):
                assert not any(head in f.heads for f in Family.REGISTRY.values()), (path, head)
                continue
            fam = Family.of_statement(inner)
            assert head in fam.heads, (path, head, fam.name)
            seen[fam.name].add(head)
    assert Family.named("cards").heads & Family.named("tiles").heads == {"score", "end"}  # both start statements
    assert {f: set(Family.named(f).heads) - seen[f] for f in seen} == {f: set() for f in seen}  # none stale
    assert Family.of_text((root / "rules/card.tess").read_text(encoding="utf-8")) is Family.named("cards")
    assert Family.of_text((root / "rules/tower.tess").read_text(encoding="utf-8")) is Family.named("tiles")

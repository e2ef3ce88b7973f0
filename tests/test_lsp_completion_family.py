"""Completion that knows the family and the file (issue 39, item 7): after `extends` the file's own
module is never offered, nor a module of the other family; a tile rule set is offered no card-game
statement (`card`, `deal`, ...) and the card game no tile statement."""
from __future__ import annotations

from lsprotocol import types as T

from tessera.lsp.analysis import Analysis
from tessera.lsp.complete import complete


def _labels(path, text: str, pos: T.Position) -> list[str]:
    path.write_text(text, encoding="utf-8")
    return [i.label for i in complete(Analysis(text, str(path)), text, pos)]


def test_after_extends_not_the_files_own_module(tmp_path):
    (tmp_path / "other.tess").write_text('module other "Another house rule"\nextends base\n', encoding="utf-8")
    labels = _labels(tmp_path / "house.tess", 'module house "Mine"\nextends \n', T.Position(1, 8))
    assert "base" in labels and "other" in labels and "tower" in labels
    assert "house" not in labels  # a module never builds on itself


def test_after_extends_in_a_tile_rule_set_no_card_module(tmp_path):
    text = 'module house "Mine"\nextends base\nrequires \n'
    labels = _labels(tmp_path / "house.tess", text, T.Position(2, 9))
    assert "tower" in labels and "card" not in labels


def test_no_card_statements_in_a_tile_rule_set(tmp_path):
    text = 'module house "Mine"\nextends base\n\n'
    labels = _labels(tmp_path / "house.tess", text, T.Position(2, 0))
    assert {"tile", "feature", "score", "state"} <= set(labels)
    assert not {"card", "cards", "deal", "colour", "feudal"} & set(labels)


def test_no_tile_statements_in_the_card_game(tmp_path):
    text = 'module mycards "Mine"\nextends card\n\n'
    labels = _labels(tmp_path / "mycards.tess", text, T.Position(2, 0))
    assert {"card", "deal"} <= set(labels)
    assert not {"tile", "feature", "edge", "placement"} & set(labels)


def test_a_new_file_is_offered_both_families(tmp_path):
    labels = _labels(tmp_path / "new.tess", 'module fresh "New"\nextends \n', T.Position(1, 8))
    assert "base" in labels and "card" in labels and "fresh" not in labels


def test_a_file_that_does_not_parse_is_known_by_its_familys_own_words(tmp_path):
    # no `extends`, and a half-written line: the card game's `feudal` (dsl/family.py `heads`) says which
    text = 'module mine "Mine"\nfeudal big_feudal 1 per player\ntake city to\n\n'
    labels = _labels(tmp_path / "mine.tess", text, T.Position(3, 0))
    assert not {"tile", "feature", "state", "owners", "invariant"} & set(labels)
    text = 'module mine "Mine"\nstate s = 0\nowners\n\n'  # and the tile game's `state`
    labels = _labels(tmp_path / "mine.tess", text, T.Position(3, 0))
    assert not {"card", "deal", "feudal"} & set(labels)

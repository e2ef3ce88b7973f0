"""CARD-COMP-1, 'refuted means a game, everywhere' (issue 35): a failure of the `card-engine` check names
a tessera-cards/1 record of the failed game (the deck as dealt and every move up to the failing one), not
a seed of the check's loop, and that record replays, with the same engine, to the same lost card."""
from __future__ import annotations

import json

import pytest

from tessera.compiler import build
from tessera.replay import tiles as replay_mod
from tessera.dsl.loader import require_rule_set
from tessera.verifier import cards as vc
from tessera.verifier import witness as W

pytestmark = pytest.mark.slow  # the card engine compiled, its check played and a record replayed


def test_a_card_engine_failure_is_a_record_that_replays_to_it(tmp_path, monkeypatch):
    rs = require_rule_set(["card"])
    eng = build.load_engine(rs)
    G = type(eng.new_game(3, 0))
    real = G.apply_action

    def apply_action(self, a):  # an engine with a defect: a claim drops the deck's last card
        real(self, a)
        if a[0] == "claim" and self.deck:
            self.deck.pop()

    monkeypatch.setattr(G, "apply_action", apply_action)
    monkeypatch.setattr(build, "load_engine", lambda rs, *a, **k: eng)
    monkeypatch.setattr(replay_mod, "engine_for", lambda *a, **k: eng)  # the replay runs the same engine
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(vc, "ENGINE_GAMES", 3)
    out = vc.card_engine(rs)
    assert out and "the cards found are not the 140 printed ones, each once [CARD-COMP-1]" in out[0], out
    [path] = tmp_path.glob("card--card-engine--game-*.json")
    assert f"    replay it: tessera replay {path}" in out and not any("does not replay" in ln for ln in out)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "tessera-cards/1" and doc["turns"][-1].get("claim"), doc["turns"][-3:]
    move = int(out[0].split(", move ")[1].split()[0])
    assert len(doc["turns"]) == move  # every move up to the failing one, no further
    printed = sorted(n for n, spec in eng.rules.CARDS for _ in range(spec[3]))
    assert W.card_lost(W._card_replayed(path), printed) is not None  # the replay loses the card too


def test_a_passing_card_engine_check_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(vc, "ENGINE_GAMES", 3)
    assert vc.card_engine(require_rule_set(["card"])) == []
    assert not list(tmp_path.iterdir())

"""BASE-FOLLOW-3, 'refuted means a game, everywhere' (issue 35): a failure of the tile game's
`engine-features` check names a tessera-game/1 record of the failed game (the check's own seed and
random moves, up to the move after which the engine and the rebuild disagreed), not a seed of the
check's loop, and the record replays with the same engine to the same scores."""
from __future__ import annotations

import json

import pytest

from tessera.compiler import build
from tessera.replay import tiles as replay_mod
from tessera.dsl.loader import require_rule_set
from tessera.verifier import engine_check as ec
from tessera.verifier import witness as W

pytestmark = pytest.mark.slow  # the base engine compiled, its check played and a record replayed


def test_an_engine_features_failure_is_a_record_that_replays_to_it(tmp_path, monkeypatch):
    rs = require_rule_set(["base"])
    eng = build.load_engine(rs)
    G = type(eng.new_game(2, 0))
    real = G.apply_action

    def apply_action(self, a):  # an engine with a defect: the second figure put is lost from the supply
        real(self, a)
        if getattr(a, "KIND", None) == "place" and a.figure is not None and sum(map(sum, self.supply.left)) == 12:
            self.supply.left[self.current_player()][0] -= 1

    monkeypatch.setattr(G, "apply_action", apply_action)
    monkeypatch.setattr(build, "load_engine", lambda rs, *a, **k: eng)
    monkeypatch.setattr(replay_mod, "engine_for", lambda *a, **k: eng)  # the replay runs the same engine
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(ec, "ENGINE_GAMES", 2)
    out = ec.engine_features(rs)
    assert out and out[0].startswith("game seed 0, turn ") and "supply + board" in out[0], out
    [path] = tmp_path.glob("base--engine-features--seed-0.json")
    assert any(ln.startswith(f"    replay it: tessera replay {path} (") for ln in out), out
    assert not any("does not replay" in ln for ln in out)
    doc = json.loads(path.read_text(encoding="utf-8"))
    move = int(out[0].split(", turn ")[1].split(":")[0])
    assert doc["format"] == "tessera-game/1" and doc["seed"] == 0 and len(doc["turns"]) == move  # one move a turn in base
    assert sum("place" in t for t in doc["turns"]) >= 2  # the move that lost the figure is in it
    from tessera.replay.records import load_record

    replayed = replay_mod.replay(load_record(path), path.parent).game  # the record's game shows the mismatch
    assert any("supply + board" in p for p in ec.compare(rs, replayed, ec.compile_complete_rules(rs)))


def test_a_passing_engine_features_check_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(ec, "ENGINE_GAMES", 2)
    assert ec.engine_features(require_rule_set(["base"])) == []
    assert not list(tmp_path.iterdir())

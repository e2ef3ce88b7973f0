"""The viewer's steps (`tessera.pictures.board.timeline`) are read during one replay of the record; each must
be what replaying that prefix of the record says (`tessera replay` of `turns[:k]` with
`"end": "none"`), which is how the steps were built before -- one replay per prefix -- and how
docs/pictures.md defines a step.  Checked on the hand-worked records of every module (the
rulebooks' clauses, rules/records/ and tests/records/) and on simulated games of the expansions whose steps carry the
most state (captures, ransoms, outposts)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.replay.tiles import replay
from tessera.play.simulate import simulate
from tessera.compiler.runtime import events as E
from tessera.pictures.board import stacked_figures, timeline
from tessera.pictures.steps import moves_of
from tessera.pictures.cards import CannotStart

RECORDS = Path(__file__).parent / "records"  # the tests' own records
SHARED = Path(__file__).resolve().parent.parent / "rules" / "records"  # the rulebooks' worked games


def prefix_steps(record: dict, base: Path | None) -> tuple[list[dict], dict | None]:
    """The oracle: every step from its own replay of the record's first k turns."""
    full = replay(record, base)
    turns = record.get("turns", [])
    last = len(turns) if full.error is None else full.error["turn"]
    out = []
    seen_ev = seen_mv = 0
    stacked = None
    for k in range(min(last, len(turns)) + 1):
        whole = k == len(turns) and full.error is None
        res = full if whole else replay(dict(record, turns=turns[:k], end="none"), base)
        g = res.game
        if stacked is None:
            from tessera.pictures.board import _rule_set
            stacked = stacked_figures(_rule_set(record, base))
        evs = [e for e in g.events if E.is_shown(e)]
        out.append({"scores": dict(res.answer["scores"]), "events": [E.shown_event(e) for e in evs[seen_ev:]],
                    "features": g.features(), "supply": res.answer.get("supply", {}),
                    "moves": moves_of(g, g.history[seen_mv:], stacked),
                    "prisoners": res.answer.get("prisoners", {}), "outposts": res.answer.get("outposts", {}),
                    "final": whole and record.get("end", "final") == "final"})
        seen_ev, seen_mv = len(evs), len(g.history)
    return out, full.error


def one_replay_steps(record: dict, base: Path | None) -> tuple[list[dict], dict | None]:
    tl = timeline(record, base)
    return [{"scores": s.scores, "events": s.events, "features": s.features, "supply": s.supply, "moves": s.moves,
             "prisoners": s.prisoners, "outposts": s.outposts, "final": s.final} for s in tl.steps], tl.error


def tile_records() -> list[Path]:
    out = []
    for p in sorted(RECORDS.glob("*/*.json")) + sorted(SHARED.glob("*/*.json")):
        if p.name == "expected.json":
            continue
        rec = json.loads(p.read_text())
        if rec.get("format", "tessera-game/1") == "tessera-game/1":
            out.append(p)
    return out


def _marked(paths: list[Path]) -> list:
    """One record per module folder in the fast subset (`-m "not slow"`); the others are slow.
    (The records are listed once: reading them all again for each one cost 8 s of every collection.)"""
    first: dict[str, Path] = {}
    for q in paths:
        first.setdefault(q.parent.name, q)
    return [p if first[p.parent.name] == p else pytest.param(p, marks=pytest.mark.slow) for p in paths]


@pytest.mark.parametrize("path", _marked(tile_records()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_step_of_a_rulebook_record_is_what_its_prefix_replays_to(path):
    record = json.loads(path.read_text())
    full = replay(record, path.parent)
    if full.game is None:  # a record no game starts from (BASE-COMP-2's players_*_refused): no step, replay's refusal
        with pytest.raises(CannotStart) as no_game:
            timeline(record, path.parent)
        assert no_game.value.error == full.error and full.error["turn"] is None
        return
    want, want_error = prefix_steps(record, path.parent)
    got, got_error = one_replay_steps(record, path.parent)
    assert got_error == want_error
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert a == b, f"step {k} of {path.name}"


@pytest.mark.slow
@pytest.mark.parametrize("rules", [["base"], ["base", "tower"], ["base", "siege"], ["base", "barn", "abbot"]])
def test_each_step_of_a_simulated_game_is_what_its_prefix_replays_to(tmp_path, rules):
    from tessera.replay.tiles import engine_for

    eng = engine_for(rules, [])
    simulate(eng, 1, 2, 5, rules, record_dir=tmp_path, agents=["random", "greedy"])
    (path,) = sorted(tmp_path.glob("*.json"))
    record = json.loads(path.read_text())
    assert len(record["turns"]) > 60  # a whole game
    want, want_error = prefix_steps(record, path.parent)
    got, got_error = one_replay_steps(record, path.parent)
    assert got_error == want_error is None
    assert got == want
    # the steps carry the expansions' state: something happened beyond scoring in these games
    kinds = {e["kind"] for s in got for e in s["events"]}
    assert "score" in kinds

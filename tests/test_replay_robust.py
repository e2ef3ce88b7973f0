"""Malformed game records give a clear error (exit 2) or an illegal-turn answer (exit 1), never a traceback."""
from __future__ import annotations

import pytest

import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings, strategies as st

from hypothesis import example

from tessera.replay.tiles import RecordError, RuleLoadError, replay

JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4),
              st.sampled_from(["E", "D", "river.source", "follower", "abbot", "N", "C", "Es"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(
        st.sampled_from(["tile", "at", "rotation", "place", "figure", "on", "discard", "recall", "corner"]),
        inner, max_size=4)),
    max_leaves=8)

TURN = st.one_of(
    JUNK,
    st.fixed_dictionaries({"tile": st.sampled_from(["E", "D", "U", "X", "GA", "nope"]),
                           "at": st.one_of(st.lists(st.integers(-2, 2), min_size=2, max_size=2), JUNK),
                           "rotation": st.one_of(st.sampled_from([0, 90, 180, 270, 45]), JUNK)},
                          optional={"place": st.one_of(JUNK, st.fixed_dictionaries(
                              {"figure": st.sampled_from(["follower", "abbot", "x"]),
                               "on": st.sampled_from(["N", "E", "S", "W", "C", "Nw", "Es", "zz"])})),
                                    "discard": JUNK, "recall": JUNK}),
)

RECORD = st.fixed_dictionaries(
    {"players": st.one_of(st.just(["red", "blue"]), JUNK)},
    optional={"format": st.one_of(st.just("tessera-game/1"), JUNK),
              "rules": st.one_of(st.just(["base"]), st.just(["base", "abbot"]), JUNK),
              "turns": st.one_of(st.lists(TURN, max_size=5), JUNK),
              "end": st.one_of(st.sampled_from(["final", "none"]), JUNK),
              "start": JUNK})


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORD)
@example({"players": ["a", "b"], "rules": ["E"]})
@example({"players": ["a", "b"], "rules": []})
@example({"players": ["solo"], "rules": ["base"]})
def test_replay_never_crashes(record):
    try:
        res = replay(record)
    except RecordError as exc:
        assert str(exc)
        return
    except RuleLoadError as exc:  # rules that do not load: reported as diagnostics
        assert exc.diagnostics
        return
    if res.error is not None and res.error["turn"] is None:  # no game starts: a player count the rules are not for
        assert res.error["message"].startswith("players: these rules are for 2 to 5 players, not ")
        assert res.error["clause"] == "BASE-COMP-2" and res.game is None
    elif res.error is not None:
        assert res.error["message"].startswith(f"turn {res.error['turn']}:")
        assert isinstance(res.error["clause"], str)
    else:
        assert set(res.answer) == {"scores", "events", "supply", "winners"}


@pytest.mark.slow
def test_cli_on_a_malformed_record_exits_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"players": "red", "turns": 3}))
    res = subprocess.run([sys.executable, "-m", "tessera", "replay", str(bad), "--json"], capture_output=True, text=True)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr + res.stdout
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    res = subprocess.run([sys.executable, "-m", "tessera", "replay", str(broken)], capture_output=True, text=True)
    assert res.returncode == 2 and "not valid JSON" in res.stderr
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"players": ["a", "b"], "rules": ["basee"], "turns": []}))
    res = subprocess.run([sys.executable, "-m", "tessera", "replay", str(unknown)], capture_output=True, text=True)
    assert res.returncode == 2 and "did you mean `base`" in res.stderr + res.stdout

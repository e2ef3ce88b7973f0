"""Property-based fuzzing of untrusted input (issues 17, 28 and 38), sized to run in CI in about a minute.

Hostile rule files go parse -> check -> fmt -> compile -> import -> a whole game; hostile records
go through `tessera replay --json`.  The rule files include arithmetic on states (products,
powers through repeated rules) and long games; the records, long and deeply nested ones.
Whatever the input: no internal error, no hang (an alarm per input), no more than 1 GiB more
memory (an address-space cap per input), and nothing touched outside the input's own folder;
a state that grows past the bound stops the game at its rule's line.  `bench/fuzz_campaign.py`
runs the same pipelines for hours.  The card game's rule files (house rules of `card`: player
ranges, deals, counts, scores, tables, ends) and `tessera-cards/1` records (hostile names, decks,
turns; replayed, viewed and drawn) go through the same pipelines (issue 38).  Seeded: every run
tries the same inputs (`derandomize`).
"""
from __future__ import annotations

import pytest

from pathlib import Path

from hypothesis import HealthCheck, given, settings

from fuzz_untrusted import (CARD_RULE_FILES, REPO, RULE_FILES, card_records, memory_cap, picture_pipeline,
                            record_pipeline, records, rule_file_pipeline, snapshot, time_limit)

CI = settings(max_examples=50, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                     HealthCheck.data_too_large, HealthCheck.filter_too_much])


@pytest.mark.slow
@CI
@given(RULE_FILES)
def test_hostile_rule_files_go_through_every_stage(tmp_path_factory, text: str) -> None:
    work = tmp_path_factory.mktemp("rules")
    outside = snapshot(REPO / "rules", REPO / "compiler", REPO / "dsl")
    with time_limit(60), memory_cap():
        rule_file_pipeline(text, work)
    assert snapshot(REPO / "rules", REPO / "compiler", REPO / "dsl") == outside
    assert {p.name for p in work.iterdir()} <= {"fz.tess", "out"}
    if (work / "out").exists():  # one engine package, no temp folders left
        assert all(not p.name.startswith(".") for p in (work / "out").iterdir())


@pytest.mark.slow
@CI
@given(records())
def test_hostile_records_get_an_answer(tmp_path_factory, text: str) -> None:
    work = tmp_path_factory.mktemp("records")
    outside = snapshot(REPO / "rules")
    with time_limit(60), memory_cap():
        record_pipeline(text, work)
    assert snapshot(REPO / "rules") == outside
    assert [p.name for p in work.iterdir()] == ["game.json"]


CARDS = settings(CI, max_examples=30)


@pytest.mark.slow
@CARDS
@given(CARD_RULE_FILES)
def test_hostile_card_rule_files_go_through_every_stage(tmp_path_factory, text: str) -> None:
    work = tmp_path_factory.mktemp("cardrules")
    outside = snapshot(REPO / "rules", REPO / "compiler", REPO / "dsl")
    with time_limit(60), memory_cap():
        rule_file_pipeline(text, work)
    assert snapshot(REPO / "rules", REPO / "compiler", REPO / "dsl") == outside
    assert {p.name for p in work.iterdir()} <= {"fz.tess", "out"}


@pytest.mark.slow
@CARDS
@given(card_records())
def test_hostile_card_records_get_an_answer_and_a_picture(tmp_path_factory, text: str) -> None:
    work = tmp_path_factory.mktemp("cardrecords")
    outside = snapshot(REPO / "rules")
    with time_limit(60), memory_cap():
        record_pipeline(text, work)
        picture_pipeline(work)
    assert snapshot(REPO / "rules") == outside
    assert {p.name for p in work.iterdir()} <= {"game.json", "out"}

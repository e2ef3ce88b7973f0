"""A flood of alike diagnostics is one diagnostic (issue 38, round 5): any check that walks a range
(the cells a tile covers, player counts, copies) and says the same thing once per value gives one
error at that place, with how many there were and the values that differ, not one per value.
Round 4 did this for the missing deals only (`override players 2..1000000`: 999,995 errors)."""
from __future__ import annotations

from tessera.dsl.ast import Span
from tessera.dsl.diagnostics import SHOWN_ALIKE, Diagnostic, Floods
from tessera.dsl.loader import check_text

# Two Siege fortresses (3x2 cells each, SIEGE-COMP-1, SIEGE-PLACE-1) laid on the same cells of the
# start landscape: one mistake, which was 6 errors, one per covered cell, at the same place.
OVERLAP = ('module h "two fortresses on one spot"\nextends base\nrequires siege\n'
           "override start siege.fortress at 0 0 rotation 0, siege.fortress at 0 0, river.source at -1 1,\n"
           "    river.lake at 6 1\n")


def test_a_tile_laid_over_another_is_one_error_not_one_per_cell(tmp_path):
    diags, _ = check_text(OVERLAP, str(tmp_path / "h.tess"))
    errors = [d for d in diags if d.severity == "error"]
    assert len(errors) == 1, [d.message for d in errors]
    [d] = errors
    assert (d.code, d.span.line, d.span.column) == ("place-overlap", 4, 50)  # the second fortress
    assert d.message.startswith("start tile `siege.fortress` at 0 0 covers [0, 0], where `siege.fortress` already lies")
    assert "(6 alike here, differing only in their numbers: (0, 0); (0, 1); (1, 0); (1, 1); (2, 0); (2, 1))" in d.message


def _d(msg: str, line: int = 3) -> Diagnostic:
    return Diagnostic(Span("h.tess", line, 1, line, 9), msg, "range")


def test_twenty_thousand_alike_cost_a_count_and_give_one_line():
    floods, kept = Floods(), []
    for n in range(6, 20_006):
        d = _d(f"no deal for {n:,} players")
        if floods.admit(d):
            kept.append(d)
    assert len(kept) == SHOWN_ALIKE  # the rest were counted, never kept
    [one] = floods.group(kept + [_d("something else", 4)])[:1]
    assert one.message == "no deal for 6 players (20,000 alike here, differing only in their numbers: 6; 7; 8; 9; 10; 11, ...)"
    assert len(floods.group(kept)) == 1


def test_a_few_alike_stay_as_they_are_and_places_apart_are_apart():
    floods, kept = Floods(), []
    for d in [_d(f"copy {n} is wrong") for n in range(SHOWN_ALIKE)] + [_d("copy 9 is wrong", line) for line in (5, 6, 7, 8)]:
        if floods.admit(d):
            kept.append(d)
    assert floods.group(kept) == kept  # three alike at line 3, and one each at lines 5 to 8: all shown

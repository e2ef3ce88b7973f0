"""The card game's engine check draws on the rule set's one budget (issue 38 item 7, round 5): its
games stop once the budget is spent and the check is inconclusive, never a pass on games it did not
play.  Before, a 2,000-card house rule's engine check ran outside the budget: 54.1 s CPU for the
check's 40 games of 12 rounds (`tessera verify` plays 500), with no bound but the rule file's deal."""
from __future__ import annotations

import pytest

from tessera.dsl.loader import require_rule_set
from tessera.verifier import budget
from tessera.verifier import cards as vc

pytestmark = pytest.mark.slow  # the card engine compiled and its check played (about 1 s CPU each)


@pytest.fixture()
def small_budget(monkeypatch):
    monkeypatch.setattr(vc, "ENGINE_GAMES", 40)  # the module's own count (`tessera verify` in-process may set another)
    before = budget.total()
    yield
    budget.set_total(before)
    budget.finish()


def test_a_spent_budget_stops_the_card_engine_check_as_inconclusive(small_budget):
    rs = require_rule_set(["card"])
    moves = 50
    budget.set_total(moves * vc.card_move_cost(140))
    b = budget.start()
    seen: list = []
    b.on_spend = lambda used, total: seen.append(used)
    out = vc.card_engine(rs)
    assert len(out) == 1 and out[0].startswith(f"inconclusive, not a pass: 0 of {vc.ENGINE_GAMES} games played")
    assert "budget spent" in out[0] and "--budget" in out[0]
    assert b.exhausted and len(seen) == moves  # each move charged (the progress bar is told of each)


def test_within_the_default_budget_the_card_engine_check_passes_and_is_charged(small_budget):
    rs = require_rule_set(["card"])
    budget.set_total(budget.DEFAULT)
    b = budget.start()
    assert vc.card_engine(rs) == []
    # every move of the 40 games charged, the 140 printed cards' cost each, well within the default
    assert b.used % vc.card_move_cost(140) == 0 and 1000 * vc.card_move_cost(140) < b.used < budget.DEFAULT // 5

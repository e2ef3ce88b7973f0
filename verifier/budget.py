"""One budget for the whole of `tessera verify` on a rule set: z3's work, the witness games and the
engine check all draw on it (issue 35 item 8, issue 38 item 7).

The budget is a count of work, never a clock, so the same rules give the same verdicts on an idle
and on a loaded machine:

- z3's work is its own resource count (its "rlimit count"), one unit per unit (a nonlinear query's
  count weighs solver.NONLINEAR_WEIGHT times as much);
- a move of the compiled engine costs `MOVE_UNITS` units (a move of a witness game or of the
  engine check: playing it, listing the next moves and evaluating what the check reads).

`UNITS_PER_SECOND` is the rate at which a run spends units on this project's reference machine
(measured, docs/verifier.md#one-budget-for-the-whole-of-verify), so the default budget
(`DEFAULT`) stands for about `DEFAULT_SECONDS` of CPU per rule set, whatever the rule file
declares; `tessera verify --budget N` raises or lowers it.

Once spent, every check left is *inconclusive: budget spent*, never passed: z3 answers every
query left `unknown` at once, a witness search plays no more games (its check stays *not
proved* / inconclusive), and the engine check stops and fails as inconclusive.

Usage (the one interface every part of verify uses):

    from tessera.verifier.budget import current
    b = current()             # the rule set's budget (run_checks starts a fresh one per rule set)
    if b.exhausted: ...       # nothing left: say "inconclusive: budget spent"
    b.spend(n)                # n units of work done; returns False once the budget is spent
    b.spend_moves(k)          # k engine moves played
    b.left                    # units left (a large number when unlimited)
    b.moves_left              # engine moves still affordable
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

# What a unit costs (measured on the project's 2-core machine, docs/verifier.md): z3 spends about
# UNITS_PER_SECOND of its resource count per CPU second on the verifier's linear queries (a nonlinear
# query is charged solver.NONLINEAR_WEIGHT times its count, which it spends about that much slower);
# the engine with a check's bookkeeping plays about 2,000 moves per CPU second, so a move costs
# MOVE_UNITS.  The default is about 50 s of CPU per rule set, under the ~60 s the issue asks for
# whatever a rule file declares.
UNITS_PER_SECOND = 5_000_000
MOVE_UNITS = 2_500
DEFAULT = 250_000_000

SPENT = "budget spent"


@dataclass
class Budget:
    """A rule set's budget of work units (None: unlimited)."""

    total: int | None = DEFAULT
    used: int = 0
    # called as on_spend(used, total) after each spend (the progress bar); never raises into the check
    on_spend: Callable[[int, int | None], None] | None = field(default=None, repr=False, compare=False)

    @property
    def left(self) -> int:
        if self.total is None:
            return 1 << 62
        return max(0, self.total - self.used)

    @property
    def exhausted(self) -> bool:
        return self.total is not None and self.used >= self.total

    @property
    def moves_left(self) -> int:
        return self.left // MOVE_UNITS

    def spend(self, n: int) -> bool:
        """Count n units of work done; True while some of the budget is left."""
        if n > 0:
            self.used += int(n)
            if self.on_spend is not None:
                try:
                    self.on_spend(self.used, self.total)
                except Exception:  # a progress bar never fails a check
                    pass
        return not self.exhausted

    def spend_moves(self, k: int = 1) -> bool:
        return self.spend(k * MOVE_UNITS)

    def reason(self) -> str:
        """Why a check left is inconclusive, with the option that raises the budget."""
        tot = self.total or 0
        return (f"{SPENT}: the rule set's budget ({tot:,} units: z3's work and "
                f"{MOVE_UNITS:,} per engine move) is used up, and the checks left are inconclusive; raise it "
                f"with `tessera verify --budget {max(tot, 1) * 10}`")


_TOTAL: int | None = DEFAULT  # `tessera verify --budget N` (set_total)
_CURRENT = Budget(None)  # outside a rule set's verification (a check called directly): no bound
_ON_SPEND: Callable[[int, int | None], None] | None = None


def set_total(total: int | None) -> None:
    """The budget every later rule set starts with (None or <= 0: unlimited)."""
    global _TOTAL
    _TOTAL = int(total) if total is not None and total > 0 else None


def total() -> int | None:
    return _TOTAL


def set_progress(fn: Callable[[int, int | None], None] | None) -> None:
    """A function told of every spend of every later rule set's budget (the CLI's progress bar)."""
    global _ON_SPEND
    _ON_SPEND = fn
    _CURRENT.on_spend = fn


def start() -> Budget:
    """A rule set's checks begin: a fresh budget, whole again."""
    global _CURRENT
    _CURRENT = Budget(_TOTAL, on_spend=_ON_SPEND)
    return _CURRENT


def finish() -> None:
    """A rule set's checks are over: later work (a check called directly) is not charged to it."""
    global _CURRENT
    _CURRENT = Budget(None)


def current() -> Budget:
    """The budget of the rule set being verified."""
    return _CURRENT

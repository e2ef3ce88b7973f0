"""The refusal of a move: what is wrong and the rulebook clause it breaks."""
from __future__ import annotations


class IllegalAction(Exception):
    """A move the rules forbid; carries the clause it breaks."""

    def __init__(self, message, clause):
        super().__init__(message)
        self.message = message
        self.clause = clause


def article(word):
    """`word` with its indefinite article, for messages: "an abbot", "a road"."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


class BoundExceeded(ArithmeticError):
    """A rule computed a value beyond the bound every kept or scored value has (dsl/limits.py
    MAX_VALUE): raised inside the generated function, so the game stops at that rule's line."""


class RuleFailure(Exception):
    """A generated rule function raised an exception: where in the rule files it came from."""

    def __init__(self, location, cause, context=""):
        self.location = location  # "rules/x.tess:LINE"
        self.cause = cause
        self.context = context
        super().__init__(self.describe())

    def __reduce__(self):  # travels back from a worker process whole (simulate --jobs)
        return (RuleFailure, (self.location, self.cause, self.context))

    def describe(self):
        what = f"{type(self.cause).__name__}: {self.cause}" if str(self.cause) else type(self.cause).__name__
        return f"{self.location}: error: this rule failed{' ' + self.context if self.context else ''}: {what}"


def rule_location(exc):
    """The rule-file line (`rules/x.tess:LINE`) of the innermost generated function that was
    running when `exc` was raised, read from that module's SOURCE_MAP; None if none was."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        smap = tb.tb_frame.f_globals.get("SOURCE_MAP")
        if isinstance(smap, dict) and smap:
            # the nearest mapped line at or above, inside the same function
            line, first = tb.tb_lineno, tb.tb_frame.f_code.co_firstlineno
            best = max((k for k in smap if first <= k <= line), default=None)
            if best is not None:
                found = smap[best]
        tb = tb.tb_next
    return found


def rule_failure(exc, context=""):
    """`exc` as a RuleFailure if it was raised inside a generated rule function, else None."""
    if isinstance(exc, (IllegalAction, RuleFailure)):
        return None
    loc = rule_location(exc)
    return RuleFailure(loc, exc, context) if loc is not None else None

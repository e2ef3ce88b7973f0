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

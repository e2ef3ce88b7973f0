"""Arithmetic the generated rule expressions call: a rule never divides by zero, a
state kept per player reads 0 for a seat not in the game, and a value beyond the
bound stops the game (`_beyond`, called by the generated code when a value that the
game keeps or scores is out of range)."""
from __future__ import annotations

from .errors import BoundExceeded


def _div(a, b):
    return a // b if b else 0


def _mod(a, b):
    return a % b if b else 0


def _of(values, seat):
    """`NAME of SEAT`: the seat's value of a state kept per player (a tuple), 0 off the table."""
    return values[seat] if 0 <= seat < len(values) else 0


def _set_of(values, seat, value):
    """`set NAME of SEAT = value`: a new tuple (clones share the old one); no seat, no change."""
    if 0 <= seat < len(values):
        return values[:seat] + (value,) + values[seat + 1:]
    return values


def _beyond(value, what, bound):
    """Stop the game: `what` (a state, points) would be `value`, beyond +-`bound`."""
    digits = len(str(abs(value))) if value.bit_length() < 4000 else int(value.bit_length() * 0.30103) + 1
    shown = str(value) if digits <= 15 else f"{'-' if value < 0 else ''}a number of {digits} digits"
    raise BoundExceeded(f"{what} would be {shown}, beyond the bound of {bound:,} either way on any value "
                        f"a rule computes")

"""Arithmetic the generated rule expressions call: a rule never divides by zero, and a
state kept per player reads 0 for a seat not in the game."""
from __future__ import annotations


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

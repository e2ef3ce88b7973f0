"""Arithmetic the generated rule expressions call: a rule never divides by zero."""
from __future__ import annotations


def _div(a, b):
    return a // b if b else 0


def _mod(a, b):
    return a % b if b else 0

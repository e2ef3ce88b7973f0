"""What the two OpenSpiel games share (openspiel.py for the tile games, openspiel_cards.py for
the card game), without registering either: the `rules` parameter's spelling and the
zero-sum returns."""
from __future__ import annotations


def rules_of(spec: str) -> list[str]:
    """`base+river+abbot` -> ["base", "river", "abbot"] (modules or .tess paths)."""
    return [r for r in spec.split("+") if r]


def win_shares(players: int, winners) -> list[float]:
    """The returns of an ended game: the k winners each get (n - k) / k, every other player -1,
    so that they add up to 0."""
    k = len(winners)
    return [float(players - k) / k if p in winners else -1.0 for p in range(players)]

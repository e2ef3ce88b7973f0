"""The card game family's checks (rulebook 001): dsl/cards.py checks a card game's statements
instead of the tile checks."""
from __future__ import annotations

from .. import cards
from . import register


@register("cards", family="cards")
def card_game(b) -> None:
    """Every check of a card game's statements (dsl/cards.py `check`)."""
    cards.check(b)

"""The card game family's checks (rulebook 001): dsl/cards.py checks a card game's statements
instead of the tile checks."""
from __future__ import annotations

from .. import ast as A
from .. import cards
from ..family import SHARED_STATEMENTS
from ..fmt import format_statement
from . import register

# the tile game's pieces that `cards.check` reports once, as a rule set mixing the two games
_PIECES = (A.TileDecl, A.FeatureDecl, A.FigureDecl, A.StartDecl)


@register("cards", family="cards")
def card_game(b) -> None:
    """Every check of a card game's statements (dsl/cards.py `check`)."""
    cards.check(b)


@register("tile statements", family="cards")
def tile_statements(b) -> None:
    """A statement of the tile game in a card game is reported where it stands, never left out in
    silence: the card game's engine has no `owners` or `state`, and its verifier proves no
    `invariant`, so a designer who wrote one would otherwise believe it holds."""
    def statements(items):
        for item in items:
            if isinstance(item, A.WithDecl):  # `with MODULE { ... }`: each statement inside
                yield from statements(item.items)
            else:
                yield item

    for mod in b.rs.modules:
        for item in statements(mod.items):
            inner = item.decl if isinstance(item, A.Override) else item
            if isinstance(inner, A.CARD_STATEMENTS + SHARED_STATEMENTS + _PIECES):
                continue
            words = format_statement(inner).split()[:3]  # the statement's first words, as written
            word = " ".join(words[:next((i for i, w in enumerate(words) if not w.isalpha()), 3)])
            if isinstance(inner, A.InvariantDecl):
                b.err(item.span, f"`invariant {inner.name}` in a card game: the card game's verifier proves no "
                                 f"invariant (`tessera verify` runs its own checks, docs/verifier.md), so this one "
                                 f"would never be proved or refuted", "family")
            else:
                b.err(item.span, f"`{word}` is a statement of the tile game; the card game (rulebook 001) has no "
                                 f"such rule, so it would do nothing here: a rule set is one game", "family")

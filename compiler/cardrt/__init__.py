"""tessera card-game runtime: the kernel every compiled card-game engine leans on (rulebook 001).

Copied verbatim into each compiled card engine as its `runtime` package, with the tile
runtime's `ops` (the arithmetic rule expressions call) and `errors` (IllegalAction,
RuleFailure), which both families share.  Standard library only; every number and
condition lives in the generated `rules.py`.

    game    the Game: set-up, deal, plays and claims, the round's end, scoring, the end
"""
from .errors import IllegalAction, RuleFailure, rule_failure, rule_location
from .game import Game, play_random, random_moves

__all__ = ["Game", "IllegalAction", "RuleFailure", "play_random", "random_moves", "rule_failure", "rule_location"]

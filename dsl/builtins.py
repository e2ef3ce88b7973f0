"""The names an expression may use, their types and where they are defined.

One table serves the checker (types, contexts), the compiler (what Python to
emit) and the z3 verifier (which symbolic variable stands for each), so the
three always agree on what a name means.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    name: str
    type: str  # int | bool
    contexts: frozenset[str]  # feature | game | place
    doc: str
    low: int = 0  # smallest value (for the verifier's domain)
    high: int | None = None  # largest value, None = unbounded


FEATURE = frozenset({"feature"})
EVERYWHERE = frozenset({"feature", "game", "place"})
# `setup`: what is known before the first tile -- a figure count (`figure F (EXPR) per player`).
SETUP = frozenset({"setup"})

QUANTITIES: dict[str, Quantity] = {q.name: q for q in [
    Quantity("tiles", "int", FEATURE, "number of distinct tiles the feature covers", 1),
    Quantity("shields", "int", FEATURE, "number of shields printed on the feature's tiles"),
    Quantity("open", "int", FEATURE, "number of the feature's edges that face an empty cell"),
    Quantity("neighbours", "int", FEATURE, "placed tiles among the 8 cells around a centre feature's tile", 0, 8),
    Quantity("figures", "int", FEATURE, "figures of any player standing on the feature"),
    Quantity("completed_cities", "int", FEATURE, "completed cities that the field borders"),
    Quantity("points", "int", frozenset({"ransom"}), "the score of the player paying a ransom", 0),
    Quantity("own", "int", frozenset({"track"}),
             "figures of the player being scored (or asked to remove one) standing on the outpost, row and pool", 0),
    Quantity("players", "int", EVERYWHERE | SETUP, "number of players in the game", 2, 6),
    Quantity("current", "int", EVERYWHERE, "seat of the player whose turn it is (0 = first)", 0, 5),
]}

# Functions: name -> (argument kinds, result type, contexts, doc)
@dataclass(frozen=True)
class Function:
    name: str
    args: tuple[str, ...]  # "kind": a feature kind name; "figure": a figure name; "mark": a printed mark
    type: str
    contexts: frozenset[str]
    doc: str
    low: int = 0
    high: int | None = None


FUNCTIONS: dict[str, Function] = {f.name: f for f in [
    Function("completed", ("kind",), "int", EVERYWHERE, "completed features of that kind on the whole board"),
    Function("turn", ("kind",), "int", frozenset({"place"}),
             "how the placed tile's feature of that kind turns, seen along its flow: -1 left, 0 straight, 1 right", -1, 1),
    Function("count", ("figure",), "int", FEATURE, "figures of that type standing on the feature (any player)"),
    Function("bordering", ("kind",), "int", FEATURE,
             "features of that kind the field borders (through `->`), each counted once, complete or not"),
    Function("marks", ("mark",), "int", FEATURE, "marks of that name printed on the feature's tiles (`marks NAME N`)"),
    Function("min", ("int", "int"), "int", EVERYWHERE | SETUP, "the smaller of two numbers"),
    Function("max", ("int", "int"), "int", EVERYWHERE | SETUP, "the larger of two numbers"),
]}

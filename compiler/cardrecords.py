"""Card-game records (`tessera-cards/1`, docs/records.md) and their replay (rulebook 001).

The record and the move are one owner's: `move_of(entry)` reads a record's turn as an
engine move, the engine's `record_of(move)` writes one; replay plays the moves and answers
as `tessera replay` does for the tile game (scores, events with their clauses, winners),
with where every card lies.  A record is untrusted input: it is held to CARD_SCHEMA first,
its deck is checked against the cards the rules print, and an illegal move ends the
replay with the clause it breaks.
"""
from __future__ import annotations

from pathlib import Path

from .records import MAX_NAME, MAX_TURNS, RecordError

CARD_FORMAT = "tessera-cards/1"
MAX_DECK = 2_000  # cards a record's deck may name (tessera.dsl.limits.MAX_CARDS)

_NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
_CARD = {"type": "string", "minLength": 1, "maxLength": 2 * MAX_NAME + 8}

CARD_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tessera-cards/1 card-game record",
    "type": "object",
    "required": ["format", "players"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": CARD_FORMAT},
        "rules": {"type": "array", "minItems": 1, "maxItems": 32,
                  "items": {"type": "string", "minLength": 1, "maxLength": 4096}},
        "players": {"type": "array", "minItems": 1, "maxItems": 6, "items": _NAME},
        "seed": {"type": "integer", "minimum": 0},
        "deck": {"type": "array", "maxItems": MAX_DECK, "items": _CARD},
        "turns": {
            "type": "array", "maxItems": MAX_TURNS,
            "items": {
                "type": "object", "minProperties": 1, "additionalProperties": False,
                "properties": {
                    "player": _NAME,
                    "play": _CARD, "row": _NAME, "at": {"type": "integer", "minimum": 0, "maximum": MAX_DECK},
                    "claim": _NAME,
                    "lay": _CARD,
                    "keep": _CARD, "discard": _CARD,
                },
                "oneOf": [{"required": ["play", "row"]}, {"required": ["claim"]}, {"required": ["lay", "row"]},
                          {"required": ["keep"]}, {"required": ["discard"]}],
            },
        },
        "end": {"enum": ["final", "none"]},
    },
}


def move_of(entry: dict, g):
    """The engine move (its typed move) a record's turn names (`g`: the game it is played in)."""
    return _runtime(g, "moves").as_move(_written(entry, g))


def _written(entry: dict, g):
    R = g.R
    if "play" in entry:
        row = g.rows.get(entry["row"])
        if row is not None and "at" in entry and entry["at"] != len(row):
            from_ = f"position {entry['at']} of the {entry['row']} row"
            raise g_illegal(g, f"{entry['play']} at {from_}: a card goes to the end of its row "
                               f"(position {len(row)}), never between cards", R.CLAUSE_TURN)
        return ("play", entry["play"], entry["row"])
    if "claim" in entry:
        return ("claim", entry["claim"])
    if "lay" in entry:
        if g.phase != "layout" or not g.pending or g.pending[0] != entry["lay"]:
            waiting = g.pending[0] if g.phase == "layout" and g.pending else None
            raise g_illegal(g, f"no set-up joker {entry['lay']} waits to be laid"
                               + (f" (the next is {waiting})" if waiting else ""), R.CLAUSE_LAYOUT)
        return ("lay", entry["row"])
    if "keep" in entry:
        return ("keep", entry["keep"])
    return ("discard", entry["discard"])


def _runtime(g, module: str):
    """A module of the runtime the game `g` runs on (each engine has its own copy)."""
    from importlib import import_module

    return import_module(type(g).__module__.rsplit(".", 1)[0] + "." + module)


def g_illegal(g, message, clause):
    return _runtime(g, "errors").IllegalAction(message, clause)


def answer_of(g) -> dict:
    return {"scores": {g.names[p]: g.scores[p] for p in range(g.n)},
            "events": [e for e in g.events if e["kind"] == "score"],
            "rounds": g.round,
            "winners": [g.names[p] for p in g.winners] if g.ended else [],
            "locations": g.locations()}


def replay_cards(record: dict, base: Path | None = None, engine=None):
    """Replay a tessera-cards/1 record (validated by the caller): a ReplayResult.  `engine`: one
    already compiled from the record's rules (the verifier's `records` check)."""
    from .replay import ReplayResult, _resolve_rules, engine_for, raise_rule_failure

    players = record["players"]
    if len(set(players)) != len(players):
        raise RecordError("player names must be distinct")
    rules, search, confine = _resolve_rules(record, base)
    eng = engine if engine is not None else engine_for(rules, search, confine)
    if getattr(eng.rules, "FAMILY", "tiles") != "cards":
        raise RecordError(f"a {CARD_FORMAT} record names the rules of a tile game ({', '.join(rules)}); "
                          f"its format is tessera-game/1")
    R = eng.rules
    try:
        g = eng.runtime.Game(R, len(players), record.get("seed", 0), players, record.get("deck"))
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    except eng.IllegalAction as ill:  # the deck names cards the rules do not print
        return ReplayResult({}, {"turn": None, "message": f"deck: {ill.message}", "clause": ill.clause}, None)
    error = None
    for i, t in enumerate(record.get("turns", [])):
        g.turn = i
        try:
            if g.ended:
                raise g_illegal(g, "the game is over: the deck cannot deal another round or the end condition held",
                                R.CLAUSE_END)
            if "player" in t and t["player"] != g.names[g.current]:
                raise g_illegal(g, f"it is {g.names[g.current]}'s move, not {t['player']}'s", R.CLAUSE_TURN)
            g.apply_action(move_of(t, g))
        except eng.IllegalAction as ill:
            error = {"turn": i, "message": f"turn {i}: {ill.message}", "clause": ill.clause}
            break
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            raise_rule_failure(exc, f"while turn {i} was played")
    if error is None and record.get("end", "final") == "final" and not g.ended:
        try:
            g.finish()
        except Exception as exc:
            raise_rule_failure(exc, "in final scoring")
    return ReplayResult(answer_of(g), error, g)

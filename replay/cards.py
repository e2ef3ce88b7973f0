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

from ..dsl.family import CARDS, Family

from .records import MAX_NAME, MAX_TURNS, RecordError
from ..compiler.runtime import events as E

CARD_FORMAT = CARDS.record_format


def card_record(rules: list[str], g, turns: list[dict], end: str = "final") -> dict:
    """A `tessera-cards/1` document of card game `g`: the one place that writes the format (simulate
    `--record`, the verifier's witnesses): its seats, its seed, the deck as it was dealt, every move."""
    return {"format": CARD_FORMAT, "rules": rules, "players": list(g.names), "seed": g.seed, "deck": list(g.drawn),
            "turns": turns, "end": end}
MAX_DECK = 2_000  # cards a record's deck may name (tessera.dsl.limits.MAX_CARDS)

_NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
_CARD = {"type": "string", "minLength": 1, "maxLength": 2 * MAX_NAME + 8}
_AT = {"type": "integer", "minimum": 0, "maximum": MAX_DECK}

# the keys each kind of turn may hold (its word first); any other key is refused at its path
TURN_KEYS = {
    "play": ("play", "row", "at", "face", "player"),
    "claim": ("claim", "at", "player"),
    "lay": ("lay", "row", "at", "draw", "player"),
    "keep": ("keep", "player"),
    "discard": ("discard", "player"),
    "deal": ("deal", "round", "dealer"),
}
_TURN_PROPS = {
    "player": _NAME,
    "play": _CARD, "row": _NAME, "at": _AT, "face": {"enum": ["up", "down"]},
    "claim": _NAME,
    "lay": _CARD, "draw": {"type": "integer", "minimum": 1, "maximum": MAX_DECK},
    "keep": _CARD, "discard": _CARD,
    "deal": {"type": "object", "minProperties": 1, "maxProperties": 6,
             "propertyNames": _NAME,
             "additionalProperties": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": MAX_DECK},
                                                {"type": "array", "maxItems": MAX_DECK, "items": _CARD}]}},
    "round": {"type": "integer", "minimum": 1, "maximum": MAX_DECK},
    "dealer": _NAME,
}

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
                "properties": _TURN_PROPS,
                "oneOf": [{"required": ["play", "row"]}, {"required": ["claim"]}, {"required": ["lay", "row"]},
                          {"required": ["keep"]}, {"required": ["discard"]}, {"required": ["deal"]}],
                # a key another kind of turn uses is refused at its own path (`turns[3].row`)
                "allOf": [{"if": {"required": [kind]}, "then": {"propertyNames": {"enum": list(keys)}}}
                          for kind, keys in TURN_KEYS.items()],
            },
        },
        "end": {"enum": ["final", "none"]},
    },
}


def key_refused(doc, err) -> tuple[str, str] | None:
    """(path, message) for a key a card record's turn may not hold (the schema's `propertyNames`):
    `turns[3].row` and what that kind of turn holds; None for any other schema error."""
    path = list(err.absolute_path)
    if err.validator != "enum" or "propertyNames" not in err.schema_path or path[:1] != ["turns"]:
        return None
    turn = doc
    for p in path:
        turn = turn[p]
    kind = next((k for k in TURN_KEYS if k in turn), "?")
    keys = ", ".join(f"`{k}`" for k in TURN_KEYS.get(kind, ()))
    return (f"turns[{path[1]}].{err.instance}",
            f"a `{kind}` turn has no key `{err.instance}`: its keys are {keys} (docs/records.md); "
            f"nothing in a record is silently ignored")


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
        if row is not None and "face" in entry and g.phase == "play":
            down = g._face_down_next(entry["row"])
            if (entry["face"] == "down") != down:
                raise g_illegal(g, f"{entry['play']} goes face {'down' if down else 'up'} into the {entry['row']} row, "
                                   f"not face {entry['face']}: " + (
                                       "it is the row's first card this round" if down else
                                       "only the first card of a row each round goes face down"
                                       if R.FACEDOWN == "first" else "these rules lay no card face down"),
                                R.CLAUSE_TURN)
        return ("play", entry["play"], entry["row"])
    if "claim" in entry:
        row = g.rows.get(entry["claim"])
        if row is not None and "at" in entry and entry["at"] != len(row):
            raise g_illegal(g, f"a {R.FEUDAL} at position {entry['at']} of the {entry['claim']} row: it goes to "
                               f"the end of the row (position {len(row)}), never between cards",
                            R.CLAUSE_FEUDAL)
        return ("claim", entry["claim"])
    if "lay" in entry:
        if g.phase != "layout" or not g.pending or g.pending[0] != entry["lay"]:
            waiting = g.pending[0] if g.phase == "layout" and g.pending else None
            raise g_illegal(g, f"no set-up joker {entry['lay']} waits to be laid"
                               + (f" (the dealer has just drawn {waiting}, layout card {g.laid})" if waiting else
                                  " (the layout is over)" if g.phase != "layout" else ""), R.CLAUSE_LAYOUT)
        if "draw" in entry and entry["draw"] != g.laid:
            raise g_illegal(g, f"{entry['lay']} is layout card {g.laid} of {R.LAYOUT} in the order drawn, not card "
                               f"{entry['draw']}: a joker is laid when it is drawn", R.CLAUSE_LAYOUT)
        row = g.rows.get(entry["row"])
        if row is not None and "at" in entry and entry["at"] != len(row):
            raise g_illegal(g, f"{entry['lay']} at position {entry['at']} of the {entry['row']} row: the set-up joker "
                               f"goes to the end of the row as drawn (position {len(row)})", R.CLAUSE_LAYOUT)
        return ("lay", entry["row"])
    kind = "keep" if "keep" in entry else "discard"
    card = entry[kind]
    if g.phase == "keep":  # the decisions do not interact: any open one may come first
        seat = g.names.index(entry["player"]) if entry.get("player") in g.names else None
        if not g.decide_first(seat, card):
            open_ = ", ".join(f"{g.names[s]}: {c}" for s, c in g.pending)
            raise g_illegal(g, f"no decision on {card} is open" + (f" for {entry['player']}" if seat is not None else "")
                               + f" (open: {open_})", R.CLAUSE_MISPLACED)
    return (kind, card)


def check_deal(entry: dict, g, players: list) -> None:
    """A record's `deal` entry: what the deal just gave each player, checked (it makes no move)."""
    R = g.R
    if g.phase != "play" or g.moved:
        raise g_illegal(g, "a `deal` entry comes when a round is dealt, before its first move"
                           + (f" (round {g.round} has had {g.moved} moves)" if g.phase == "play" else
                              f" (now: {'the layout' if g.phase == 'layout' else 'the decisions on misplaced cards'})"),
                        R.CLAUSE_DEAL)
    if "round" in entry and entry["round"] != g.round:
        raise g_illegal(g, f"this is the deal of round {g.round}, not round {entry['round']}", R.CLAUSE_DEAL)
    if "dealer" in entry and entry["dealer"] != g.names[g.dealer]:
        raise g_illegal(g, f"{g.names[g.dealer]} deals round {g.round} (the last to put a {R.FEUDAL} deals next), "
                           f"not {entry['dealer']}", R.CLAUSE_DEAL)
    k = R.DEAL[g.n][0]
    for name, said in entry["deal"].items():
        if name not in g.names:
            raise g_illegal(g, f"deal: {name!r} is not a player (the players are {', '.join(g.names)})", R.CLAUSE_DEAL)
        hand = g.hands[g.names.index(name)]
        if isinstance(said, int):
            if said != k:
                raise g_illegal(g, f"deal: {name} is dealt {k} cards, not {said}: with {g.n} players each "
                                   f"receives {k} cards a round", R.CLAUSE_DEAL)
        elif sorted(said) != sorted(hand):
            if len(said) != k:
                raise g_illegal(g, f"deal: {name} is dealt {k} cards, not {len(said)}: with {g.n} players each "
                                   f"receives {k} cards a round", R.CLAUSE_DEAL)
            raise g_illegal(g, f"deal: the deck gives {name} {', '.join(sorted(hand))}, not "
                               f"{', '.join(sorted(said))}", R.CLAUSE_DEAL)
    missing = [n for n in g.names if n not in entry["deal"]]
    if missing:
        raise g_illegal(g, f"deal: it names every player's hand; {', '.join(missing)} is missing", R.CLAUSE_DEAL)


def _runtime(g, module: str):
    """A module of the runtime the game `g` runs on (each engine has its own copy)."""
    from importlib import import_module

    return import_module(type(g).__module__.rsplit(".", 1)[0] + "." + module)


def g_illegal(g, message, clause):
    return _runtime(g, "errors").IllegalAction(message, clause)


def answer_of(g) -> dict:
    return {"scores": {g.names[p]: g.scores[p] for p in range(g.n)},
            "events": E.answer_events(g.events, E.CARDS),
            "rounds": g.round,
            "winners": [g.names[p] for p in g.winners] if g.ended else [],
            "locations": g.locations()}


def start_game(eng, record: dict):
    """The game a card record starts (its players, seed and deck): (game, None), or (None, error) when
    the record is one no game of these rules starts from (a player count they have no deal for, a deck
    of cards they do not print), the error as replay answers it (a problem found, exit 1, with its
    clause); replay, `view` and `draw` all start here, so they agree."""
    R = eng.rules
    players = record["players"]
    lo, hi = R.PLAYERS
    if not lo <= len(players) <= hi or len(players) not in R.DEAL:
        return None, {"turn": None, "message": f"players: these rules are for {lo} to {hi} players, not "
                      f"{len(players)} ({', '.join(players)})", "clause": R.CLAUSE_PLAYERS}
    try:
        return eng.runtime.Game(R, len(players), record.get("seed", 0), players, record.get("deck")), None
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    except eng.IllegalAction as ill:  # the deck names cards the rules do not print
        return None, {"turn": None, "message": f"deck: {ill.message}", "clause": ill.clause}


def replay_cards(record: dict, base: Path | None = None, engine=None):
    """Replay a tessera-cards/1 record (validated by the caller): a ReplayResult.  `engine`: one
    already compiled from the record's rules (the verifier's `records` check)."""
    from .tiles import ReplayResult, _resolve_rules, engine_for, raise_rule_failure

    players = record["players"]
    if len(set(players)) != len(players):
        raise RecordError("player names must be distinct")
    rules, search, confine = _resolve_rules(record, base)
    eng = engine if engine is not None else engine_for(rules, search, confine)
    if Family.of_rules(eng.rules) is not CARDS:
        raise RecordError(f"a {CARD_FORMAT} record names the rules of a tile game ({', '.join(rules)}); "
                          f"its format is tessera-game/1")
    R = eng.rules
    g, error = start_game(eng, record)
    if g is None:
        return ReplayResult({}, error, None)
    for i, t in enumerate(record.get("turns", [])):
        g.turn = i
        try:
            if g.ended:
                raise g_illegal(g, *g.over())
            if "deal" in t:
                check_deal(t, g, players)
                continue
            move = move_of(t, g)  # (a keep or discard decision: brought forward first, in any order)
            if "player" in t and t["player"] != g.names[g.current]:
                raise g_illegal(g, f"it is {g.names[g.current]}'s move, not {t['player']}'s", R.CLAUSE_TURN)
            g.apply_action(move)
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

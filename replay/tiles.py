"""Replay a `tessera-game/1` record (../shared/spec/conventions.md) with a compiled engine.

Record keys beyond the spec (documented in docs/records.md):
- a turn's `"recall": {"figure": "abbot", "at": [x, y]}` takes back an own figure
  instead of placing one (ABBOT-RECALL-1);
- `"start": {"tile": "D", "at": [0, 0], "rotation": 0}` overrides the start landscape.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..dsl.loader import _inside, is_module_name, load_rule_set
from ..dsl.diagnostics import Diagnostic
from ..dsl.family import CARDS, TILES, Family

from .records import FORMAT, RecordError, load_record, validate  # noqa: F401  (RecordError, load_record: the API)
from .records import printable as _printable
from .turns import play_turn


@dataclass
class ReplayResult:
    answer: dict
    error: dict | None
    game: object


_ENGINES: dict[tuple, object] = {}


def engine_for(rules: list[str], search: list[str], confine: str | None = None):
    from ..compiler.build import load_engine

    from ..dsl.params import current_settings

    # the parameters' values in force (`--set`) are part of the rules the engine was built from
    key = (tuple(rules), tuple(search), confine, tuple(sorted(current_settings().items())))
    if key not in _ENGINES:
        rs, diags, ws = load_rule_set(rules, search=search, confine=confine)
        if rs is None:
            raise RuleLoadError(diags, ws)
        from ..dsl.limits import playable

        if any(d.severity == "error" for d in playable(rs)):
            raise RuleLoadError(diags + playable(rs), ws)
        _ENGINES[key] = load_engine(rs)
    return _ENGINES[key]


class RuleLoadError(Exception):
    def __init__(self, diags: list[Diagnostic], ws):
        super().__init__("the rules do not load")
        self.diagnostics = diags
        self.workspace = ws


def _resolve_rules(record: dict, base: Path | None) -> tuple[list[str], list[str], str | None]:
    """The record's rules as load_rule_set takes them: a bare name is a (bundled) module; a
    rule-file path is relative to the record's folder `base`, never to the working folder, and
    lies in it or below: no absolute path or `..` that leads out of it, and (the third value,
    `confine`) no symlink that does.  Without a folder (`base` None: a record a program built in memory,
    never one read from a file) the paths are the program's own, read as load_rule_set reads them."""
    from .records import printable

    rules = record.get("rules", ["base"])
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) and r for r in rules):
        raise RecordError("`rules` must be a list of module names or rule-file paths")
    out = []
    search = []
    for i, r in enumerate(rules):
        if is_module_name(r):
            out.append(r)
        elif r.endswith(".tess"):
            p = Path(r)
            where = p if base is None or p.is_absolute() else base / p
            if base is not None and not _inside(where, Path(base).resolve()):  # symlinks followed, nothing read
                raise RecordError(f"rules[{i}]: {printable(r, 80)!s} is outside the record's folder; a record names "
                                  f"its rule files relative to itself, in its folder or below (an absolute path or "
                                  f"`..` that leads out of it is refused), or a bundled module by name")
            out.append(str(where))
        else:
            raise RecordError(f"`rules`: {r!r} is neither a module name nor a rule file (a path ending in .tess)")
    if base is not None:
        search.append(str(base))
    return out, search, str(base) if base is not None else None


def replay(record: dict, base: Path | None = None, engine=None, on_turn=None) -> ReplayResult:
    """Replay a record (validated against tessera.replay.records.SCHEMA first); rule files it
    names are found relative to `base`, the record's folder.  `engine`: an engine already
    compiled from the record's rules (the verifier's `records` check replays with the
    engine of the very rule set it verifies).  `on_turn(k, game)`, if given, is called with the
    game as the record's first k turns leave it (before any final scoring): k = 0 before the
    first turn, then after each turn played -- what replaying `turns[:k]` with `"end": "none"`
    would answer, in one replay (the viewer's steps, pictures/board.py's `timeline`)."""
    if not isinstance(record, dict):
        raise RecordError("a game record is a JSON object")
    family = Family.of_record(record)
    if family.replay is not None:  # a family with a replay of its own (the card game's, rulebook 001)
        validate(record, "the record")
        return family.replay(record, base, engine)
    validate(record, "the record")
    fmt = record.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(f"unknown record format {fmt!r} (expected {FORMAT!r})")
    players = record.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise RecordError("`players` must be a non-empty list of names")
    if len(set(players)) != len(players):
        raise RecordError("player names must be distinct")
    turns = record.get("turns", [])
    if not isinstance(turns, list):
        raise RecordError("`turns` must be a list")
    rules, search, confine = _resolve_rules(record, base)
    eng = engine if engine is not None else engine_for(rules, search, confine)
    R = eng.rules
    if Family.of_rules(R) is not TILES:  # the other mix-up is refused by that family's replay
        raise RecordError(f"a {FORMAT} record (a tile game) names the rules of the card game "
                          f"({', '.join(_printable(r) for r in rules)}); a card game's record is {CARDS.record_format}")
    start = None
    if "start" in record:
        st = record["start"]
        try:
            ids = R.TILE_IDS[st["tile"]]
            start = (ids[0], int(st["at"][0]), int(st["at"][1]), int(st.get("rotation", 0)) % 360)
        except (KeyError, TypeError, IndexError, ValueError):
            raise RecordError("`start` must be {\"tile\": NAME, \"at\": [x, y], \"rotation\": R} with a tile of these rules") from None
    lo, hi = R.PLAYERS
    if not lo <= len(players) <= hi:  # a game these rules do not start: a problem found, with the clause (as cards)
        return ReplayResult({}, {"turn": None, "message": f"players: these rules are for {lo} to {hi} players, not "
                                 f"{len(players)} ({', '.join(players)})",
                                 "clause": getattr(R, "CLAUSE_PLAYERS", "") or None}, None)
    try:
        g = eng.new_game(len(players), 0, players, start)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    g.open_decisions = True  # every decision a rule opens is the record's to answer: play_turn passes those it does not name
    error = None
    if on_turn is not None:
        on_turn(0, g)
    for i, t in enumerate(turns):
        g.turn = i
        try:
            play_turn(g, R, t, i)
        except eng.IllegalAction as ill:
            error = {"turn": i, "message": f"turn {i}: {ill.message}", "clause": ill.clause}
            break
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            raise_rule_failure(exc, f"while turn {i} was played")
        if on_turn is not None:
            on_turn(i + 1, g)
        if g.ended:
            if i != len(turns) - 1:
                why, clause = g.end_reason()  # the bag's end, or the last round (`end after N rounds`)
                error = {"turn": i + 1, "message": f"turn {i + 1}: {why}: the game ended after turn {i}", "clause": clause}
            break
    end = record.get("end", "final")
    if end not in ("final", "none"):
        raise RecordError("`end` must be \"final\" or \"none\"")
    if error is None and end == "final" and not g.ended:
        try:
            g.finish()
        except Exception as exc:
            raise_rule_failure(exc, "in final scoring")
    return ReplayResult(answer_of(g), error, g)


def raise_rule_failure(exc: Exception, context: str = ""):
    """Re-raise `exc` as a RuleFailure naming the rule-file line it came from, if it
    was raised inside a generated rule function; else as it is."""
    from ..compiler.runtime.errors import rule_failure

    failure = rule_failure(exc, context)
    if failure is None:
        raise exc
    raise failure from exc


def answer_of(g) -> dict:
    from ..compiler.runtime.events import answer_events  # each event kind declares its form in the answer

    out = {
        "scores": {g.names[p]: g.scores[p] for p in range(g.nplayers)},
        "events": answer_events(g.events),
        "supply": g.supply_by_name(),
        "winners": g.winners(),
    }
    if g.R.CAPTURES:
        out["prisoners"] = g.prisoners_by_name()
    if g.R.TRACKS:
        out["outposts"] = g.outposts_by_name()
    return out



"""Replay a `tessera-game/1` record (../shared/spec/conventions.md) with a compiled engine.

Record keys beyond the spec (documented in docs/records.md):
- a turn's `"recall": {"figure": "abbot", "at": [x, y]}` takes back an own figure
  instead of placing one (ABBOT-RECALL-1);
- `"start": {"tile": "D", "at": [0, 0], "rotation": 0}` overrides the start landscape.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from dsl.loader import is_module_name, load_rule_set
from dsl.diagnostics import Diagnostic

from .records import FORMAT, RecordError, load_record, validate  # noqa: F401  (RecordError, load_record: the API)

CORNERS = ("NW", "NE", "SE", "SW")


@dataclass
class ReplayResult:
    answer: dict
    error: dict | None
    game: object


_ENGINES: dict[tuple, object] = {}


def engine_for(rules: list[str], search: list[str]):
    from .build import load_engine

    key = (tuple(rules), tuple(search))
    if key not in _ENGINES:
        rs, diags, ws = load_rule_set(rules, search=search)
        if rs is None:
            raise RuleLoadError(diags, ws)
        from dsl.limits import playable

        if any(d.severity == "error" for d in playable(rs)):
            raise RuleLoadError(diags + playable(rs), ws)
        _ENGINES[key] = load_engine(rs)
    return _ENGINES[key]


class RuleLoadError(Exception):
    def __init__(self, diags: list[Diagnostic], ws):
        super().__init__("the rules do not load")
        self.diagnostics = diags
        self.workspace = ws


def _resolve_rules(record: dict, base: Path | None) -> tuple[list[str], list[str]]:
    """The record's rules as load_rule_set takes them: a bare name is a (bundled) module; a
    rule-file path is relative to the record's folder `base`, never to the working folder."""
    rules = record.get("rules", ["base"])
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) and r for r in rules):
        raise RecordError("`rules` must be a list of module names or rule-file paths")
    out = []
    search = []
    for r in rules:
        if is_module_name(r):
            out.append(r)
        elif r.endswith(".tess"):
            p = Path(r)
            out.append(str(p if p.is_absolute() or base is None else base / p))
        else:
            raise RecordError(f"`rules`: {r!r} is neither a module name nor a rule file (a path ending in .tess)")
    if base is not None:
        search.append(str(base))
    return out, search


def replay(record: dict, base: Path | None = None) -> ReplayResult:
    """Replay a record (validated against compiler.records.SCHEMA first); rule files it
    names are found relative to `base`, the record's folder."""
    if not isinstance(record, dict):
        raise RecordError("a game record is a JSON object")
    from .cardrecords import CARD_FORMAT, replay_cards

    if record.get("format") == CARD_FORMAT:  # the card game (rulebook 001)
        validate(record, "the record")
        return replay_cards(record, base)
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
    rules, search = _resolve_rules(record, base)
    eng = engine_for(rules, search)
    R = eng.rules
    start = None
    if "start" in record:
        st = record["start"]
        try:
            ids = R.TILE_IDS[st["tile"]]
            start = (ids[0], int(st["at"][0]), int(st["at"][1]), int(st.get("rotation", 0)) % 360)
        except (KeyError, TypeError, IndexError, ValueError):
            raise RecordError("`start` must be {\"tile\": NAME, \"at\": [x, y], \"rotation\": R} with a tile of these rules") from None
    try:
        g = eng.new_game(len(players), 0, players, start)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    error = None
    for i, t in enumerate(turns):
        g.turn = i
        try:
            _apply_turn(g, R, t, i)
        except eng.IllegalAction as ill:
            error = {"turn": i, "message": f"turn {i}: {ill.message}", "clause": ill.clause}
            break
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            raise_rule_failure(exc, f"while turn {i} was played")
        if g.ended:
            if i != len(turns) - 1:
                error = {"turn": i + 1, "message": f"turn {i + 1}: the bag is empty: the game ended after turn {i}", "clause": g.R.CLAUSE_END}
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


def _apply_turn(g, R, t: dict, i: int) -> None:
    if not isinstance(t, dict) or not isinstance(t.get("tile"), str):
        raise RecordError(f"turn {i}: a turn is an object with a `tile` name")
    name = t["tile"]
    _ransoms(g, R, t.get("ransom"), i)  # at any time in one's own turn: before the tile (TOWER-RANSOM-1)
    g.force_tile(name)
    if R.TRACKS:  # the tile's siege symbols, before it is placed (SIEGE-ADVANCE-1, SIEGE-ATTACK-1)
        _siege_draw(g, R, t, i)
    elif "catapult" in t or "remove" in t or "outpost" in t:
        _illegal(g, "these rules have no outposts (`track`)", R.CLAUSE_FOLLOW)
    if t.get("discard"):
        g.apply_action(("discard",))
        return
    try:
        x, y = (int(v) for v in t["at"])
        rot = int(t.get("rotation", 0))
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"turn {i}: `at` must be [x, y] and `rotation` a number") from None
    if rot not in (0, 90, 180, 270):
        _illegal(g, f"tile {name} at [{x},{y}]: rotation {rot} is not 0, 90, 180 or 270", R.CLAUSE_MATCHING)
    place = t.get("place")
    recall = t.get("recall")
    on = place.get("on") if isinstance(place, dict) else None
    if isinstance(place, dict) and place.get("at") not in (None, [x, y]):
        on = None  # the figure goes on another tile: it says nothing of this tile's variant
    g.choose_variant(name, on, rot)
    o = g.orientation(rot)
    why = g.why_not_placed(o, (x, y))  # the tile first, then the figure (BASE-TURN-1)
    if why is not None:
        _illegal(g, *why)
    fig = None
    if place is not None:
        if not isinstance(place, dict) or "figure" not in place or ("on" not in place and "corner" not in place):
            raise RecordError(f"turn {i}: `place` must be {{\"figure\": NAME, \"on\": PLACE}}")
        fname = place["figure"]
        gi = g.figure_index(fname)
        if gi is None:
            _illegal(g, f"tile {name} at [{x},{y}]: these rules have no figure `{fname}`", R.CLAUSE_FOLLOW)
        at = place.get("at")
        if "corner" in place:  # a figure `at corner` (the barn): docs/records.md
            corner = place["corner"]
            if "on" in place or corner not in CORNERS:
                raise RecordError(f"turn {i}: `corner` must be one of {', '.join(CORNERS)} (and no `on` with it)")
            fi = o.corners.get(corner, -1)
            fig = (gi, fi, corner)
        elif at is not None and at != [x, y]:  # on a feature of another placed tile (`anywhere`)
            where = place.get("on")
            if not (isinstance(at, list) and len(at) == 2 and all(type(v) is int for v in at)):
                raise RecordError(f"turn {i}: `place.at` must be [x, y]")
            fig = _anywhere(g, R, name, (x, y), gi, tuple(at), where)
        else:
            where = place.get("on")
            fi = o.feature_at(where, R.FIG_KINDS[gi])
            if fi is None:
                _illegal(g, f"tile {name} at [{x},{y}] rotation {rot}: no feature lies on {where}", R.CLAUSE_FOLLOW)
            fig = (gi, _where_allowed(g, o, where, gi, fi, lambda j: (gi, j) in g.figure_options(o, (x, y))))
    if recall is not None:
        if place is not None:
            rname = recall.get("figure") if isinstance(recall, dict) else None
            rgi = g.figure_index(rname)
            clause = R.RECALL_CLAUSE.get(rgi) or next(iter(R.RECALL_CLAUSE.values()), R.CLAUSE_FOLLOW)
            _illegal(g, f"tile {name}: a turn either places a figure or recalls one, not both", clause)
        if isinstance(recall, list):  # shorthand: "recall": [x, y] takes back the recallable figure there
            recall = {"at": recall}
        try:
            fname = recall.get("figure")
            rx, ry = (int(v) for v in recall["at"])
        except (AttributeError, KeyError, TypeError, ValueError):
            raise RecordError(f"turn {i}: `recall` must be {{\"figure\": NAME, \"at\": [x, y]}}") from None
        if fname is None:
            here = [a for a in g.recall_options() if a[2] == (rx, ry)]
            fname = g.figure_name(here[0][1]) if here else "figure"
        gi = g.figure_index(fname)
        opts = [a for a in g.recall_options() if gi is not None and a[1] == gi and a[2] == (rx, ry)]
        if not opts:
            clause = R.RECALL_CLAUSE.get(gi, R.CLAUSE_FOLLOW) if gi is not None else R.CLAUSE_FOLLOW
            _illegal(g, f"no own {fname} stands on [{rx},{ry}] to recall", clause)
        fig = opts[0]
    cap = t.get("capture")
    g.keep_capture = cap is not None
    post = t.get("outpost")
    if R.TRACKS:
        g.keep_outpost = post is not None
    try:
        g.apply_action(((x, y), rot, fig))
        if R.TRACKS:
            _outpost(g, R, post, i)
    finally:
        g.keep_capture = False
        if R.TRACKS:
            g.keep_outpost = False
    if g.pending is not None:  # the floor just built allows a capture: the record's, or none
        g.apply_action(_capture_action(g, R, cap, i) if cap is not None else ("pass",))
    elif cap is not None:
        clause = next(iter(R.CAPTURES.values()), ((), None, (R.CLAUSE_FOLLOW,)))[2][0]
        _illegal(g, "nothing may be captured: this turn put no figure that allows a capture, or nothing is in range",
                 clause)


def _siege_draw(g, R, t: dict, i: int) -> None:
    """Play the drawn tile's siege symbols: a named symbol's catapult goes where it says (a record's
    `catapult` may repeat it, but never name another outpost); a "?" takes the record's choice;
    an attack's removals come from the record's `remove`, in turn (docs/records.md)."""
    syms = list(getattr(R.TILES[g.drawn], "symbols", ()))
    draw_clause = next((r[3] for r in R.TRACK_RULES if r[0] == "draw"), R.CLAUSE_FOLLOW)
    chosen = t.get("catapult")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
            raise RecordError(f"turn {i}: `catapult` must be a list of outpost names, one per siege symbol")
        if len(chosen) != len(syms):
            _illegal(g, f"tile {t['tile']} shows {len(syms)} siege symbol{'s' if len(syms) != 1 else ''}, "
                        f"but `catapult` names {len(chosen)} outpost{'s' if len(chosen) != 1 else ''}", draw_clause)
        for s, c in zip(syms, chosen):
            if g.track_index(c) is None:
                raise RecordError(f"turn {i}: `catapult`: no outpost {c!r}")
            if s != "any" and c != s:
                _illegal(g, f"tile {t['tile']} shows the {s} symbol: its catapult goes on the {s} outpost, not on "
                            f"the {c} outpost (only a \"?\" lets the player choose)", draw_clause)
    picks = [c for s, c in zip(syms, chosen or [None] * len(syms)) if s == "any"]
    removals = list(t.get("remove") or [])
    g.last_attack = None
    g.deciding()  # plays the symbols up to the first decision
    while g.sdec is not None and g.sdec[0] in ("catapult", "remove"):
        d = g.sdec
        if d[0] == "catapult":
            pick = picks.pop(0) if picks else None
            if pick is None:
                _illegal(g, f"tile {t['tile']} shows a \"?\": the record must say which outpost its catapult goes "
                            f"on (`catapult`)", d[2])
            g.apply_action(("catapult", g.track_index(pick)))
            continue
        _, p, tr, figs, clause = d
        oname = R.TRACKS[tr][0]
        if not removals:
            _illegal(g, f"the {oname} outpost is attacked: {g.names[p]} has no follower there and must remove one "
                        f"of their figures from the board (`remove`)", clause)
        g.apply_action(_removal(g, R, removals.pop(0), p, tr, clause, i))
    if removals:
        item = removals[0]
        who = item.get("player") if isinstance(item, dict) else None
        last = getattr(g, "last_attack", None)
        if last is not None and who in g.names and last[1][g.names.index(who)] > 0:
            _illegal(g, f"{who} had a follower on the {R.TRACKS[last[0]][0]} outpost, so {who} removes nothing",
                     last[2])
        clause = last[2] if last is not None else next((r[3] for r in R.TRACK_RULES if r[0] == "overflow"), draw_clause)
        _illegal(g, f"no attack asks {who} to remove a figure now", clause)


def _removal(g, R, item, p: int, tr: int, clause: str, i: int):
    """The action for one entry of a record's `remove`: {"player", "figure", "at", "on"}."""
    try:
        who, fname, at, where = item["player"], item["figure"], item["at"], item["on"]
        cx, cy = (int(v) for v in at)
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"turn {i}: `remove` must be a list of {{\"player\": NAME, \"figure\": NAME, "
                          "\"at\": [x, y], \"on\": PLACE}") from None
    if who not in g.names:
        raise RecordError(f"turn {i}: `remove`: no player {who!r}")
    q = g.names.index(who)
    oname = R.TRACKS[tr][0]
    if q != p:
        if g.own(tr, q) > 0:
            _illegal(g, f"{who} has a follower on the {oname} outpost, so {who} removes nothing", clause)
        _illegal(g, f"{g.names[p]} removes first (clockwise from the active player), not {who}", clause)
    gi = g.figure_index(fname)
    tile = g.board.get((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if gi is not None and tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"{who} has no {fname} on {where} at [{cx},{cy}] to remove", clause)
    return ("remove", tr, gi, tile[1] + fi)


def _outpost(g, R, post, i: int) -> None:
    """The record's `outpost` ({"name", "slot"}) after the turn's figure, or a pass."""
    open_ = g.sdec is not None and g.sdec[0] == "outpost"
    if post is None:
        if open_:
            g.apply_action(("pass",))
        return
    try:
        name, slot = post["name"], post["slot"]
    except (KeyError, TypeError):
        raise RecordError(f"turn {i}: `outpost` must be {{\"name\": OUTPOST, \"slot\": \"row\" or \"pool\"}}") from None
    t = g.track_index(name)
    if t is None:
        raise RecordError(f"turn {i}: `outpost`: no outpost {name!r}")
    if not open_:
        first = R.OUTPOST_PUTS[0][4] if R.OUTPOST_PUTS else R.CLAUSE_FOLLOW
        _illegal(g, f"this turn put no figure that lets one go on an outpost", first)
    g.apply_action(("outpost", t, slot))


def _ransoms(g, R, items, i: int) -> None:
    if items is None:
        return
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise RecordError(f"turn {i}: `ransom` must be a list of {{\"figure\": NAME, \"from\": PLAYER}}")
    for item in items:
        try:
            fname, holder = item["figure"], item["from"]
        except (KeyError, TypeError):
            raise RecordError(f"turn {i}: `ransom` must be a list of {{\"figure\": NAME, \"from\": PLAYER}}") from None
        if holder not in g.names:
            raise RecordError(f"turn {i}: `ransom`: no player {holder!r}")
        gi = g.figure_index(fname)
        clause = R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW
        if gi is None:
            _illegal(g, f"these rules have no figure `{fname}`", clause)
        g.apply_action(("ransom", g.names.index(holder), gi))


def _capture_action(g, R, cap, i: int):
    """The action for a record's `capture`: {"figure", "of", "at", "on"[, "back"]}."""
    try:
        fname, victim, at, where = cap["figure"], cap["of"], cap["at"], cap["on"]
        cx, cy = (int(v) for v in at)
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"turn {i}: `capture` must be {{\"figure\": NAME, \"of\": PLAYER, \"at\": [x, y], "
                          "\"on\": PLACE}") from None
    if victim not in g.names:
        raise RecordError(f"turn {i}: `capture`: no player {victim!r}")
    clause = g.pending[5][0]
    gi = g.figure_index(fname)
    if gi is None:
        _illegal(g, f"these rules have no figure `{fname}`", clause)
    tile = g.board.get((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"no {fname} can stand on {where} at [{cx},{cy}]", clause)
    q = g.names.index(victim)
    fi = _where_allowed(g, tile[0], where, gi, fi, lambda j: (q, gi, tile[1] + j) in (g.figs[g.find(tile[1] + j)] or ()))
    back = cap.get("back")
    bgi = None
    if back is not None:
        bgi = g.figure_index(back)
        if bgi is None:
            _illegal(g, f"these rules have no figure `{back}`", R.EXCHANGE_CLAUSE or clause)
    else:  # one kind held: the exchange needs no choice
        q = g.names.index(victim)
        kinds = sorted(set(g.held[q][g.pending[0]])) if R.EXCHANGE and q != g.pending[0] else []
        if len(kinds) == 1:
            bgi = kinds[0]
    return ("capture", g.names.index(victim), gi, tile[1] + fi, bgi)


def _where_allowed(g, o, where, gi, fi, allowed):
    """Two centre features may share C (tower.C: a cloister beside a foundation) and a figure may
    stand on both kinds (a follower: on the cloister, or on top of a tower): `"on": "C"` names
    the one it may stand on now, else the first (whose refusal the replay then reports)."""
    if allowed(fi):
        return fi
    kinds = g.R.FIG_KINDS[gi]
    for j, ps in enumerate(o.places):
        if j != fi and where in ps and o.feats[j].kind in kinds and allowed(j):
            return j
    return fi


def _anywhere(g, R, name, cell, gi, at, where):
    """The action for a figure put on the feature on `where` of the placed tile at `at`."""
    fname = R.FIGURES[gi].name
    tile = g.board.get(at)
    if tile is None:
        _illegal(g, f"tile {name} at [{cell[0]},{cell[1]}]: no tile lies at [{at[0]},{at[1]}] to put {fname} on",
                 R.FIG_CLAUSES[gi][1])
    o, base = tile
    fi = o.feature_at(where, R.FIG_KINDS[gi]) if isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"the tile at [{at[0]},{at[1]}] has no feature on {where}", R.FIG_CLAUSES[gi][1])
    opts = set(g.anywhere_options())
    fi = _where_allowed(g, o, where, gi, fi, lambda j: ("at", gi, g.seg_cell[g.find(base + j)], g.find(base + j)) in opts)
    why = g.anywhere_refusal(gi, at, base + fi)
    if why is not None:
        _illegal(g, *why)
    return ("at", gi, at, base + fi)


def raise_rule_failure(exc: Exception, context: str = ""):
    """Re-raise `exc` as a RuleFailure naming the rule-file line it came from, if it
    was raised inside a generated rule function; else as it is."""
    from .runtime.errors import rule_failure

    failure = rule_failure(exc, context)
    if failure is None:
        raise exc
    raise failure from exc


def _illegal(g, message: str, clause: str):
    """Raise the engine's own IllegalAction (each compiled engine has its runtime)."""
    raise sys.modules[type(g).__module__].IllegalAction(message, clause)


def answer_of(g) -> dict:
    events = []
    for ev in g.events:
        if ev["kind"] == "score":
            events.append({k: ev[k] for k in ("turn", "kind", "feature", "outpost", "when", "tiles", "points", "clause")
                           if k in ev})
        elif ev["kind"] == "award":
            events.append({"turn": ev["turn"], "kind": "score", "feature": ev["award"], "when": "end",
                           "points": ev["points"], "clause": ev["clause"]})
        elif ev["kind"] in ("capture", "exchange", "ransom", "outpost", "catapult", "attack", "counterattack", "remove"):
            events.append(dict(ev))
    out = {
        "scores": {g.names[p]: g.scores[p] for p in range(g.nplayers)},
        "events": events,
        "supply": g.supply_by_name(),
        "winners": g.winners(),
    }
    if g.R.CAPTURES:
        out["prisoners"] = g.prisoners_by_name()
    if g.R.TRACKS:
        out["outposts"] = g.outposts_by_name()
    return out



"""Record turns <-> moves: the one place that knows how a move is written in a game record.

A `tessera-game/1` record (../shared/spec/conventions.md, docs/records.md) holds turns:
`{"tile", "at", "rotation", "place"|"recall"}` or `{"tile", "discard": true}`, with the keys a
turn's other moves add (`capture`, `ransom`, `catapult`, `remove`, `outpost`).  Both directions
live here:

- a move as record keys: `move_record(g, move)` (before the move is applied), and `Recorder`,
  which collects a game's turns move by move (`tessera simulate --record`, the adapters);
- a record turn as moves: `turn_moves(g, R, turn, i)` translates it, each move yielded before
  the engine applies it; `play_turn(g, R, turn, i)` applies them (`tessera replay`, and so the
  viewer and every tool that replays a record).

The action codec (compiler/actions.py) numbers moves and asks this module for the record's place
names.  Moves are the engine's typed moves (runtime/moves.py); an engine compiled to a package
has its own copy of the runtime, so moves are told apart by their `KIND` and built with the
game's own move types (`_moves(g)`).
"""
from __future__ import annotations

import sys

from .records import RecordError

CORNERS = ("NW", "NE", "SE", "SW")


def _moves(g):
    """The move types of g's own runtime (runtime/moves.py, or a compiled package's copy of it)."""
    mod = type(g).__module__  # <package>.runtime.game
    return sys.modules[mod.rsplit(".", 1)[0] + ".moves"]


# ------------------------------------------------------------------ a move as record keys
def capture_record(g, a) -> dict:
    """The record's `capture` key for capture a (docs/records.md)."""
    x, y = g.board.seg_cell[a.segment]
    out = {"figure": g.figure_name(a.figure), "of": g.names[a.owner], "at": [x, y], "on": g.board.seg_place(a.segment)}
    if a.back is not None:
        out["back"] = g.figure_name(a.back)
    return out


def removal_record(g, a) -> dict:
    """One entry of a record's `remove` for removal a, by the player deciding now."""
    x, y = g.board.seg_cell[a.segment]
    return {"player": g.names[g.current_player()], "figure": g.figure_name(a.figure), "at": [x, y],
            "on": g.board.seg_place(a.segment)}


def tile_turn(g, a) -> dict:
    """The record turn of a placement or a discard of the drawn tile, with the drawn copy's
    `variant` where a replay would otherwise deal another copy (docs/records.md, "Garden variants")."""
    t = _tile_keys(g, a)
    tid = g.bag.drawn
    if g.R.TILES[tid].variant is not None and _dealt(g, g.R, t, t["tile"]) != tid:
        t["variant"] = g.R.TILES[tid].variant
    return t


def _tile_keys(g, a) -> dict:
    name = g.tile_name()
    if a.KIND == "discard":
        return {"tile": name, "discard": True}
    cell, rot, fig = a
    t = {"tile": name, "at": [cell[0], cell[1]], "rotation": rot}
    if fig is not None:
        k = fig.KIND
        if k == "recall":
            t["recall"] = {"figure": g.figure_name(fig.figure), "at": [fig.cell[0], fig.cell[1]]}
        elif k == "at":  # on a feature of another placed tile (`anywhere`)
            t["place"] = {"figure": g.figure_name(fig.figure), "on": g.board.seg_place(fig.segment),
                          "at": [fig.cell[0], fig.cell[1]]}
        elif k == "corner":  # a figure on a corner (the barn)
            t["place"] = {"figure": g.figure_name(fig.figure), "corner": fig.corner}
        else:
            t["place"] = {"figure": g.figure_name(fig.figure), "on": g.orientation(rot).places[fig.feature][0]}
    return t


# When in a turn a ransom was paid (a record's `ransom` entry's `when`; docs/records.md): the
# active player's decisions, in the order they come (TOWER-RANSOM-1 «в любой момент своего хода»).
BEFORE_TILE, BEFORE_CAPTURE, AFTER_SCORING = "before tile", "before capture", "after scoring"
RANSOM_MOMENTS = (BEFORE_TILE, BEFORE_CAPTURE, AFTER_SCORING)


def ransom_moment(g) -> str:
    """The decision a ransom would be paid at now."""
    if g.prisoners.closing:
        return AFTER_SCORING
    if g.prisoners.pending is not None:
        return BEFORE_CAPTURE
    return BEFORE_TILE


def move_record(g, a) -> dict:
    """Move a (legal in g, not yet applied) as record keys: a placement or a discard as its whole
    turn; a capture, a ransom, a catapult, a removal or an extra figure as the key it adds to a turn
    ({"capture": ...}, {"ransom": [...]}, ...: docs/records.md says which turn holds it); a pass
    adds nothing ({})."""
    k = a.KIND
    if k == "capture":
        return {"capture": capture_record(g, a)}
    if k == "pass":
        return {}
    if k == "ransom":
        item = {"figure": g.figure_name(a.figure), "from": g.names[a.holder]}
        when = ransom_moment(g)
        if when != BEFORE_TILE:
            item["when"] = when
        return {"ransom": [item]}
    if k == "outpost":
        return {"outpost": {"name": g.R.TRACKS[a.track][0], "slot": a.slot}}
    if k == "catapult":
        return {"catapult": [g.R.TRACKS[a.track][0]]}
    if k == "remove":
        return {"remove": [removal_record(g, a)]}
    return tile_turn(g, a)


class Recorder:
    """A `before(g, move)` that writes a game's record turns into `turns`: a ransom goes into the
    next turn, a capture or an extra figure into the turn that put the figure, a draw's catapult
    choices and removals into the turn that places its tile, a pass nowhere (docs/records.md)."""

    def __init__(self, turns: list):
        self.turns = turns
        self.ransoms: list = []
        self.siege: dict = {}

    def __call__(self, g, a) -> None:
        k = a.KIND
        if k == "catapult":
            syms = [s for s, _ in g.draw_symbols()]  # the symbols whose catapults come
            chosen = self.siege.setdefault("catapult", [s if s != "any" else None for s in syms])
            chosen[chosen.index(None)] = g.R.TRACKS[a.track][0]
        elif k == "remove":
            self.siege.setdefault("remove", []).append(removal_record(g, a))
        elif k in ("outpost", "capture"):
            self.turns[-1].update(move_record(g, a))
        elif k == "ransom":
            item = move_record(g, a)["ransom"]
            if "when" in item[0]:  # within the turn just recorded: before its capture, or after its scoring
                self.turns[-1].setdefault("ransom", []).extend(item)
            else:
                self.ransoms.extend(item)
        elif k != "pass":
            t = tile_turn(g, a)
            if self.ransoms:
                t["ransom"], self.ransoms = self.ransoms, []
            if self.siege:
                t.update(self.siege)
                self.siege = {}
            self.turns.append(t)


# ------------------------------------------------------------------ a record turn as moves
def tile_id(g, R, name: str, on=None, rot: int = 0) -> int:
    """The tile type a record's tile `name` stands for, read from the bag as it is (nothing changes):
    a copy in the deck being drawn (the drawn tile counted back in), one not set aside to be drawn
    last first; where the turn's figure goes `on` a place only another variant of the tile has, that
    variant.  A tile set aside to be drawn last while other tiles of its deck remain is refused here
    (RIVER-SETUP-1's clause); any other tile the bag cannot give now is left for the engine to refuse
    with its clause (the Draw's refusal, runtime/bag.py)."""
    ids = R.TILE_IDS.get(name, ())
    if not ids:
        _illegal(g, f"tile {name}: no such tile in these rules", R.CLAUSE_BAG)
    back = g.bag.drawn
    home = g.deck_of(back) if back is not None else None
    di = next((i for i, d in enumerate(g.bag.decks) if d or d is home), None)
    if di is None:
        return ids[0]
    deck = g.bag.decks[di]
    cands = [t for t in ids if t in deck or (t == back and home is deck)]
    if not cands:
        return ids[0]
    last = R.DECK_LAST[di]
    body = [t for t in cands if t not in last]
    if not body and len(deck) + (home is deck) > sum(1 for t in deck if t in last) + (home is deck and back in last):
        _illegal(g, f"tile {name}: it is drawn last, and other tiles of its deck remain", R.LAST_CLAUSES[di])
    pick = (body or cands)[0]
    if on is None or len(ids) < 2 or any(on in ps for ps in R.ORIENT[pick][rot // 90 % 4].places):
        return pick
    for t in ids:  # a variant of the tile has the place the figure goes on (a garden)
        if t != pick and any(on in ps for ps in R.ORIENT[t][rot // 90 % 4].places) and \
                (t == back or t in g.deck_of(t)):
            return t
    return pick


def _dealt(g, R, t: dict, name: str) -> int:
    """The tile type record turn `t` deals: its tile, the copy its `variant` names, or else the
    variant a figure's place names (a figure on a place of this tile that only one variant has; a
    discard names none)."""
    if "variant" in t:
        v = t["variant"]
        named = [tid for tid in R.TILE_IDS.get(name, ()) if R.TILES[tid].variant == v]
        if not named:
            _illegal(g, f"tile {name}: these rules have no variant `{v}` of it", R.CLAUSE_BAG)
        return named[0]  # a copy the bag cannot give is refused by the Draw, with its clause
    place = t.get("place")
    if t.get("discard") or not isinstance(place, dict) or place.get("at") not in (None, t.get("at")):
        return tile_id(g, R, name)  # no figure on this tile: it says nothing of its variant
    try:
        rot = int(t.get("rotation", 0))
    except (TypeError, ValueError):
        rot = 0  # refused once the tile is dealt, with the turn's other keys
    return tile_id(g, R, name, place.get("on"), rot)


def deal(g, tid: int) -> None:
    """Deal tile type `tid` as the drawn tile: chance's move (Draw), in g's own runtime's types (an
    OpenSpiel chance node, a witness search, a state restored with its drawn tile)."""
    g.apply_action(_moves(g).Draw(tid))


def draw(g, name: str, on=None, rot: int = 0) -> None:
    """Deal tile `name` as the drawn tile, the copy a replay would (`tile_id`): for a test or a tool
    that names the tile to play."""
    deal(g, tile_id(g, g.R, name, on, rot))


def play_turn(g, R, t: dict, i: int) -> None:
    """Play record turn `t` (number i) on game g: its ransoms, its tile's siege symbols, the tile and
    its figure, an outpost, a capture (docs/records.md); IllegalAction (the engine's own) at the first
    move the rules refuse, RecordError for a turn that is not well formed.  The record is translated
    (`turn_moves`), the engine applies each move, the tile the record names too (chance's move,
    `Draw`): nothing here changes the game but `apply_action`."""
    for move in turn_moves(g, R, t, i):
        g.apply_action(move)


def turn_moves(g, R, t: dict, i: int):
    """The moves of record turn `t`, in the order they are played, each yielded before it is applied
    (what the record names next may depend on what the last move opened: a capture decision, an
    attack's removals); every decision the game puts to the player and the record does not mention
    is passed explicitly (a game that replays sets `open_decisions`).  RecordError for a turn that
    is not well formed, the engine's IllegalAction for a move the record names that cannot be."""
    M = _moves(g)
    if not isinstance(t, dict) or not isinstance(t.get("tile"), str):
        raise RecordError(f"turn {i}: a turn is an object with a `tile` name")
    name = t["tile"]
    ransoms = _ransom_items(t.get("ransom"), i)  # at any time in one's own turn (TOWER-RANSOM-1)
    yield from _ransoms(g, R, ransoms[BEFORE_TILE], i)
    yield M.Draw(_dealt(g, R, t, name))  # chance's move: the tile the record names is dealt
    if R.TRACKS:  # the tile's siege symbols, before it is placed (SIEGE-ADVANCE-1, SIEGE-ATTACK-1)
        yield from _siege_draw(g, R, t, i)
    elif "catapult" in t or "remove" in t or "outpost" in t:
        _illegal(g, "these rules have no outposts (`track`)", R.CLAUSE_FOLLOW)
    if t.get("discard"):
        if ransoms[BEFORE_CAPTURE] or ransoms[AFTER_SCORING]:
            _illegal(g, "a discarded tile is neither placed nor scored: a ransom in this turn comes before the tile",
                     R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)
        yield M.Discard()
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
            fig = M.PutCorner(gi, fi, corner)
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
            fig = M.Put(gi, _where_allowed(g, o, where, gi, fi, lambda j: (gi, j) in g.figure_options(o, (x, y))))
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
            here = [a for a in g.recall_options() if a.cell == (rx, ry)]
            fname = g.figure_name(here[0].figure) if here else "figure"
        gi = g.figure_index(fname)
        opts = [a for a in g.recall_options() if gi is not None and a.figure == gi and a.cell == (rx, ry)]
        if not opts:
            clause = R.RECALL_CLAUSE.get(gi, R.CLAUSE_FOLLOW) if gi is not None else R.CLAUSE_FOLLOW
            _illegal(g, f"no own {fname} stands on [{rx},{ry}] to recall", clause)
        fig = opts[0]
    cap = t.get("capture")
    post = t.get("outpost")
    yield M.Place((x, y), rot, fig)
    if R.TRACKS:
        yield from _outpost(g, R, post, i)
    if ransoms[BEFORE_CAPTURE]:
        if g.prisoners.pending is None:
            _illegal(g, "a ransom `before capture`: this turn put no figure that allows a capture",
                     R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)
        yield from _ransoms(g, R, ransoms[BEFORE_CAPTURE], i)
    if g.prisoners.pending is not None:  # the floor just built allows a capture: the record's, or none
        yield _capture_action(g, R, cap, i) if cap is not None else M.Pass()
    elif cap is not None:
        clause = next(iter(R.CAPTURES.values()), ((), None, (R.CLAUSE_FOLLOW,)))[2][0]
        _illegal(g, "nothing may be captured: this turn put no figure that allows a capture, or nothing is in range",
                 clause)
    if g.prisoners.closing:  # the turn is scored: the ransoms paid after it, then the turn passes on
        yield from _ransoms(g, R, ransoms[AFTER_SCORING], i)
        yield M.Pass()
    elif ransoms[AFTER_SCORING]:
        _illegal(g, "these rules have no ransom" if R.RANSOM is None else "the turn is over: no ransom may follow it",
                 R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)


def _siege_draw(g, R, t: dict, i: int) -> None:
    """Play the drawn tile's siege symbols: a named symbol's catapult goes where it says (a record's
    `catapult` may repeat it, but never name another outpost); a "?" takes the record's choice;
    an attack's removals come from the record's `remove`, in turn (docs/records.md)."""
    printed = list(getattr(R.TILES[g.bag.drawn], "symbols", ()))
    # the symbols whose catapults come: all printed ones, or none where an `on draw of KINDS` rule
    # asks for a feature the tile does not show
    syms = [s for s, _ in g.draw_symbols()]
    draw_clause = next((r[3] for r in R.TRACK_RULES if r[0] == "draw"), R.CLAUSE_FOLLOW)
    chosen = t.get("catapult")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
            raise RecordError(f"turn {i}: `catapult` must be a list of outpost names, one per siege symbol")
        if len(chosen) != len(syms) and len(syms) < len(printed):
            _illegal(g, f"tile {t['tile']} shows {len(printed)} siege symbol{'s' if len(printed) != 1 else ''}, "
                        f"but the rules' `on draw` brings {len(syms) or 'no'} catapult{'s' if len(syms) != 1 else ''} "
                        f"for it (it shows none of the kinds the rule asks for), and `catapult` names {len(chosen)} "
                        f"outpost{'s' if len(chosen) != 1 else ''}", draw_clause)
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
    g.outposts.last_attack = None
    g.deciding()  # plays the symbols up to the first decision
    while g.outposts.decision is not None and g.outposts.decision.moment in ("catapult", "remove"):
        d = g.outposts.decision
        if d.moment == "catapult":
            pick = picks.pop(0) if picks else None
            if pick is None:
                _illegal(g, f"tile {t['tile']} shows a \"?\": the record must say which outpost its catapult goes "
                            f"on (`catapult`)", d.clause)
            yield _moves(g).Catapult(g.track_index(pick))
            continue
        p, tr, figs, clause = d.player, d.track, d.figures, d.clause
        oname = R.TRACKS[tr][0]
        if not removals:
            _illegal(g, f"the {oname} outpost is attacked: {g.names[p]} has no follower there and must remove one "
                        f"of their figures from the board (`remove`)", clause)
        yield _removal(g, R, removals.pop(0), p, tr, clause, i)
    if removals:
        item = removals[0]
        who = item.get("player") if isinstance(item, dict) else None
        last = g.outposts.last_attack
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
    tile = g.board.tiles.get((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if gi is not None and tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"{who} has no {fname} on {where} at [{cx},{cy}] to remove", clause)
    return _moves(g).Remove(tr, gi, tile[1] + fi)


def _outpost(g, R, post, i: int) -> None:
    """The record's `outpost` ({"name", "slot"}) after the turn's figure, or a pass."""
    open_ = g.outposts.decision is not None and g.outposts.decision.moment == "outpost"
    if post is None:
        if open_:
            yield _moves(g).Pass()
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
    yield _moves(g).Outpost(t, slot)


def _ransom_items(items, i: int) -> dict:
    """A turn's `ransom` entries by the moment they were paid (`when`, default before the tile)."""
    out = {m: [] for m in RANSOM_MOMENTS}
    if items is None:
        return out
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise RecordError(f"turn {i}: `ransom` must be a list of {{\"figure\": NAME, \"from\": PLAYER}}")
    for item in items:
        when = item.get("when", BEFORE_TILE) if isinstance(item, dict) else BEFORE_TILE
        if when not in out:
            raise RecordError(f"turn {i}: a ransom's `when` is one of {', '.join(map(repr, RANSOM_MOMENTS))}")
        out[when].append(item)
    return out


def _ransoms(g, R, items, i: int) -> None:
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
        yield _moves(g).Ransom(g.names.index(holder), gi)


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
    clause = g.prisoners.pending.clauses[0]
    gi = g.figure_index(fname)
    if gi is None:
        _illegal(g, f"these rules have no figure `{fname}`", clause)
    tile = g.board.tiles.get((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"no {fname} can stand on {where} at [{cx},{cy}]", clause)
    q = g.names.index(victim)
    fi = _where_allowed(g, tile[0], where, gi, fi, lambda j: (q, gi, tile[1] + j) in (g.board.figs[g.board.find(tile[1] + j)] or ()))
    back = cap.get("back")
    bgi = None
    if back is not None:
        bgi = g.figure_index(back)
        if bgi is None:
            _illegal(g, f"these rules have no figure `{back}`", R.EXCHANGE_CLAUSE or clause)
    else:  # one kind held: the exchange needs no choice
        q = g.names.index(victim)
        capturer = g.prisoners.pending.player
        kinds = sorted(set(g.prisoners.held[q][capturer])) if R.EXCHANGE and q != capturer else []
        if len(kinds) == 1:
            bgi = kinds[0]
    return _moves(g).Capture(g.names.index(victim), gi, tile[1] + fi, bgi)


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
    tile = g.board.tiles.get(at)
    if tile is None:
        _illegal(g, f"tile {name} at [{cell[0]},{cell[1]}]: no tile lies at [{at[0]},{at[1]}] to put {fname} on",
                 R.FIG_CLAUSES[gi][1])
    o, base = tile
    fi = o.feature_at(where, R.FIG_KINDS[gi]) if isinstance(where, str) else None
    if fi is None:
        _illegal(g, f"the tile at [{at[0]},{at[1]}] has no feature on {where}", R.FIG_CLAUSES[gi][1])
    opts = set(g.anywhere_options())
    M = _moves(g)
    fi = _where_allowed(g, o, where, gi, fi, lambda j: M.PutAt(gi, g.board.seg_cell[g.board.find(base + j)], g.board.find(base + j)) in opts)
    why = g.anywhere_refusal(gi, at, base + fi)
    if why is not None:
        _illegal(g, *why)
    return M.PutAt(gi, at, base + fi)


def _illegal(g, message: str, clause: str):
    """Raise the engine's own IllegalAction (each compiled engine has its runtime)."""
    raise sys.modules[type(g).__module__].IllegalAction(message, clause)



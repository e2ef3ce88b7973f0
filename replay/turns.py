"""Record turns <-> moves: the one place that knows how a move is written in a game record.

A `tessera-game/1` record (../shared/spec/conventions.md, docs/records.md) holds turns:
`{"tile", "at", "rotation", "place"|"recall"}` or `{"tile", "discard": true}`, with the keys a
turn's other moves add (`capture`, `ransom`, `catapult`, `remove`, `outpost`).  Both directions
live here:

- a move as record keys: `move_record(g, move)` (before the move is applied), and `Recorder`,
  which collects a game's turns move by move (`tessera simulate --record`, the adapters);
- a record turn as moves: `turn_moves(turn, view, i)` translates it, each move yielded before
  the engine applies it; `play_turn(g, R, turn, i)` is `for move in turn_moves(turn, view_of(g),
  i): g.apply_action(move)` (`tessera replay`, and so the viewer and every tool that replays a
  record).  The translation holds no game: it reads a narrow read-only view of it (runtime/view.py's
  `TurnView`), and nothing changes the game but `apply_action`.

The action codec (replay/actions.py) numbers moves and asks this module for the record's place
names.  Moves are the engine's typed moves (runtime/moves.py); an engine compiled to a package
has its own copy of the runtime, so moves are told apart by their `KIND` and built with the
game's own move types (`_moves(g)`, the view's `moves`).
"""
from __future__ import annotations

import importlib
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
    if g.R.TILES[tid].variant is not None and _dealt(view_of(g), t, t["tile"]) != tid:
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
def view_of(g):
    """The read-only view of game g that the translation asks (runtime/view.py's TurnView, in g's own
    runtime: a compiled package has its copy)."""
    pkg = type(g).__module__.rsplit(".", 1)[0]  # <package>.runtime
    return importlib.import_module(pkg + ".view").TurnView(g)


def tile_id(v, name: str, on=None, rot: int = 0) -> int:
    """The tile type a record's tile `name` stands for, read from the bag as it is through view `v`
    (nothing changes): a copy in the deck being drawn (the drawn tile counted back in), one not set
    aside to be drawn last first; where the turn's figure goes `on` a place only another variant of
    the tile has, that variant.  A tile set aside to be drawn last while other tiles of its deck
    remain is refused here (RIVER-SETUP-1's clause); any other tile the bag cannot give now is left
    for the engine to refuse with its clause (the Draw's refusal, runtime/bag.py)."""
    R = v.R
    ids = R.TILE_IDS.get(name, ())
    if not ids:
        _illegal(v, f"tile {name}: no such tile in these rules", R.CLAUSE_BAG)
    back = v.drawn
    decks = v.decks()
    home = v.deck_index(back) if back is not None else None  # the deck the drawn tile goes back to
    di = next((i for i, d in enumerate(decks) if d or i == home), None)
    if di is None:
        return ids[0]
    deck = decks[di]
    at_home = home == di
    cands = [t for t in ids if t in deck or (t == back and at_home)]
    if not cands:
        return ids[0]
    last = R.DECK_LAST[di]
    body = [t for t in cands if t not in last]
    if not body and len(deck) + at_home > sum(1 for t in deck if t in last) + (at_home and back in last):
        _illegal(v, f"tile {name}: it is drawn last, and other tiles of its deck remain", R.LAST_CLAUSES[di])
    pick = (body or cands)[0]
    if on is None or len(ids) < 2 or any(on in ps for ps in R.ORIENT[pick][rot // 90 % 4].places):
        return pick
    for t in ids:  # a variant of the tile has the place the figure goes on (a garden)
        if t != pick and any(on in ps for ps in R.ORIENT[t][rot // 90 % 4].places) and \
                (t == back or t in decks[v.deck_index(t)]):
            return t
    return pick


def _dealt(v, t: dict, name: str) -> int:
    """The tile type record turn `t` deals: its tile, the copy its `variant` names, or else the
    variant a figure's place names (a figure on a place of this tile that only one variant has; a
    discard names none)."""
    R = v.R
    if "variant" in t:
        var = t["variant"]
        named = [tid for tid in R.TILE_IDS.get(name, ()) if R.TILES[tid].variant == var]
        if not named:
            _illegal(v, f"tile {name}: these rules have no variant `{var}` of it", R.CLAUSE_BAG)
        return named[0]  # a copy the bag cannot give is refused by the Draw, with its clause
    place = t.get("place")
    if t.get("discard") or not isinstance(place, dict) or place.get("at") not in (None, t.get("at")):
        return tile_id(v, name)  # no figure on this tile: it says nothing of its variant
    try:
        rot = int(t.get("rotation", 0))
    except (TypeError, ValueError):
        rot = 0  # refused once the tile is dealt, with the turn's other keys
    return tile_id(v, name, place.get("on"), rot)


def deal(g, tid: int) -> None:
    """Deal tile type `tid` as the drawn tile: chance's move (Draw), in g's own runtime's types (an
    OpenSpiel chance node, a witness search, a state restored with its drawn tile)."""
    g.apply_action(_moves(g).Draw(tid))


def draw(g, name: str, on=None, rot: int = 0) -> None:
    """Deal tile `name` as the drawn tile, the copy a replay would (`tile_id`): for a test or a tool
    that names the tile to play."""
    deal(g, tile_id(view_of(g), name, on, rot))


def play_turn(g, R, t: dict, i: int) -> None:
    """Play record turn `t` (number i) on game g: its ransoms, its tile's siege symbols, the tile and
    its figure, an outpost, a capture (docs/records.md); IllegalAction (the engine's own) at the first
    move the rules refuse, RecordError for a turn that is not well formed.  The record is translated
    (`turn_moves`, which reads the game only through its read-only view) and the engine applies each
    move, the tile the record names too (chance's move, `Draw`): nothing changes the game but
    `apply_action`.  (R, the game's rules, is g.R.)"""
    for move in turn_moves(t, view_of(g), i):
        g.apply_action(move)


def turn_moves(t: dict, v, i: int = 0):
    """The moves of record turn `t`, in the order they are played, read against the game's view `v`
    (runtime/view.py: it answers questions, changes nothing), each yielded before the engine applies
    it.  What the record names next may depend on what the last move did, which the view tells
    between moves: the decisions the drawn tile's siege symbols open (a "?"'s catapult, an attack's
    removals: their order, player and outpost), the figures left on the board for the placement's
    figure after those removals, and what the placement opened (a capture, an outpost's extra figure,
    the closing after the turn's scoring).  Every decision the game puts to the player and the record
    does not mention is passed explicitly (a game that replays sets `open_decisions`).  RecordError
    for a turn that is not well formed, the engine's IllegalAction for a move the record names that
    cannot be."""
    M = v.moves
    R = v.R
    if not isinstance(t, dict) or not isinstance(t.get("tile"), str):
        raise RecordError(f"turn {i}: a turn is an object with a `tile` name")
    name = t["tile"]
    ransoms = _ransom_items(t.get("ransom"), i)  # at any time in one's own turn (TOWER-RANSOM-1)
    yield from _ransoms(v, ransoms[BEFORE_TILE], i)
    yield M.Draw(_dealt(v, t, name))  # chance's move: the tile the record names is dealt
    if R.TRACKS:  # the tile's siege symbols, before it is placed (SIEGE-ADVANCE-1, SIEGE-ATTACK-1)
        yield from _siege_draw(v, t, i)
    elif "catapult" in t or "remove" in t or "outpost" in t:
        _illegal(v, "these rules have no outposts (`track`)", R.CLAUSE_FOLLOW)
    if t.get("discard"):
        if ransoms[BEFORE_CAPTURE] or ransoms[AFTER_SCORING]:
            _illegal(v, "a discarded tile is neither placed nor scored: a ransom in this turn comes before the tile",
                     R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)
        yield M.Discard()
        return
    yield _placement(v, t, i)
    if R.TRACKS:
        yield from _outpost(v, t.get("outpost"), i)
    cap = t.get("capture")
    if ransoms[BEFORE_CAPTURE]:
        if v.capture() is None:
            _illegal(v, "a ransom `before capture`: this turn put no figure that allows a capture",
                     R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)
        yield from _ransoms(v, ransoms[BEFORE_CAPTURE], i)
    if v.capture() is not None:  # the floor just built allows a capture: the record's, or none
        yield _capture_action(v, cap, i) if cap is not None else M.Pass()
    elif cap is not None:
        clause = next(iter(R.CAPTURES.values()), ((), None, (R.CLAUSE_FOLLOW,)))[2][0]
        _illegal(v, "nothing may be captured: this turn put no figure that allows a capture, or nothing is in range",
                 clause)
    if v.closing():  # the turn is scored: the ransoms paid after it, then the turn passes on
        yield from _ransoms(v, ransoms[AFTER_SCORING], i)
        yield M.Pass()
    elif ransoms[AFTER_SCORING]:
        _illegal(v, "these rules have no ransom" if R.RANSOM is None else "the turn is over: no ransom may follow it",
                 R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW)


def _placement(v, t: dict, i: int):
    """The Place move of record turn `t`: the drawn tile where it says, with the figure it puts or
    recalls (after the siege symbols' removals: which figures stand where decides what may go)."""
    M = v.moves
    R = v.R
    name = t["tile"]
    try:
        x, y = (int(n) for n in t["at"])
        rot = int(t.get("rotation", 0))
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"turn {i}: `at` must be [x, y] and `rotation` a number") from None
    if rot not in (0, 90, 180, 270):
        _illegal(v, f"tile {name} at [{x},{y}]: rotation {rot} is not 0, 90, 180 or 270", R.CLAUSE_MATCHING)
    place = t.get("place")
    recall = t.get("recall")
    o = v.orientation(rot)
    why = v.why_not_placed(o, (x, y))  # the tile first, then the figure (BASE-TURN-1)
    if why is not None:
        _illegal(v, *why)
    fig = None
    if place is not None:
        if not isinstance(place, dict) or "figure" not in place or ("on" not in place and "corner" not in place):
            raise RecordError(f"turn {i}: `place` must be {{\"figure\": NAME, \"on\": PLACE}}")
        fname = place["figure"]
        gi = v.figure_index(fname)
        if gi is None:
            _illegal(v, f"tile {name} at [{x},{y}]: these rules have no figure `{fname}`", R.CLAUSE_FOLLOW)
        at = place.get("at")
        if "corner" in place:  # a figure `at corner` (the barn): docs/records.md
            corner = place["corner"]
            if "on" in place or corner not in CORNERS:
                raise RecordError(f"turn {i}: `corner` must be one of {', '.join(CORNERS)} (and no `on` with it)")
            fi = o.corners.get(corner, -1)
            fig = M.PutCorner(gi, fi, corner)
        elif at is not None and at != [x, y]:  # on a feature of another placed tile (`anywhere`)
            where = place.get("on")
            if not (isinstance(at, list) and len(at) == 2 and all(type(n) is int for n in at)):
                raise RecordError(f"turn {i}: `place.at` must be [x, y]")
            fig = _anywhere(v, name, (x, y), gi, tuple(at), where)
        else:
            where = place.get("on")
            fi = o.feature_at(where, R.FIG_KINDS[gi])
            if fi is None:
                _illegal(v, f"tile {name} at [{x},{y}] rotation {rot}: no feature lies on {where}", R.CLAUSE_FOLLOW)
            fig = M.Put(gi, _where_allowed(v, o, where, gi, fi, lambda j: (gi, j) in v.figure_options(o, (x, y))))
    if recall is not None:
        if place is not None:
            rname = recall.get("figure") if isinstance(recall, dict) else None
            rgi = v.figure_index(rname)
            clause = R.RECALL_CLAUSE.get(rgi) or next(iter(R.RECALL_CLAUSE.values()), R.CLAUSE_FOLLOW)
            _illegal(v, f"tile {name}: a turn either places a figure or recalls one, not both", clause)
        if isinstance(recall, list):  # shorthand: "recall": [x, y] takes back the recallable figure there
            recall = {"at": recall}
        try:
            fname = recall.get("figure")
            rx, ry = (int(n) for n in recall["at"])
        except (AttributeError, KeyError, TypeError, ValueError):
            raise RecordError(f"turn {i}: `recall` must be {{\"figure\": NAME, \"at\": [x, y]}}") from None
        if fname is None:
            here = [a for a in v.recall_options() if a.cell == (rx, ry)]
            fname = v.figure_name(here[0].figure) if here else "figure"
        gi = v.figure_index(fname)
        opts = [a for a in v.recall_options() if gi is not None and a.figure == gi and a.cell == (rx, ry)]
        if not opts:
            clause = R.RECALL_CLAUSE.get(gi, R.CLAUSE_FOLLOW) if gi is not None else R.CLAUSE_FOLLOW
            _illegal(v, f"no own {fname} stands on [{rx},{ry}] to recall", clause)
        fig = opts[0]
    return M.Place((x, y), rot, fig)


def _siege_draw(v, t: dict, i: int):
    """Play the drawn tile's siege symbols: a named symbol's catapult goes where it says (a record's
    `catapult` may repeat it, but never name another outpost); a "?" takes the record's choice;
    an attack's removals come from the record's `remove`, in turn (docs/records.md)."""
    R = v.R
    printed = list(getattr(R.TILES[v.drawn], "symbols", ()))
    # the symbols whose catapults come: all printed ones, or none where an `on draw of KINDS` rule
    # asks for a feature the tile does not show
    syms = [s for s, _ in v.draw_symbols()]
    draw_clause = next((r[3] for r in R.TRACK_RULES if r[0] == "draw"), R.CLAUSE_FOLLOW)
    chosen = t.get("catapult")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
            raise RecordError(f"turn {i}: `catapult` must be a list of outpost names, one per siege symbol")
        if len(chosen) != len(syms) and len(syms) < len(printed):
            _illegal(v, f"tile {t['tile']} shows {len(printed)} siege symbol{'s' if len(printed) != 1 else ''}, "
                        f"but the rules' `on draw` brings {len(syms) or 'no'} catapult{'s' if len(syms) != 1 else ''} "
                        f"for it (it shows none of the kinds the rule asks for), and `catapult` names {len(chosen)} "
                        f"outpost{'s' if len(chosen) != 1 else ''}", draw_clause)
        if len(chosen) != len(syms):
            _illegal(v, f"tile {t['tile']} shows {len(syms)} siege symbol{'s' if len(syms) != 1 else ''}, "
                        f"but `catapult` names {len(chosen)} outpost{'s' if len(chosen) != 1 else ''}", draw_clause)
        for s, c in zip(syms, chosen):
            if v.track_index(c) is None:
                raise RecordError(f"turn {i}: `catapult`: no outpost {c!r}")
            if s != "any" and c != s:
                _illegal(v, f"tile {t['tile']} shows the {s} symbol: its catapult goes on the {s} outpost, not on "
                            f"the {c} outpost (only a \"?\" lets the player choose)", draw_clause)
    picks = [c for s, c in zip(syms, chosen or [None] * len(syms)) if s == "any"]
    removals = list(t.get("remove") or [])
    d = v.siege_decision()  # the symbols played up to the first decision
    while d is not None and d.moment in ("catapult", "remove"):
        if d.moment == "catapult":
            pick = picks.pop(0) if picks else None
            if pick is None:
                _illegal(v, f"tile {t['tile']} shows a \"?\": the record must say which outpost its catapult goes "
                            f"on (`catapult`)", d.clause)
            yield v.moves.Catapult(v.track_index(pick))
        else:
            p, tr, clause = d.player, d.track, d.clause
            oname = R.TRACKS[tr][0]
            if not removals:
                _illegal(v, f"the {oname} outpost is attacked: {v.names[p]} has no follower there and must remove "
                            f"one of their figures from the board (`remove`)", clause)
            yield _removal(v, removals.pop(0), p, tr, clause, i)
        d = v.outpost_decision()
    if removals:
        item = removals[0]
        who = item.get("player") if isinstance(item, dict) else None
        last = v.last_attack()  # the attack this tile's symbols made, if any
        if last is not None and who in v.names and last[1][v.names.index(who)] > 0:
            _illegal(v, f"{who} had a follower on the {R.TRACKS[last[0]][0]} outpost, so {who} removes nothing",
                     last[2])
        clause = last[2] if last is not None else next((r[3] for r in R.TRACK_RULES if r[0] == "overflow"), draw_clause)
        _illegal(v, f"no attack asks {who} to remove a figure now", clause)


def _figure_entry(v, item, who_key: str, key: str, shape: str, i: int):
    """(player, figure, x, y, place) of a record's figure entry (a `remove` or a `capture`), or a
    RecordError saying the entry's shape, or that no seat has the player's name."""
    try:
        who, fname, at, where = item[who_key], item["figure"], item["at"], item["on"]
        cx, cy = (int(n) for n in at)
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"turn {i}: `{key}` must be {shape}") from None
    if who not in v.names:
        raise RecordError(f"turn {i}: `{key}`: no player {who!r}")
    return who, fname, cx, cy, where


def _removal(v, item, p: int, tr: int, clause: str, i: int):
    """The action for one entry of a record's `remove`: {"player", "figure", "at", "on"}."""
    R = v.R
    who, fname, cx, cy, where = _figure_entry(v, item, "player", "remove", "a list of {\"player\": NAME, "
                                              "\"figure\": NAME, \"at\": [x, y], \"on\": PLACE}", i)
    q = v.names.index(who)
    oname = R.TRACKS[tr][0]
    if q != p:
        if v.own(tr, q) > 0:
            _illegal(v, f"{who} has a follower on the {oname} outpost, so {who} removes nothing", clause)
        _illegal(v, f"{v.names[p]} removes first (clockwise from the active player), not {who}", clause)
    gi = v.figure_index(fname)
    tile = v.tile_at((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if gi is not None and tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(v, f"{who} has no {fname} on {where} at [{cx},{cy}] to remove", clause)
    return v.moves.Remove(tr, gi, tile[1] + fi)


def _outpost(v, post, i: int):
    """The record's `outpost` ({"name", "slot"}) after the turn's figure, or a pass."""
    R = v.R
    d = v.outpost_decision()
    open_ = d is not None and d.moment == "outpost"
    if post is None:
        if open_:
            yield v.moves.Pass()
        return
    try:
        name, slot = post["name"], post["slot"]
    except (KeyError, TypeError):
        raise RecordError(f"turn {i}: `outpost` must be {{\"name\": OUTPOST, \"slot\": \"row\" or \"pool\"}}") from None
    t = v.track_index(name)
    if t is None:
        raise RecordError(f"turn {i}: `outpost`: no outpost {name!r}")
    if not open_:
        first = R.OUTPOST_PUTS[0][4] if R.OUTPOST_PUTS else R.CLAUSE_FOLLOW
        _illegal(v, f"this turn put no figure that lets one go on an outpost", first)
    yield v.moves.Outpost(t, slot)


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


def _ransoms(v, items, i: int):
    R = v.R
    for item in items:
        try:
            fname, holder = item["figure"], item["from"]
        except (KeyError, TypeError):
            raise RecordError(f"turn {i}: `ransom` must be a list of {{\"figure\": NAME, \"from\": PLAYER}}") from None
        if holder not in v.names:
            raise RecordError(f"turn {i}: `ransom`: no player {holder!r}")
        gi = v.figure_index(fname)
        clause = R.RANSOM[3] if R.RANSOM else R.CLAUSE_FOLLOW
        if gi is None:
            _illegal(v, f"these rules have no figure `{fname}`", clause)
        yield v.moves.Ransom(v.names.index(holder), gi)


def _capture_action(v, cap, i: int):
    """The action for a record's `capture`: {"figure", "of", "at", "on"[, "back"]}."""
    R = v.R
    victim, fname, cx, cy, where = _figure_entry(v, cap, "of", "capture", "{\"figure\": NAME, \"of\": PLAYER, "
                                                 "\"at\": [x, y], \"on\": PLACE}", i)
    pending = v.capture()
    clause = pending.clauses[0]
    gi = v.figure_index(fname)
    if gi is None:
        _illegal(v, f"these rules have no figure `{fname}`", clause)
    tile = v.tile_at((cx, cy))
    fi = tile[0].feature_at(where, R.FIG_KINDS[gi]) if tile is not None and isinstance(where, str) else None
    if fi is None:
        _illegal(v, f"no {fname} can stand on {where} at [{cx},{cy}]", clause)
    q = v.names.index(victim)
    fi = _where_allowed(v, tile[0], where, gi, fi, lambda j: (q, gi, tile[1] + j) in v.figures_on(tile[1] + j))
    back = cap.get("back")
    bgi = None
    if back is not None:
        bgi = v.figure_index(back)
        if bgi is None:
            _illegal(v, f"these rules have no figure `{back}`", R.EXCHANGE_CLAUSE or clause)
    else:  # one kind held: the exchange needs no choice
        capturer = pending.player
        kinds = sorted(set(v.held(q, capturer))) if R.EXCHANGE and q != capturer else []
        if len(kinds) == 1:
            bgi = kinds[0]
    return v.moves.Capture(q, gi, tile[1] + fi, bgi)


def _where_allowed(v, o, where, gi, fi, allowed):
    """Two centre features may share C (tower.C: a cloister beside a foundation) and a figure may
    stand on both kinds (a follower: on the cloister, or on top of a tower): `"on": "C"` names
    the one it may stand on now, else the first (whose refusal the replay then reports)."""
    if allowed(fi):
        return fi
    kinds = v.R.FIG_KINDS[gi]
    for j, ps in enumerate(o.places):
        if j != fi and where in ps and o.feats[j].kind in kinds and allowed(j):
            return j
    return fi


def _anywhere(v, name, cell, gi, at, where):
    """The action for a figure put on the feature on `where` of the placed tile at `at`."""
    R = v.R
    fname = R.FIGURES[gi].name
    tile = v.tile_at(at)
    if tile is None:
        _illegal(v, f"tile {name} at [{cell[0]},{cell[1]}]: no tile lies at [{at[0]},{at[1]}] to put {fname} on",
                 R.FIG_CLAUSES[gi][1])
    o, base = tile
    fi = o.feature_at(where, R.FIG_KINDS[gi]) if isinstance(where, str) else None
    if fi is None:
        _illegal(v, f"the tile at [{at[0]},{at[1]}] has no feature on {where}", R.FIG_CLAUSES[gi][1])
    opts = v.anywhere_options()
    M = v.moves

    def allowed(j):
        root, root_cell = v.root(base + j)
        return M.PutAt(gi, root_cell, root) in opts

    fi = _where_allowed(v, o, where, gi, fi, allowed)
    why = v.anywhere_refusal(gi, at, base + fi)
    if why is not None:
        _illegal(v, *why)
    return M.PutAt(gi, at, base + fi)


def _illegal(v, message: str, clause: str):
    """Raise the engine's own IllegalAction (each compiled engine has its runtime; the view names it)."""
    raise v.IllegalAction(message, clause)

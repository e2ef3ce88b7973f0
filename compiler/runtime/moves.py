"""Moves: one type per kind of move, the engine's whole move vocabulary.

`Game.legal_actions` returns these, `Game.apply_action` dispatches on the moment and their type,
and every tool (agents, the action codec, records, replay, simulate, the adapters) reads their
fields by name.  This is the ONLY module that tells moves apart by their shape: `as_move` turns a plain
tuple or list (a move written by hand, or read from JSON) into its type; everywhere else a
move's kind is its type.

Every type says its kind as `KIND` ("place", "discard", "capture", ...; a figure that goes with
a tile: "put", "corner", "recall", "at"): tools that hold an engine compiled to a package of its
own (whose runtime is a copy of this module, so of other classes) dispatch on it.

Each type is a named tuple whose items are those of the move's written form (docs/engine.md,
section 2): `Place((3, 0), 90, Put(0, 1)) == ((3, 0), 90, (0, 1))` and `Discard() ==
("discard",)`, so moves hash and compare as before and JSON writes them as the same lists.  The
kinds with a word first (`"recall"`, `"capture"`, ...) carry that word as their `kind` item; the
constructors take only the other fields.

A turn has moments (`MOMENTS`; `Game.moment()` says which is now): the drawn tile's placement
("turn"), an outpost's decision ("catapult", "remove", "outpost"), the capture a floor allows
("capture"), after the turn's scoring ("closing"); "over" once the game has ended.  Each type
declares what the other layers need of it (`_tagged` says each): `WHEN`, the moments it is offered
at; `OPTIONS` and `APPLY`, the Game methods (or functions here) that list and apply it, one for
all its moments or one per moment (a pass ends the turn after its scoring, but only declines a
capture); `CHECKS`, whether its APPLY refuses an illegal move itself (else the generic path
refuses what its OPTIONS do not list now); `EARLY`, a move that may come before the drawn tile's
siege symbols are played (a ransom); `RULES`, the rules tables that give it; `DOMAINS`, its
fields' domains, from which the action codec numbers it; `STEP`, what a step of the viewer reads of
it (pictures/steps.py: "laid" or "discarded", the drawn tile's placement or its discard; "catapult",
the outpost a drawn "?" sent its catapult to; "outpost", the extra figure's outpost; None, a move
the step tells by the events it makes: a capture, a ransom, a removal, a pass, a draw).  `listed` gives the order the types come
in at a moment (`OFFERED`: per moment, the types offered there); `ORDER` is the codec's order of
blocks.  game.py builds its listing and its dispatch from these, per moment (runtime/moments.py).  A new kind of move,
at any moment: a type here, added to `ORDER` just before `Discard`, and its record turn in
`replay/turns.py` plus the record schema (docs/architecture.md, "The path of a new kind of
move", has worked examples).
"""
from __future__ import annotations

from typing import NamedTuple

from .tagged import tagged


# The moments of a turn (Game.moment says which is now; an outpost decision's name is
# runtime/decisions.py's typed decision, `g.outposts.decision.moment`): the drawn tile's placement; the decisions of the drawn tile's
# siege symbols (before its placement) and of the figure just put on an outpost (after it); the
# capture a floor just built allows; after the turn's scoring, before the turn passes on.  "over":
# the game ended.
TURN, CATAPULT, REMOVE, OUTPOST, CAPTURE, CLOSING, OVER = ("turn", "catapult", "remove", "outpost", "capture",
                                                         "closing", "over")
MOMENTS = (TURN, CATAPULT, REMOVE, OUTPOST, CAPTURE, CLOSING, OVER)


# ------------------------------------------------------------------ what goes with a tile
class Put(NamedTuple):
    """Put figure `figure` on the placed tile's local feature `feature`."""
    figure: int
    feature: int
    KIND = "put"
    CLAUSE = "FIG_CLAUSES"  # the figure's supply / where it may stand / its `when` (figures.figure_refusal)


class PutCorner(NamedTuple):
    """Put a figure declared `at corner` (the barn) on `corner` ("NE", board frame) of the placed
    tile, joining its local feature `feature` there."""
    figure: int
    feature: int
    corner: str
    KIND = "corner"
    CLAUSE = "FIG_CLAUSES"  # and corners.corner_refusal


# a figure with a word first: the move types' builder (runtime/tagged.py), as the moves without a tile
Recall = tagged("recall", ("figure", "cell", "segment"),
                "Instead of a figure: take back an own figure of kind `figure` standing on `segment` at `cell` "
                "(a `recall` rule).", __name__, CLAUSE="RECALL_CLAUSE")
PutAt = tagged("at", ("figure", "cell", "segment"),
               "Put a figure declared `anywhere` (a tower floor, a follower on top) on the placed feature "
               "`segment` of the tile at `cell` (TOWER-TURN-1).", __name__, name="PutAt", CLAUSE="ANYWHERE_AT")


class Place(NamedTuple):
    """Place the drawn tile at `cell`, turned `rotation` degrees clockwise, with `figure`: None, a
    Put, a PutCorner, a Recall or a PutAt."""
    cell: tuple
    rotation: int
    figure: object = None
    KIND = "place"
    CLAUSE = "CLAUSE_MATCHING"  # its edges; also CLAUSE_ADJACENT and the tile's PLACE_CHECKS (placement.why_not_placed)
    APPLY = "_apply_place"  # placement.py's checks, board.py's Board.place, figures.py's put_figure
    OPTIONS = None  # listed by listing.tile_moves, block by block
    RULES = ()  # in every rule set
    DOMAINS = None  # numbered by the action codec's own placement block
    WHEN = (TURN,)  # the tile turn's own move
    CHECKS = True  # its APPLY refuses it (the edges, the tile's checks, the figure) with the clause that does
    EARLY = False
    STEP = "laid"  # a viewer's step says where the tile went and the figure with it (pictures/steps.py)


# ------------------------------------------------------------------ moves without a tile
def _tagged(tag, fields, doc, clause, apply, options=None, rules=(), domains=None, when=(), checks=False,
            early=False, step=None):
    """A named tuple type whose first item is `tag` and whose constructor takes `fields`.

    What the other layers need of the type, declared once here (see the module docstring):
    `when`, the moments (MOMENTS) at which it is offered; `apply`, the Game method (or a function
    here, or "module.function": a function of the game in that runtime module) that applies it, `options`, the one that lists it -- each one name for all its moments
    or a dict {moment: name}; `checks` True when `apply` refuses an illegal move itself, taking
    (game, move, checked: whether legal_actions listed it for this very state), else the generic
    path refuses a move `options` do not list now, citing the rules constant `clause` names, and
    calls `apply(game, move)`; `rules`, the rules tables of which one (non-empty) means the rule
    set has the move (listed, and numbered by the action codec, only there); `domains`, one
    domain per field ("seat", "figure", "track", or a tuple of the values) when the move's number
    is those fields in mixed radix (None: the codec numbers it by a method of its own); `early`
    True for a move that may come before the drawn tile is shown (a ransom, TOWER-RANSOM-1): applying
    it does not first play the tile's siege symbols, since a replay names the tile after it; `step`, what
    a step of the viewer reads of it (the module docstring's STEP; None: told by its events)."""
    return tagged(tag, fields, doc, __name__, CLAUSE=clause, APPLY=apply, OPTIONS=options, RULES=rules,
                  DOMAINS=domains, WHEN=tuple(when), CHECKS=checks, EARLY=early, STEP=step)


def _pass_options(g):
    return [_PASS]


Discard = _tagged("discard", (), "Discard a tile that fits nowhere (offered only then).", "CLAUSE_DISCARD",
                  "_discard", domains=(), when=(TURN,), checks=True, step="discarded")  # listed by game.py after the placements
# declines the open decision: puts no figure on an outpost, captures nothing, or ends the turn after its scoring
Pass = _tagged("pass", (), "Capture nothing, or put no figure on an outpost, or end a scored turn.", "CAPTURES",
               {OUTPOST: "outpost_moves.siege_apply", CAPTURE: "prisoners.no_capture", CLOSING: "_pass_on"}, _pass_options,
               rules=("CAPTURES", "TRACKS", "RANSOM"), domains=(), when=(OUTPOST, CAPTURE, CLOSING), checks=True)
_PASS = Pass()
Capture = _tagged("capture", ("owner", "figure", "segment", "back"),
                  "Capture `owner`'s `figure` on `segment` right after a figure a `capture` rule names; `back`: "
                  "the capturer's figure that comes back in an exchange, else None (TOWER-CAPTURE-1).", "CAPTURES",
                  "prisoners.apply_capture", "prisoners.capture_options", rules=("CAPTURES",), when=(CAPTURE,), checks=True)
Ransom = _tagged("ransom", ("holder", "figure"),
                 "At any moment of one's own turn: buy back an own prisoner `figure` from `holder` (TOWER-RANSOM-1).",
                 "RANSOM", "prisoners.apply_ransom", "prisoners.ransom_options", rules=("RANSOM",), domains=("seat", "figure"),
                 when=(TURN, CAPTURE, CLOSING), checks=True, early=True)
Catapult = _tagged("catapult", ("track",),
                   "The drawn tile's \"?\" puts its catapult on outpost `track` (SIEGE-ADVANCE-1).", "TRACKS",
                   "outpost_moves.siege_apply", "outpost_moves.catapult_options", rules=("TRACKS",), domains=("track",), when=(CATAPULT,),
                   checks=True, step="catapult")
Remove = _tagged("remove", ("track", "figure", "segment"),
                 "An attack on outpost `track`: the deciding player takes their `figure` off `segment` "
                 "(SIEGE-ATTACK-1).", "TRACK_RULES", "outpost_moves.siege_apply", "outpost_moves.remove_options", rules=("TRACKS",),
                 when=(REMOVE,), checks=True)
Outpost = _tagged("outpost", ("track", "slot"),
                  "Right after the turn's figure, one more follower on outpost `track`'s `slot` (\"row\" or "
                  "\"pool\"; SIEGE-OUTPOST-2, -3).", "OUTPOST_PUTS", "outpost_moves.siege_apply", "outpost_moves.outpost_options",
                  rules=("TRACKS",), domains=("track", ("row", "pool")), when=(OUTPOST,), checks=True, step="outpost")

# ------------------------------------------------------------------ chance's move: the tile drawn
# As OpenSpiel deals cards: the drawn tile is an action of the game's history.  The engine's own bag
# (seeded) deals every turn's tile by itself; a Draw names the tile instead -- a replay for each
# record turn (replay/turns.py), a state's reload (runtime/records.py's from_json), OpenSpiel's
# chance node, a witness search.  It is no player's move: legal_actions never lists it and the
# action codec does not number it (its place is no player's choice), so it is not in ORDER.
Draw = _tagged("draw", ("tile",),
               "Chance's move: the drawn tile is tile type `tile`, from the deck being drawn (the tile drawn "
               "before goes back to its deck); refused where the bag cannot give it now.", "CLAUSE_BAG",
               "bag.apply_draw", rules=(), domains=None, when=(TURN,), checks=True, early=True)
CHANCE = (Draw,)

# Every move type that may be played, in the action codec's fixed order: its blocks of numbers
# come in this order (the placements first, the discard last), each only in rule sets that have
# the move (RULES), so a new move -- added just before Discard -- changes no other numbering.
ORDER = (Place, Pass, Capture, Ransom, Outpost, Catapult, Remove, Discard)
# the moves with a word first, by that word
TAGGED = {T.KIND: T for T in ORDER + CHANCE if T is not Place}
# every move type that may be played (apply_action takes these as they are): the players' and chance's
MOVES = frozenset(ORDER + CHANCE)


def listed(order):
    """The order in which a moment lists its moves, for the types `order` holds: the moment's own
    decision first (the placements, then the discard; a capture; an outpost's catapult, removal or
    extra figure), then a ransom, then every other type in `order`'s order, the pass that declines
    last."""
    first = (Place, Discard, Capture, Catapult, Remove, Outpost, Ransom)
    return first + tuple(T for T in order if T not in first and T is not Pass) + (Pass,)


def offered(order):
    """{moment: the types of `order` offered at that moment (their WHEN), in `listed` order}."""
    return {m: tuple(T for T in listed(order) if T in order and m in T.WHEN) for m in MOMENTS}


# per moment, the types offered there, in the order the moment lists them
OFFERED = offered(ORDER)
# what may go with a tile
WITH_TILE = frozenset((Put, PutCorner, Recall, PutAt))
# the moves that do not place the drawn tile, so need no tile drawn: no tile is recorded with them
WITHOUT_TILE = frozenset(T for T in ORDER if T is not Place and T is not Discard)
# the outpost decisions (runtime/outposts.py)
SIEGE = frozenset((Catapult, Remove, Outpost))


def in_rules(T, R) -> bool:
    """Whether rule set R (a rules module) has moves of type T: T.RULES names none, or one of the
    tables it names is there and not empty."""
    return not T.RULES or any(getattr(R, n, None) for n in T.RULES)


class NotAMove(ValueError):
    """A value that is no move of any kind (its shape matches none)."""


def _figure(f):
    """What goes with a tile, from its written form."""
    if f is None or type(f) in WITH_TILE:
        return f
    if not isinstance(f, (tuple, list)) or not f:
        raise NotAMove(f"not a figure: {f!r}")
    if f[0] in ("recall", "at"):
        if len(f) != 4 or not isinstance(f[2], (tuple, list)):
            raise NotAMove(f"a {f[0]!r} figure is ({f[0]!r}, figure, (x, y), segment), not {f!r}")
        cell = tuple(f[2])
        return Recall(f[1], cell, f[3]) if f[0] == "recall" else PutAt(f[1], cell, f[3])
    if len(f) == 2:
        return Put(f[0], f[1])
    if len(f) == 3:
        return PutCorner(f[0], f[1], f[2])
    raise NotAMove(f"a figure is (figure, feature) or (figure, feature, corner), not {f!r}")


def as_move(a):
    """The typed move a plain tuple or list stands for (a move already typed is returned as it is);
    NotAMove if it has the shape of none."""
    t = type(a)
    if t in MOVES:
        return a
    if not isinstance(a, (tuple, list)) or not a:
        raise NotAMove(f"not a move: {a!r}")
    head = a[0]
    if isinstance(head, str):
        cls = TAGGED.get(head)
        if cls is None:
            raise NotAMove(f"no move is called {head!r}")
        if len(a) != len(cls._fields):
            raise NotAMove(f"a {head!r} move has {len(cls._fields) - 1} fields "
                           f"({', '.join(cls._fields[1:]) or 'none'}), not {len(a) - 1}")
        return cls(*a[1:])
    if len(a) != 3 or not isinstance(head, (tuple, list)) or len(head) != 2:
        raise NotAMove(f"a placement is ((x, y), rotation, figure), not {a!r}")
    return Place(tuple(head), a[1], _figure(a[2]))


def written(a):
    """A move as plain tuples (its written form, docs/engine.md section 2): what equals it."""
    if type(a) is Place:
        return (a.cell, a.rotation, None if a.figure is None else tuple(a.figure))
    return tuple(a)

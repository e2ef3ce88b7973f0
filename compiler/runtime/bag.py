"""The bag: decks drawn in order, the drawn tile, chance's move that names it (Draw), the box.

The bag is a component of the game (`g.bag`, a `Bag`, whose class is in runtime/core.py); the rest of the
module is functions of the game (`Game` binds the public ones, docs/engine.md, as its methods).
"""
from __future__ import annotations

from random import Random

from .core import Bag
from .errors import IllegalAction


def init_bag(g, start):
    """Shuffle the decks (`last` tiles go under their deck); a record's own start tile
    comes from the bag and the rules' start tile goes back in: the game's bag (`g.bag`).  Returns the
    start (tid, x, y, rot)."""
    rules = g.R
    g.bag = Bag([list(d) for d in rules.DECKS])
    for d, last in zip(g.bag.decks, rules.DECK_LAST):
        body = [t for t in d if t not in last]
        tail = [t for t in d if t in last]
        shuffle(g.rng, body)
        d[:] = tail + body  # drawn from the end
    if start is not None and rules.START_MORE:
        raise ValueError("these rules lay a start landscape of several tiles (SIEGE-SETUP-1); "
                         "a record's `start` cannot replace it")
    st = start if start is not None else rules.START
    if start is not None and start[0] != (rules.START or (None,))[0]:
        if rules.START is not None:
            d = deck_of(g, rules.START[0])
            d.insert(g.rng.randint(len(d) and 1, len(d)), rules.START[0])
        for d in g.bag.decks:
            if start[0] in d:
                d.remove(start[0])
                break
    return st


def shuffle(rng, x):
    """List x in the order `rng.shuffle(x)` gives it, for a plain random.Random: the same draws of
    rng.getrandbits (Random.shuffle's swaps from the end, each index drawn as Random._randbelow draws
    it: bits enough for i + 1, drawn again while too large), with no Python call per item on the native
    kernel; the bag's shuffle was a twentieth of a compiled base game.  Any other generator shuffles itself."""
    if type(rng) is not Random:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    k = len(x).bit_length()
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        while 1 << (k - 1) > n:  # k: the bit length of n (n only falls)
            k -= 1
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def draw_next(g):
    """The next tile of the bag is drawn (None: the bag is empty)."""
    b = g.bag
    b.drawn = None
    b.advanced = False  # its siege symbols are still to be played (outposts.py)
    for d in b.decks:
        if d:
            b.drawn = d.pop()
            return


def shuffle_bag(g, rng):
    """Reorder the tiles still in the bag with `rng` (a tile set aside to be drawn last stays
    last; the drawn tile is not touched): one of the orders a player who cannot see the bag
    must reckon with.  Search players determinize a clone with it before looking ahead."""
    for d, last in zip(g.bag.decks, g.R.DECK_LAST):
        body = [t for t in d if t not in last]
        shuffle(rng, body)
        d[:] = [t for t in d if t in last] + body  # drawn from the end


def tiles_left(g):
    return sum(len(d) for d in g.bag.decks) + (1 if g.bag.drawn is not None else 0)


def tile_name(g, tid=None):
    """The name of tile type `tid` (default: the drawn tile)."""
    return g.R.TILES[g.bag.drawn if tid is None else tid].name


# ------------------------------------------------------------ chance: the tile drawn
def apply_draw(g, action, checked=False):
    """Chance's move (runtime/moves.py's Draw, as OpenSpiel deals cards): the drawn tile is tile
    type `action.tile`, taken from the deck being drawn, and the tile drawn before goes back to its
    deck.  A tile already drawn changes nothing (and is no new entry of the history).  Refused, with
    the clause that says why, when the bag cannot give that tile now: another deck is being drawn,
    or every copy is used."""
    R = g.R
    tid = action.tile
    if type(tid) is not int or not 0 <= tid < len(R.TILES):
        raise IllegalAction(f"no tile type {tid!r} in these rules", R.CLAUSE_BAG)
    if tid != g.bag.drawn:
        why = draw_refusal(g, tid)
        if why is not None:
            raise IllegalAction(*why)
        if g.bag.drawn is not None:
            deck_of(g, g.bag.drawn).append(g.bag.drawn)
        next(d for d in g.bag.decks if d).remove(tid)  # the deck being drawn (draw_refusal: it holds tid)
        g.bag.drawn = tid
        g.bag.advanced = False  # the tile drawn now plays its own siege symbols (the one put back had none)
        g.history.append((None, action))  # a deal the bag had not made (the same tile again: the same deal)


def draw_refusal(g, tid):
    """None if the bag may give tile type `tid` now (the drawn tile put back first), else (message, clause)."""
    R = g.R
    if tid == g.bag.drawn:
        return None
    name = R.TILES[tid].name
    if g._siege and g.bag.advanced and g.bag.drawn is not None and R.TILES[g.bag.drawn].symbols:
        return ("the drawn tile's siege symbols were already played: name the tile before asking about "
                "the turn", R.CLAUSE_BAG)
    back = g.bag.drawn
    home = deck_of(g, back) if back is not None else None
    di = next((i for i, d in enumerate(g.bag.decks) if d or d is home), None)
    if di is None:
        return (f"tile {name}: the bag is empty", R.CLAUSE_BAG)
    deck = g.bag.decks[di]
    ids = R.TILE_IDS.get(name, ())
    if tid not in deck:
        if any(t in d for d in g.bag.decks for t in ids) or back in ids:
            return (f"tile {name}: not in the deck being drawn now (the {R.DECK_NAMES[di]} deck, "
                    f"{len(deck) + (home is deck)} tiles left)", R.DECK_CLAUSES[di])
        # the last copy went back in the box, or the tile's composition has no more
        return (f"tile {name}: every copy the rules provide is already used",
                R.BOX_CLAUSES.get(name) or R.TILE_CLAUSES.get(name) or R.CLAUSE_BAG)
    # A tile set aside to be drawn last (`last`, RIVER-SETUP-1) is dealt even while others remain:
    # a record naming it early is refused by the record layer (replay/turns.py's tile_id), and the
    # witness searches deal z3's sequences as they come (verifier/witness.py's river_search).
    return None


def deck_of(g, tid):
    for d, ids in zip(g.bag.decks, g.R.DECKS):
        if tid in ids:
            return d
    return g.bag.decks[-1]

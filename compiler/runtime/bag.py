"""The bag: decks drawn in order, the drawn tile, tiles a record names, variants, the box."""
from __future__ import annotations

from .errors import IllegalAction


class Bag:
    """Mixin of Game.  Owns: decks, drawn."""

    def _init_bag(self, start):
        """Shuffle the decks (`last` tiles go under their deck); a record's own start tile
        comes from the bag and the rules' start tile goes back in.  Returns the start (tid, x, y, rot)."""
        rules = self.R
        self.decks = [list(d) for d in rules.DECKS]
        for d, last in zip(self.decks, rules.DECK_LAST):
            body = [t for t in d if t not in last]
            tail = [t for t in d if t in last]
            self.rng.shuffle(body)
            d[:] = tail + body  # drawn from the end
        if start is not None and rules.START_MORE:
            raise ValueError("these rules lay a start landscape of several tiles (SIEGE-SETUP-1); "
                             "a record's `start` cannot replace it")
        st = start if start is not None else rules.START
        if start is not None and start[0] != (rules.START or (None,))[0]:
            if rules.START is not None:
                d = self._deck_of(rules.START[0])
                d.insert(self.rng.randint(len(d) and 1, len(d)), rules.START[0])
            for d in self.decks:
                if start[0] in d:
                    d.remove(start[0])
                    break
        return st

    def _draw(self):
        self.drawn = None
        self._advanced = False  # its siege symbols are still to be played (outposts.py)
        for d in self.decks:
            if d:
                self.drawn = d.pop()
                return

    def shuffle_bag(self, rng):
        """Reorder the tiles still in the bag with `rng` (a tile set aside to be drawn last stays
        last; the drawn tile is not touched): one of the orders a player who cannot see the bag
        must reckon with.  Search players determinize a clone with it before looking ahead."""
        for d, last in zip(self.decks, self.R.DECK_LAST):
            body = [t for t in d if t not in last]
            rng.shuffle(body)
            d[:] = [t for t in d if t in last] + body  # drawn from the end

    def tiles_left(self):
        return sum(len(d) for d in self.decks) + (1 if self.drawn is not None else 0)

    def tile_name(self, tid=None):
        """The name of tile type `tid` (default: the drawn tile)."""
        return self.R.TILES[self.drawn if tid is None else tid].name

    def _played_symbols(self):
        """A drawn tile whose siege symbols were already played cannot be swapped for another."""
        if self._siege and self._advanced and self.drawn is not None and self.R.TILES[self.drawn].symbols:
            raise IllegalAction("the drawn tile's siege symbols were already played: name the tile before "
                                "asking about the turn", self.R.CLAUSE_BAG)

    def force_tile(self, name):
        """Replays name the drawn tile: take that tile from the current deck instead."""
        R = self.R
        self._played_symbols()
        if self.drawn is not None:
            self._deck_of(self.drawn).append(self.drawn)
        deck = next((d for d in self.decks if d), None)
        self.drawn = None
        if deck is None:
            raise IllegalAction(f"tile {name}: the bag is empty", R.CLAUSE_BAG)
        ids = [t for t in R.TILE_IDS.get(name, ())]
        if not ids:
            raise IllegalAction(f"tile {name}: no such tile in these rules", R.CLAUSE_BAG)
        di = self.decks.index(deck)
        last = R.DECK_LAST[di]
        cands = [t for t in ids if t in deck]
        if not cands:
            where = "in the bag" if any(t in d for d in self.decks for t in ids) else "left"
            if where == "in the bag":
                raise IllegalAction(f"tile {name}: not in the deck being drawn now (the {R.DECK_NAMES[di]} deck, "
                                    f"{len(deck)} tiles left)", R.DECK_CLAUSES[di])
            # the last copy went back in the box, or the tile's composition has no more
            raise IllegalAction(f"tile {name}: every copy the rules provide is already used",
                                R.BOX_CLAUSES.get(name) or R.TILE_CLAUSES.get(name) or R.CLAUSE_BAG)
        body = [t for t in cands if t not in last]
        if not body and len(deck) > len([t for t in deck if t in last]):
            raise IllegalAction(f"tile {name}: it is drawn last, and other tiles of its deck remain", R.LAST_CLAUSES[di])
        pick = (body or cands)[0]
        deck.remove(pick)
        self.drawn = pick
        self._advanced = False  # the tile named now plays its own siege symbols (the one put back had none)

    def force_tile_id(self, tid):
        """Make tile type `tid` the drawn tile (from the deck being drawn)."""
        if self.drawn == tid:
            return
        self._played_symbols()
        if self.drawn is not None:
            self._deck_of(self.drawn).append(self.drawn)
        deck = next((d for d in self.decks if d), None)
        if deck is None or tid not in deck:
            raise IllegalAction(f"tile {self.R.TILES[tid].name}: not in the deck being drawn now", self.R.CLAUSE_BAG)
        deck.remove(tid)
        self.drawn = tid
        self._advanced = False  # the tile named now plays its own siege symbols (the one put back had none)

    def _deck_of(self, tid):
        for d, ids in zip(self.decks, self.R.DECKS):
            if tid in ids:
                return d
        return self.decks[-1]

    def choose_variant(self, name, place, rot=0):
        """A record names a tile; if a figure goes on a place only a variant has, use that variant."""
        R = self.R
        if place is None:
            return
        ids = R.TILE_IDS.get(name, ())
        if len(ids) < 2 or self.drawn not in ids:
            return
        if any(place in ps for ps in R.ORIENT[self.drawn][rot // 90 % 4].places):
            return
        for t in ids:
            if t != self.drawn and any(place in ps for ps in R.ORIENT[t][rot // 90 % 4].places):
                deck = self._deck_of(t)
                if t in deck:
                    deck.remove(t)
                    self._deck_of(self.drawn).append(self.drawn)
                    self.drawn = t
                    return

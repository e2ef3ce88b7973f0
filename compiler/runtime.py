"""tessera engine runtime: the small kernel every compiled engine leans on.

This file is copied verbatim into each compiled engine package (like Lark's
standalone parser), so it uses the Python standard library only and knows
nothing of any particular rulebook: board geometry, edge matching tables,
incremental feature merging (union-find), the turn loop, majority, the bag.
Every number and condition of the rules lives in the generated `rules.py`.
"""
from __future__ import annotations

import json
import random

# Sides in board order; a side's three parts (side, half, half) are listed so
# that part k of side d meets part k of the opposite side of the neighbour.
SIDES = ("N", "E", "S", "W")
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
OPP = (2, 3, 0, 1)
PARTS = (("N", "Nw", "Ne"), ("E", "En", "Es"), ("S", "Sw", "Se"), ("W", "Wn", "Ws"))
AROUND = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
_ROT90 = {
    "N": "E", "E": "S", "S": "W", "W": "N",
    "Nw": "En", "Ne": "Es", "En": "Se", "Es": "Sw", "Se": "Ws", "Sw": "Wn", "Ws": "Nw", "Wn": "Ne",
    "NW": "NE", "NE": "SE", "SE": "SW", "SW": "NW", "C": "C",
}


def rotate(place, rotation):
    for _ in range((rotation // 90) % 4):
        place = _ROT90[place]
    return place


class IllegalAction(Exception):
    """A move the rules forbid; carries the clause it breaks."""

    def __init__(self, message, clause):
        super().__init__(message)
        self.message = message
        self.clause = clause


def _a(word):
    """`word` with its indefinite article, for messages: "an abbot", "a road"."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _div(a, b):
    return a // b if b else 0


def _mod(a, b):
    return a % b if b else 0


class Orientation:
    """A tile type at one rotation, in the board frame."""

    __slots__ = ("tile", "rot", "edges", "parts", "feats", "places", "centre", "sidefeat", "figfeats")

    def __init__(self, tile, rot, kinds, fig_on):
        self.tile = tile
        self.rot = rot
        _, _, _, _, _, edges, feats = tile
        # board side d shows the tile's side that rotation moved there
        self.edges = tuple(edges[(d - rot // 90) % 4] for d in range(4))
        owner = {}
        for i, f in enumerate(feats):
            for p in f[1]:
                owner[rotate(p, rot)] = i
        self.parts = tuple(tuple(owner.get(p, -1) for p in PARTS[d]) for d in range(4))
        self.feats = feats
        self.places = tuple(tuple(rotate(p, rot) for p in f[1]) for f in feats)
        self.centre = tuple(i for i, f in enumerate(feats) if kinds[f[0]][1])
        # per feature: the (side, part) pairs where it meets a neighbour
        self.sidefeat = tuple(tuple((d, k) for d in range(4) for k in range(3) if self.parts[d][k] == i)
                              for i in range(len(feats)))
        # features some figure may stand on, with those figures
        self.figfeats = tuple((i, fig_on[f[0]]) for i, f in enumerate(feats) if fig_on[f[0]])


class Game:
    """One game in progress.  Shaped like OpenSpiel's State."""

    def __init__(self, rules, players=2, seed=0, names=None, start=None):
        lo, hi = rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.R = rules
        self.nplayers = players
        self.names = list(names) if names else [f"p{i}" for i in range(players)]
        self.seed = seed
        self.rng = random.Random(seed)
        self.scores = [0] * players
        self.supply = [[f[1] for f in rules.FIGURES] for _ in range(players)]
        self.current = 0
        self.turn = 0  # index of the record entry being played
        self.events = []
        self.history = []
        self.st = [0] * len(rules.STATES)
        for i, (_, init) in enumerate(rules.STATES):
            self.st[i] = init(self)
        self.board = {}  # (x, y) -> (Orientation, segbase)
        self.frontier = {}  # empty cell -> [codes of the 4 neighbouring edges facing it, -1 if none]
        self.parent = []
        self.seg_kind = []
        self.seg_cell = []
        self.cells = []  # root -> set of cells
        self.shields = []
        self.open = []
        self.figs = []  # root -> list of (player, figure, seg)
        self.borders = []  # root -> list of bordered segs
        self.done = []  # root -> completed?
        self.completed_count = [0] * len(rules.KINDS)
        self.ended = False
        self.recallable = {}  # seg -> (player, figure) for figures that a `recall` rule may take back
        self.drawn = None
        self.discards = 0
        # the bag: decks drawn in order; `last` tiles go under their deck
        self.decks = [list(d) for d in rules.deck_lists()]
        for d, last in zip(self.decks, rules.DECK_LAST):
            body = [t for t in d if t not in last]
            tail = [t for t in d if t in last]
            self.rng.shuffle(body)
            d[:] = tail + body  # drawn from the end
        st = start if start is not None else rules.START
        if start is not None and start[0] != (rules.START or (None,))[0]:
            # a record's own start tile comes from the bag, and the rules' start tile goes back in
            if rules.START is not None:
                d = self._deck_of(rules.START[0])
                d.insert(self.rng.randint(len(d) and 1, len(d)), rules.START[0])
            for d in self.decks:
                if start[0] in d:
                    d.remove(start[0])
                    break
        if st is not None:
            tid, x, y, rot = st
            self._place(rules.ORIENT[tid][rot // 90], (x, y))
        self._draw()

    # ------------------------------------------------------------ union-find
    def find(self, s):
        parent = self.parent
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    def _union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            self.open[ra] -= 2
            return ra
        if len(self.cells[ra]) < len(self.cells[rb]):
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.cells[ra] |= self.cells[rb]
        self.shields[ra] += self.shields[rb]
        self.open[ra] += self.open[rb] - 2
        if self.figs[rb]:
            self.figs[ra] = self.figs[ra] + self.figs[rb]
        if self.borders[rb]:
            self.borders[ra] = self.borders[ra] + self.borders[rb]
        self.done[ra] = self.done[ra] or self.done[rb]
        self.cells[rb] = None
        self.figs[rb] = None
        return ra

    # ------------------------------------------------------------ the bag
    def _draw(self):
        self.drawn = None
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

    def force_tile(self, name):
        """Replays name the drawn tile: take that tile from the current deck instead."""
        R = self.R
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
            raise IllegalAction(f"tile {name}: every copy the rules provide is already used", R.CLAUSE_BAG)
        body = [t for t in cands if t not in last]
        if not body and len(deck) > len([t for t in deck if t in last]):
            raise IllegalAction(f"tile {name}: it is drawn last, and other tiles of its deck remain", R.DECK_CLAUSES[di])
        pick = (body or cands)[0]
        deck.remove(pick)
        self.drawn = pick

    def force_tile_id(self, tid):
        """Make tile type `tid` the drawn tile (from the deck being drawn)."""
        if self.drawn == tid:
            return
        if self.drawn is not None:
            self._deck_of(self.drawn).append(self.drawn)
        deck = next((d for d in self.decks if d), None)
        if deck is None or tid not in deck:
            raise IllegalAction(f"tile {self.R.TILES[tid][1]}: not in the deck being drawn now", self.R.CLAUSE_BAG)
        deck.remove(tid)
        self.drawn = tid

    def _deck_of(self, tid):
        for d, ids in zip(self.decks, self.R.deck_lists()):
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

    # ------------------------------------------------------------ placing
    def _place(self, o, cell):
        R = self.R
        x, y = cell
        base = len(self.parent)
        self.board[cell] = (o, base)
        self.frontier.pop(cell, None)
        kinds = R.KINDS
        for i, f in enumerate(o.feats):
            s = base + i
            self.parent.append(s)
            self.seg_kind.append(f[0])
            self.seg_cell.append(cell)
            self.cells.append({cell})
            self.shields.append(f[2])
            self.open.append(len(o.sidefeat[i]))
            self.figs.append([])
            self.borders.append([base + b for b in f[3]])
            self.done.append(False)
        touched = set()
        for d in range(4):
            nc = (x + DX[d], y + DY[d])
            nb = self.board.get(nc)
            if nb is None:
                pat = self.frontier.get(nc)
                if pat is None:
                    pat = self.frontier[nc] = [-1, -1, -1, -1]
                pat[OPP[d]] = o.edges[d]
                continue
            no, nbase = nb
            mine = o.parts[d]
            theirs = no.parts[OPP[d]]
            for k in range(3):
                a = mine[k]
                b = theirs[k]
                if a >= 0 and b >= 0:
                    self._union(base + a, nbase + b)
        for i in range(len(o.feats)):
            touched.add(self.find(base + i))
        return touched

    # ------------------------------------------------------------ legal moves
    def placements(self, tid):
        """Every (cell, orientation) where the tile may go (BASE-PLACE-1/2 and rule checks)."""
        R = self.R
        fits = R.FITS[tid]
        out = []
        check = R.PLACE_CHECKS[tid]
        for cell, pat in self.frontier.items():
            key = (pat[0], pat[1], pat[2], pat[3])
            rots = fits.get(key)
            if rots is None:
                rots = fits[key] = R.fit(tid, key)
            for o in rots:
                if check is None or check(self, o, cell) is None:
                    out.append((cell, o))
        return out

    def joined_roots(self, o, cell, fi):
        """Roots of placed features that local feature fi would join if o were placed at cell."""
        x, y = cell
        roots = set()
        board = self.board
        for d, k in o.sidefeat[fi]:
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is not None:
                b = nb[0].parts[OPP[d]][k]
                if b >= 0:
                    roots.add(self.find(nb[1] + b))
        return roots

    def figure_options(self, o, cell):
        """(figure, local feature) pairs the current player may put on o placed at cell."""
        return [fig for fig in self._figure_options(o, cell, self._neighbour_roots(cell))]

    def _neighbour_roots(self, cell):
        """For each side of an empty cell, the roots of the neighbour's three facing parts (-1: none)."""
        x, y = cell
        board = self.board
        find = self.find
        out = []
        for d in range(4):
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is None:
                out.append(None)
            else:
                no, nbase = nb
                a, b, c = no.parts[OPP[d]]
                out.append((-1 if a < 0 else find(nbase + a), -1 if b < 0 else find(nbase + b),
                            -1 if c < 0 else find(nbase + c)))
        return out

    def _figure_allowed(self, o, cell, gi, fi):
        if self.supply[self.current][gi] <= 0 or gi not in self.R.FIG_ON[o.feats[fi][0]]:
            return False
        when = self.R.FIG_WHEN[gi]
        return when is None or bool(when(self, self.joined_roots(o, cell, fi), o, fi, cell))

    def join_figures(self, roots):
        """Figures on the placed features that a new feature would join."""
        figs = self.figs
        n = 0
        for r in roots:
            n += len(figs[r])
        return n

    def _figure_options(self, o, cell, nbr):
        sup = self.supply[self.current]
        when_fns = self.R.FIG_WHEN
        for fi, gis in o.figfeats:
            roots = None
            for gi in gis:
                if sup[gi] <= 0:
                    continue
                when = when_fns[gi]
                if when is not None:
                    if roots is None:
                        roots = set()
                        for d, k in o.sidefeat[fi]:
                            side = nbr[d]
                            if side is not None and side[k] >= 0:
                                roots.add(side[k])
                    if not when(self, roots, o, fi, cell):
                        continue
                yield (gi, fi)

    def recall_options(self):
        """Own figures on the board that a `recall` rule lets the current player take back."""
        if not self.recallable:
            return []
        p = self.current
        out = [("recall", gi, self.seg_cell[seg], seg) for seg, (pl, gi) in self.recallable.items() if pl == p]
        out.sort(key=lambda a: (a[2], a[1]))
        return out

    def legal_actions(self):
        """Every legal action: (cell, rotation, None | (figure, feature) | recall), or the discard.

        The loop is generated into the rules module, with each figure's `when`
        condition written inline (compiler/codegen.py, `_legal_actions`)."""
        return self.R.legal_actions(self)

    def current_player(self):
        return -4 if self.ended else self.current

    def is_terminal(self):
        return self.ended

    def returns(self):
        return list(self.scores)

    # ------------------------------------------------------------ applying
    def apply_action(self, action):
        R = self.R
        if self.ended:
            raise IllegalAction("the game is over", R.CLAUSE_END)
        if action[0] == "discard":
            if self.placements(self.drawn):
                raise IllegalAction(f"tile {R.TILES[self.drawn][1]} can be placed, so it may not be discarded", R.CLAUSE_DISCARD)
            self.history.append((R.TILES[self.drawn][0], action))  # only moves that were made
            self.events.append({"turn": self.turn, "kind": "discard", "tile": R.TILES[self.drawn][1], "player": self.names[self.current], "clause": R.CLAUSE_DISCARD})
            self.discards += 1
            self.turn += 1
            self._draw()
            if self.drawn is None:
                self._final()
            return
        cell, rot, fig = action
        o = R.ORIENT[self.drawn][rot // 90]
        why = self.why_not_placed(o, cell)
        if why is not None:
            raise IllegalAction(*why)
        if fig is not None:
            if fig[0] == "recall":
                if fig not in self.recall_options():
                    raise IllegalAction("no own figure of that kind stands there to recall", R.RECALL_CLAUSE.get(fig[1], R.CLAUSE_FOLLOW))
            else:
                gi, fi = fig
                if not 0 <= fi < len(o.feats) or not self._figure_allowed(o, cell, gi, fi):
                    raise IllegalAction(self.why_no_figure(o, cell, gi, fi), self._no_figure_clause(o, gi, fi))
        self.history.append((R.TILES[self.drawn][0], action))  # only moves that were made
        p = self.current
        state_sets = R.on_place(self, o, cell)
        touched = self._place(o, cell)
        for name_i, val in state_sets:
            self.st[name_i] = val
        if fig is not None:
            if fig[0] == "recall":
                _, gi, rcell, seg = fig
                r = self.find(seg)
                fn, clause = R.RECALLS[gi]
                pts = fn(self, r)
                self.figs[r] = self._remove_fig(r, p, gi, seg)
                self.recallable.pop(seg, None)
                self.supply[p][gi] += 1
                self.scores[p] += pts
                self.events.append({"turn": self.turn, "kind": "score", "feature": R.KINDS[self.seg_kind[seg]][0], "when": "recall", "tiles": len(self.cells[r]), "points": {self.names[p]: pts}, "clause": clause})
            else:
                gi, fi = fig
                seg = self.board[cell][1] + fi
                r = self.find(seg)
                self.figs[r] = self.figs[r] + [(p, gi, seg)]
                if gi in R.RECALLS:
                    self.recallable[seg] = (p, gi)
                self.supply[p][gi] -= 1
        self._score_completed(cell, touched)
        self.turn += 1
        self.current = (self.current + 1) % self.nplayers
        self._draw()
        if self.drawn is None:
            self._final()

    def _remove_fig(self, r, p, gi, seg):
        out = list(self.figs[r])
        for i, e in enumerate(out):
            if e == (p, gi, seg):
                del out[i]
                break
        return out

    def why_not_placed(self, o, cell):
        """None if o may go at cell, else (message, clause)."""
        R = self.R
        head = f"tile {o.tile[1]} at [{cell[0]},{cell[1]}] rotation {o.rot}"
        if cell in self.board:
            return (f"{head}: the cell is already taken", R.CLAUSE_ADJACENT)
        pat = self.frontier.get(cell)
        if pat is None:
            return (f"{head}: it touches no placed tile along an edge", R.CLAUSE_ADJACENT)
        for d in range(4):
            if pat[d] >= 0 and pat[d] != o.edges[d]:
                nc = (cell[0] + DX[d], cell[1] + DY[d])
                return (f"{head}: its {SIDES[d]} side ({R.EDGE_TITLES[o.edges[d]]}) meets the {R.EDGE_TITLES[pat[d]]} on the {SIDES[OPP[d]]} side of [{nc[0]},{nc[1]}]", R.CLAUSE_MATCHING)
        check = R.PLACE_CHECKS[o.tile[0]]
        if check is not None:
            why = check(self, o, cell)
            if why is not None:
                return (f"{head}: {why[0]}", why[1])
        return None

    def _no_figure_clause(self, o, gi, fi):
        """The clause a refused figure breaks, as its rule file cites each part of the
        `figure` statement: its supply, where it may stand, or its `when` condition."""
        supply, on, when = self.R.FIG_CLAUSES[gi]
        if self.supply[self.current][gi] <= 0:
            return supply
        if not 0 <= fi < len(o.feats) or gi not in self.R.FIG_ON[o.feats[fi][0]]:
            return on
        return when

    def why_no_figure(self, o, cell, gi, fi):
        R = self.R
        fname = R.FIGURES[gi][0]
        if not 0 <= fi < len(o.feats):
            return f"tile {o.tile[1]} has no feature {fi} to put {_a(fname)} on"
        kind = R.KINDS[o.feats[fi][0]][0]
        if self.supply[self.current][gi] <= 0:
            return f"no {fname} left in supply"
        if o.feats[fi][0] not in R.FIGURES[gi][2]:
            return f"{_a(fname)} cannot stand on {_a(kind)}"
        return f"{_a(fname)} may not be placed on this {kind}: the rule `{R.FIG_WHEN_SRC[gi]}` does not hold"

    # ------------------------------------------------------------ scoring
    def owners(self, r):
        figs = self.figs[r]
        if not figs:
            return []
        count = {}
        for p, gi, seg in figs:
            count[p] = count.get(p, 0) + 1
        if not self.R.OWNERS_MOST:
            return sorted(count)
        top = max(count.values())
        return sorted(p for p, c in count.items() if c == top)

    def _award(self, r, kind, when, rule):
        """Score feature r for its owners: by `rule` (fn, clause), or by a `score ... by FIGURE`
        rule for an owner whose figure there is that figure.  One event per clause."""
        owners = self.owners(r)
        if not owners:
            return
        by = self.R.SCORE_BY
        groups = {}
        for p in owners:
            fn, clause = rule
            if by:
                for pl, gi, _ in self.figs[r]:
                    if pl == p and (when, kind, gi) in by:
                        fn, clause = by[(when, kind, gi)]
                        break
            pts = fn(self, r)
            if pts:
                self.scores[p] += pts
                groups.setdefault(clause, {})[self.names[p]] = pts
        for clause, points in groups.items():
            self.events.append({"turn": self.turn, "kind": "score", "feature": self.R.KINDS[kind][0], "when": when,
                                "tiles": len(self.cells[r]), "points": points, "clause": clause})

    def _score_completed(self, cell, touched):
        R = self.R
        x, y = cell
        cands = list(touched)
        for dx, dy in AROUND:
            nb = self.board.get((x + dx, y + dy))
            if nb is not None:
                o, base = nb
                for i in o.centre:
                    cands.append(self.find(base + i))
        done = self.done
        seg_kind = self.seg_kind
        complete = R.COMPLETE
        finished = []
        for r in set(cands):
            if not done[r]:
                test = complete.get(seg_kind[r])
                if test is not None and test(self, r):
                    finished.append(r)
        if len(finished) > 1:
            finished.sort(key=self._canon)  # several in one turn: a canonical order (the King's depends on it)
        for r in finished:
            kind = seg_kind[r]
            self.done[r] = True
            self.completed_count[kind] += 1
            sc = R.SCORE_COMPLETE.get(kind)
            if sc is not None:
                self._award(r, kind, "complete", sc)
            if self.figs[r]:
                keep = []
                for e in self.figs[r]:
                    if e[1] in R.RETURNS:
                        self.supply[e[0]][e[1]] += 1
                        self.recallable.pop(e[2], None)
                    else:
                        keep.append(e)
                self.figs[r] = keep
            R.on_complete(self, r, kind)

    def _canon(self, r):
        """Order features the same way whatever ids they got: by kind, then by the cells they cover."""
        cells = self.cells[r]
        return (self.R.KINDS[self.seg_kind[r]][0], min(cells), len(cells), sorted(cells))

    def _final(self):
        R = self.R
        self.ended = True
        roots = [r for r in range(len(self.parent)) if self.parent[r] == r and self.figs[r] and not self.done[r]]
        roots.sort(key=self._canon)
        for r in roots:
            kind = self.seg_kind[r]
            sc = R.SCORE_END.get(kind)
            if sc is not None:
                self._award(r, kind, "end", sc)
        for si, fn, clause, name in R.AWARDS:
            holder = self.st[si]
            if 0 <= holder < self.nplayers:
                pts = fn(self)
                self.scores[holder] += pts
                self.events.append({"turn": self.turn, "kind": "award", "award": name, "when": "end",
                                    "points": {self.names[holder]: pts}, "clause": clause})

    def finish(self):
        """End the game now (a record's `"end": "final"`): final scoring."""
        if not self.ended:
            self._final()

    # ------------------------------------------------------------ quantities
    def neighbours(self, r):
        x, y = self.seg_cell[r]
        board = self.board
        return sum(1 for dx, dy in AROUND if (x + dx, y + dy) in board)

    def completed_borders(self, r):
        roots = {self.find(s) for s in self.borders[r]}
        return sum(1 for b in roots if self.done[b])

    def turn_of(self, o, cell, kind):
        """-1/0/+1: how feature `kind` of o at cell turns along its flow (entering from a placed neighbour)."""
        x, y = cell
        for i, f in enumerate(o.feats):
            if f[0] != kind:
                continue
            sides = [d for d, k in o.sidefeat[i] if k == 0]
            if len(sides) != 2:
                return 0
            a, b = sides
            if (x + DX[a], y + DY[a]) not in self.board:
                a, b = b, a
            heading = OPP[a]
            if b == heading:
                return 0
            return 1 if b == (heading + 1) % 4 else -1
        return 0

    def continues(self, o, cell, kind):
        x, y = cell
        for i, f in enumerate(o.feats):
            if f[0] != kind:
                continue
            ok = False
            for d, k in o.sidefeat[i]:
                nb = self.board.get((x + DX[d], y + DY[d]))
                if nb is not None and nb[0].parts[OPP[d]][k] >= 0:
                    ok = True
            if not ok:
                return False
        return True

    # ------------------------------------------------------------ views
    def clone(self):
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        for k in ("scores", "st", "parent", "seg_kind", "seg_cell", "shields", "open", "done", "completed_count", "events", "history"):
            setattr(g, k, list(getattr(self, k)))
        g.supply = [list(s) for s in self.supply]
        g.board = dict(self.board)
        g.frontier = {c: list(p) for c, p in self.frontier.items()}
        g.cells = [set(c) if c is not None else None for c in self.cells]
        g.figs = [list(f) if f is not None else None for f in self.figs]
        g.recallable = dict(self.recallable)
        g.borders = [list(b) for b in self.borders]
        g.decks = [list(d) for d in self.decks]
        return g

    def features(self):
        """Every feature on the board: kind, cells, places (board frame), figures, completion, open edges."""
        R = self.R
        groups = {}
        for cell, (o, base) in self.board.items():
            for i in range(len(o.feats)):
                r = self.find(base + i)
                groups.setdefault(r, []).append((cell, o.places[i]))
        out = []
        for r, members in groups.items():
            places = frozenset((c, p) for c, ps in members for p in ps)
            out.append({
                "kind": R.KINDS[self.seg_kind[r]][0],
                "cells": frozenset(self.cells[r]),
                "places": places,
                "figures": sorted((self.names[p], R.FIGURES[gi][0]) for p, gi, _ in self.figs[r]),
                "figure_places": sorted((self.names[p], R.FIGURES[gi][0], self.seg_cell[seg], self._seg_place(seg))
                                        for p, gi, seg in self.figs[r]),
                "complete": bool(self.done[r]),
                "open": self.open[r],
                "borders": frozenset(self.find(s) for s in self.borders[r]),
                "root": r,
            })
        return out

    def _seg_place(self, seg):
        o, base = self.board[self.seg_cell[seg]]
        ps = o.places[seg - base]
        return ps[0] if ps else None

    def supply_by_name(self):
        R = self.R
        return {self.names[p]: {R.FIGURES[g][0]: n for g, n in enumerate(self.supply[p])} for p in range(self.nplayers)}

    def winners(self):
        top = max(self.scores)
        return [self.names[p] for p in range(self.nplayers) if self.scores[p] == top]

    def to_json(self):
        """A state as JSON: its seed, seats and the moves that led to it (replayed by from_json)."""
        hist = []
        for tid, a in self.history:
            name = self.R.TILES[tid][1]
            if a[0] == "discard":
                hist.append({"tile": name, "id": tid, "discard": True})
            else:
                (x, y), rot, fig = a
                h = {"tile": name, "id": tid, "at": [x, y], "rotation": rot}
                if fig is not None:
                    h["figure"] = list(fig[:2]) if fig[0] != "recall" else ["recall", fig[1], list(fig[2]), fig[3]]
                hist.append(h)
        return json.dumps({"format": "tessera-state/1", "rules": list(self.R.MODULES), "players": self.names,
                           "seed": self.seed, "history": hist, "scores": self.scores}, sort_keys=True)

    @classmethod
    def from_json(cls, rules, text):
        data = json.loads(text)
        g = cls(rules, len(data["players"]), data["seed"], data["players"])
        for h in data["history"]:
            g.force_tile_id(h["id"])
            if h.get("discard"):
                g.apply_action(("discard",))
                continue
            fig = h.get("figure")
            if fig is not None:
                fig = ("recall", fig[1], tuple(fig[2]), fig[3]) if fig[0] == "recall" else tuple(fig)
            g.apply_action((tuple(h["at"]), h["rotation"], fig))
        return g


def build_orientations(rules):
    """ORIENT[tile][r] for the four rotations, and the pattern -> fitting orientations cache."""
    rules.ORIENT = [[Orientation(t, r, rules.KINDS, rules.FIG_ON) for r in (0, 90, 180, 270)] for t in rules.TILES]
    rules.FITS = [dict() for _ in rules.TILES]

    def fit(tid, pat):
        out = []
        for o in rules.ORIENT[tid]:
            if all(p < 0 or p == e for p, e in zip(pat, o.edges)):
                out.append(o)
        return out

    rules.fit = fit


def play_random(rules, players=2, seed=0, names=None):
    """One game of uniformly random legal moves (all legal actions listed each turn)."""
    g = Game(rules, players, seed, names)
    rng = random.Random(seed ^ 0x5EED)
    while not g.ended:
        acts = g.legal_actions()
        if not acts:
            g.finish()
            break
        g.apply_action(acts[rng.randrange(len(acts))])
    return g

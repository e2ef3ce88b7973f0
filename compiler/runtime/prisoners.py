"""Prisoners (the Tower): captures after a figure is put, the exchange, the ransom.

A capture is a decision of its own: after a turn puts a figure that a `capture`
rule names (a floor), the same player chooses one figure in range to capture, or
passes, before the turn's scoring.  The rules' tables say everything that is
particular: which figures may be captured and how far (CAPTURES), whether a
capture from a player who holds one of yours swaps them (EXCHANGE), and which
prisoners may be bought back at what price and when (RANSOM).

held[h][o] lists the figure indices of player o's figures that player h holds.
"""
from __future__ import annotations

from .errors import IllegalAction
from .decisions import CaptureOpen
from .moves import Capture, Ransom


class Prisoners:
    """Mixin of Game.  Owns: held, pending."""

    def _init_prisoners(self, players):
        self.held = [[[] for _ in range(players)] for _ in range(players)]
        self.pending = None  # CaptureOpen while a capture is to be chosen; TurnEnd while the turn is scored (runtime/decisions.py)
        self._put_after = None  # the figure a pending capture follows, scored by `score ... put` after it
        # After the turn's scoring, while the player may still pay a ransom (with the points just
        # scored) before passing the turn on (with `open_decisions`, even when none may be paid).
        self.closing = False

    def held_count(self, owner, gi):
        """How many of `owner`'s figures gi other players hold."""
        return sum(h[owner].count(gi) for h in self.held)

    def prisoners_by_name(self):
        """{holder: {owner: {figure: n}}} for every prisoner held."""
        out = {}
        for h, row in enumerate(self.held):
            for o, figs in enumerate(row):
                for gi in figs:
                    d = out.setdefault(self.names[h], {}).setdefault(self.names[o], {})
                    d[self.figure_name(gi)] = d.get(self.figure_name(gi), 0) + 1
        return out

    # ------------------------------------------------------------ capture
    def _capture_pending(self, p, gi, seg, cell, touched):
        """After player p put figure gi on segment seg: wait for a capture choice if one exists."""
        cap = self.R.CAPTURES.get(gi)
        if cap is None:
            return False
        kinds, range_fn, clause = cap
        r = self.find(seg)
        pend = CaptureOpen(p, cell, touched, self.seg_cell[seg], range_fn(self, r), clause, kinds)
        self.pending = pend
        if not self.open_decisions and not self.capture_options():  # nothing in range: no decision, unless asked
            self.pending = None
            return False
        return True

    def capture_options(self):
        """Capture(owner, figure, segment, back) for every figure in range, back being the
        figure of the capturer's that comes back in an exchange (None: no exchange)."""
        if self.pending is None:
            return []
        pend = self.pending
        p, (tx, ty), h, kinds = pend.player, pend.tower, pend.reach, pend.kinds
        out = []
        seg_cell = self.seg_cell
        exchange = self.R.EXCHANGE
        for figs in filter(None, self.figs):  # the features with figures on them
            for q, fgi, seg in figs:
                if fgi not in kinds:
                    continue
                x, y = seg_cell[seg]
                if not ((x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)):
                    continue
                backs = sorted(set(self.held[q][p])) if exchange and q != p else []
                if backs:
                    out.extend(Capture(q, fgi, seg, b) for b in backs)
                else:
                    out.append(Capture(q, fgi, seg, None))
        out.sort(key=lambda a: (self.seg_cell[a.segment], a.segment, a.owner, a.figure, -1 if a.back is None else a.back))
        return out

    def capture_refusal(self, action):
        """None if `action` is a capture the pending player may make, else (message, clause)."""
        if self.pending is None:
            return ("nothing may be captured now: no figure was just put that allows a capture",
                    next(iter(self.R.CAPTURES.values()), ((), None, ("",)))[2][0])
        if action in self.capture_options():
            return None
        p, _, _, (tx, ty), h, clause, kinds = self.pending
        q, fgi, seg, back = action.owner, action.figure, action.segment, action.back
        fname = self.figure_name(fgi) if isinstance(fgi, int) and 0 <= fgi < len(self.R.FIGURES) else str(fgi)
        cap_clause, kinds_clause, range_clause = clause
        if fgi not in kinds:
            return (f"{'an' if fname[:1] in 'aeiou' else 'a'} {fname} may not be captured", kinds_clause)
        if not (isinstance(seg, int) and 0 <= seg < len(self.parent)) or \
                (q, fgi, seg) not in (self.figs[self.find(seg)] or []):
            return (f"no {fname} of that player stands there", cap_clause)
        x, y = self.seg_cell[seg]
        if not ((x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)):
            return (f"[{x},{y}] is out of range of the tower at [{tx},{ty}] (height {h}: its own tile and "
                    f"up to {h} tiles in a straight line)", range_clause)
        ex = self.R.EXCHANGE_CLAUSE
        if back is None:
            return ("the victim holds a figure of yours: the capture is an exchange; say which comes back", ex)
        return (f"the victim holds no {self.figure_name(back) if isinstance(back, int) else back} of yours to exchange", ex)

    def _apply_capture(self, action, checked=False):
        """The capture moment's choice: the capture, then the turn's scoring."""
        why = self.capture_refusal(action)
        if why is not None:
            raise IllegalAction(*why)
        self.history.append((None, action))
        self._capture(action)
        self._end_turn()

    def _no_capture(self, action, checked=False):
        """The capture moment's pass: nothing is captured; the turn's scoring."""
        self.history.append((None, action))
        self._end_turn()

    def _capture(self, action):
        p = self.pending.player
        q, fgi, seg, back = action.owner, action.figure, action.segment, action.back
        r = self.find(seg)
        self.figs[r] = self._remove_fig(r, q, fgi, seg)
        self.recallable.pop(seg, None)
        x, y = self.seg_cell[seg]
        ev = {"turn": self.turn, "kind": "capture", "player": self.names[p], "victim": self.names[q],
              "figure": self.figure_name(fgi), "at": [x, y], "on": self._seg_place(seg), "clause": self.pending.clauses[0]}
        if q == p:
            self.supply[p][fgi] += 1
            ev["to"] = "supply"
            self.events.append(ev)
        elif back is not None:
            self.supply[q][fgi] += 1
            self.held[q][p].remove(back)
            self.supply[p][back] += 1
            ev["to"] = "exchange"
            self.events.append(ev)
            self.events.append({"turn": self.turn, "kind": "exchange", "player": self.names[p], "victim": self.names[q],
                                "figure": self.figure_name(fgi), "back": self.figure_name(back),
                                "clause": self.R.EXCHANGE_CLAUSE})
        else:
            self.held[p][q].append(fgi)
            ev["to"] = "prisoner"
            self.events.append(ev)

    # ------------------------------------------------------------ ransom
    def ransom_options(self):
        """Ransom(holder, figure) for every own prisoner the current player may buy back now: at each of
        their decisions -- before the tile, before a floor's capture, after the turn's scoring."""
        rn = self.R.RANSOM
        if rn is None or self.ended:
            return []
        kinds, price, allowed, _, _ = rn
        p = self.current
        out = []
        for h, row in enumerate(self.held):
            for gi in sorted(set(row[p])):
                if gi in kinds and (allowed is None or allowed(self)):
                    out.append(Ransom(h, gi))
        return out

    def _apply_ransom(self, action, checked=False):
        """A ransom, at any moment of the own turn that offers one (refused with its clause unless it may)."""
        self._ransom(action)
        self.history.append((None, action))

    def _ransom(self, action):
        R = self.R
        kinds, price, allowed, clause, cond = R.RANSOM if R.RANSOM else ((), None, None, "", "")
        if R.RANSOM is None:
            raise IllegalAction("these rules have no ransom", "")
        h, gi = action.holder, action.figure
        p = self.current
        if not (isinstance(h, int) and 0 <= h < self.nplayers and h != p and isinstance(gi, int) and gi in self.held[h][p]):
            raise IllegalAction("that player holds no such figure of yours", clause)
        if gi not in kinds:
            raise IllegalAction(f"{'an' if self.figure_name(gi)[:1] in 'aeiou' else 'a'} {self.figure_name(gi)} "
                                "may not be ransomed", clause)
        if allowed is not None and not allowed(self):
            raise IllegalAction(f"the ransom is refused: `{cond}` does not hold "
                                f"(you have {self.scores[p]} points)", clause)
        n = price(self)
        self.held[h][p].remove(gi)
        self.supply[p][gi] += 1
        self.scores[p] -= n
        self.scores[h] += n
        self.events.append({"turn": self.turn, "kind": "ransom", "player": self.names[p], "holder": self.names[h],
                            "figure": self.figure_name(gi), "points": {self.names[p]: -n, self.names[h]: n},
                            "clause": clause})

    # ------------------------------------------------------------ release (`on round end`)
    def _release(self, kinds, clause):
        """Every prisoner of the figures `kinds` goes back to its owner's supply, whoever holds it
        (a `release` at the end of a round: runtime/rounds.py); one event per figure."""
        for h, row in enumerate(self.held):
            for o, figs in enumerate(row):
                if not figs:
                    continue
                kept = []
                for gi in figs:
                    if gi in kinds:
                        self.supply[o][gi] += 1
                        self.events.append({"turn": self.turn, "kind": "release", "player": self.names[o],
                                            "holder": self.names[h], "figure": self.figure_name(gi),
                                            "clause": clause})
                    else:
                        kept.append(gi)
                row[o] = kept

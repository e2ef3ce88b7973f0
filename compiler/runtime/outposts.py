"""Outposts (Siege and Defense): tracks of figures beside the board, catapults, attacks.

Everything particular comes from the rules' tables: the outposts (TRACKS: which kinds
send figures to a row, the row's size per number of players, a pool, how many catapults
the catapult slot holds), the optional extra figures (OUTPOST_PUTS) and what happens on
an outpost (TRACK_RULES: `full`, `overflow`, `end`, `draw`, each a list of actions).

Decisions of their own, each a legal action (runtime/moves.py) of the player who decides:
- Catapult(t): a drawn tile's "?" symbol puts its catapult on outpost t (the
  current player chooses);
- Remove(t, figure, segment): an attack on outpost t makes a player take one of
  their figures off the board; several players decide in turn, clockwise from the
  current player, and `current_player()` names the one deciding;
- Outpost(t, "row" | "pool") or Pass(): right after a figure is put, the same
  player may put one more figure from supply on an outpost.

The drawn tile's symbols are played lazily, the first time the turn is asked about
(`current_player`, `legal_actions`, `apply_action`), so a replay can deal the tile
it names first (chance's move, `Draw`: runtime/bag.py).
"""
from __future__ import annotations

from .errors import IllegalAction
from .decisions import CatapultOpen, OutpostOpen, RemoveOpen, TurnEnd
from .prisoners import capture_pending
from .moves import CATAPULT, OUTPOST, REMOVE, Catapult, Outpost, Pass, Remove


class Outposts:
    """Mixin of Game.  Owns: trow, tpool, tcat, tsize, sdec, sq."""

    def _init_outposts(self, players):
        R = self.R
        self._siege = bool(R.TRACKS)  # read on the hot paths instead of the rules' table
        self.tsize = [rows.get(players, 0) for _, _, rows, _, _, _ in R.TRACKS]
        self.trow = [[] for _ in R.TRACKS]  # (player, figure) in slot order
        self.tpool = [[] for _ in R.TRACKS]
        self.tcat = [0 for _ in R.TRACKS]
        self.sdec = None  # the open decision: CatapultOpen | RemoveOpen | OutpostOpen (runtime/decisions.py)
        self.sq = []  # work still to do for this draw: ("sym", t) | ("act", rule, t, k) | ("rm", t, figs, players, clause)
        self._advanced = True  # the drawn tile's symbols were played (set False by each draw)
        self._cont = None  # the placement an outpost decision interrupts: (p, figure, segment, cell, touched, put)
        self.last_attack = None  # (outpost, each player's figures there, clause) of the last attack
        self.filled = []  # outposts whose row's last free slot was filled this turn (SIEGE-COUNTER-1)
        self._draw_rules = [r for r in R.TRACK_RULES if r[0] == "draw"]

    # ------------------------------------------------------------ views
    def own(self, t, p):
        """Player p's figures on outpost t, row and pool (`own`)."""
        return sum(1 for q, _ in self.trow[t] if q == p) + sum(1 for q, _ in self.tpool[t] if q == p)

    def track_index(self, name):
        for t, tr in enumerate(self.R.TRACKS):
            if tr[0] == name:
                return t
        return None

    def outposts_by_name(self):
        """{outpost: {"row": [names], "pool": [names], "catapults": n, "slots": row size}}."""
        out = {}
        for t, tr in enumerate(self.R.TRACKS):
            out[tr[0]] = {"row": [self.names[p] for p, _ in self.trow[t]],
                          "pool": [self.names[p] for p, _ in self.tpool[t]],
                          "catapults": self.tcat[t], "slots": self.tsize[t]}
        return out

    def on_outposts(self, p, gi):
        """How many of player p's figures gi stand on outposts."""
        return sum(1 for t in range(len(self.trow)) for q, f in self.trow[t] + self.tpool[t] if q == p and f == gi)

    def deciding(self):
        """The seat that decides now (a removal may be another player's), or None if no siege decision is open."""
        self._siege_ready()
        return None if self.sdec is None else self.sdec.player

    # ------------------------------------------------------------ draw: advance and attack
    def _siege_ready(self):
        """Play the drawn tile's siege symbols once, before it is placed (SIEGE-ADVANCE-1)."""
        if self._advanced or self.ended or self.drawn is None:
            return
        self._advanced = True
        if not self._draw_rules:
            return
        for s, clause in self.draw_symbols():
            self.sq.append(("sym", -1 if s == "any" else self.track_index(s), clause))
        self._srun()

    def draw_symbols(self, tid=None):
        """(symbol, clause) for each printed symbol of tile `tid` (default: the drawn tile) whose
        catapult comes when it is drawn: every `put catapult on symbols` of an `on draw` rule, and
        of an `on draw of KINDS` rule only when the tile shows a feature of one of those kinds."""
        tile = self.R.TILES[self.drawn if tid is None else tid]
        if not tile.symbols:
            return []
        out = []
        for rule in self._draw_rules:
            for act in rule[2]:
                if act[0] == "put" and (len(act) < 2 or not act[1] or any(f.kind in act[1] for f in tile.feats)):
                    out.extend((s, rule[3]) for s in tile.symbols)
        return out

    def _srun(self):
        """Do the queued work until it is done or a player must decide."""
        R = self.R
        while self.sq and self.sdec is None:
            item = self.sq[0]
            if item[0] == "sym":
                self.sq.pop(0)
                t, clause = item[1], item[2]
                if t is None:
                    continue  # a symbol no outpost answers to
                if t < 0:  # "?": the current player chooses the outpost
                    self.sdec = CatapultOpen(self.current, clause)
                    return
                self._catapult(t, clause)
            elif item[0] == "act":
                self.sq.pop(0)
                _, ri, t, k = item
                acts = R.TRACK_RULES[ri][2]
                if k + 1 < len(acts):
                    self.sq.insert(0, ("act", ri, t, k + 1))
                self._act(ri, t, acts[k])
            else:  # ("rm", t, figs, players, clause): the next player who must remove decides
                _, t, figs, players, clause = item
                while players and not self.removal_options(players[0], t, figs):
                    players = players[1:]
                if not players:
                    self.sq.pop(0)
                    continue
                self.sq[0] = ("rm", t, figs, players, clause)
                self.sdec = RemoveOpen(players[0], t, figs, clause)
                return

    def _catapult(self, t, clause):
        """A catapult comes to outpost t: into its slot, or, the slot being full, an attack."""
        R = self.R
        name = R.TRACKS[t][0]
        if self.tcat[t] < R.TRACKS[t][4]:
            self.tcat[t] += 1
            self.events.append({"turn": self.turn, "kind": "catapult", "player": self.names[self.current],
                                "outpost": name, "clause": clause})
            return
        rules = [ri for ri, r in enumerate(R.TRACK_RULES) if r[0] == "overflow" and t in r[1]]
        self.last_attack = (t, [self.own(t, p) for p in range(self.nplayers)],
                            R.TRACK_RULES[rules[0]][3] if rules else clause)
        self.events.append({"turn": self.turn, "kind": "attack", "player": self.names[self.current], "outpost": name,
                            "clause": R.TRACK_RULES[rules[0]][3] if rules else clause})
        self.sq[0:0] = [("act", ri, t, 0) for ri in rules if R.TRACK_RULES[ri][2]]

    def _act(self, ri, t, act):
        """One action of a rule on outpost t."""
        R = self.R
        event, _, _, clause = R.TRACK_RULES[ri]
        name = R.TRACKS[t][0]
        if act[0] == "score":
            points = {}
            for p in range(self.nplayers):
                pts = act[1](self, t, p)
                if pts:
                    self.scores[p] += pts
                    points[self.names[p]] = pts
            if points:
                self.events.append({"turn": self.turn, "kind": "score", "feature": "outpost", "outpost": name,
                                    "when": event, "points": points, "clause": clause})
        elif act[0] == "return":
            figs = act[1]
            for lst in (self.trow[t], self.tpool[t]):
                keep = []
                for p, gi in lst:
                    if gi in figs:
                        self.supply[p][gi] += 1
                    else:
                        keep.append((p, gi))
                lst[:] = keep
        elif act[0] == "catapult":
            self.tcat[t] = 0
        elif act[0] == "remove":
            _, _, figs, cond = act
            order = [(self.current + k) % self.nplayers for k in range(self.nplayers)]
            players = tuple(p for p in order if cond is None or cond(self, t, p))
            self.sq.insert(0, ("rm", t, figs, players, clause))

    def removal_options(self, p, t, figs):
        """Remove(t, figure, segment) for each of p's figures of `figs` standing on a feature
        of the kinds outpost t is for."""
        kinds = self.R.TRACKS[t][1]
        out = []
        for r, entries in enumerate(self.figs):
            if not entries:
                continue
            for q, gi, seg in entries:
                if q == p and gi in figs and self.seg_kind[seg] in kinds:
                    out.append(Remove(t, gi, seg))
        out.sort(key=lambda a: (self.seg_cell[a.segment], a.segment, a.figure))
        return out

    # ------------------------------------------------------------ the extra figure
    def _outpost_options(self, p, gi, seg):
        """Outpost(t, slot) for every place the figure just put lets p add a figure to."""
        R = self.R
        kind = self.seg_kind[seg]
        out = []
        for figs, kinds, extra, slot, clause in R.OUTPOST_PUTS:
            if gi not in figs or (kinds is not None and kind not in kinds) or self.supply[p][extra] <= 0:
                continue
            for t, tr in enumerate(R.TRACKS):
                if slot == "row":
                    if kind in tr[1] and len(self.trow[t]) < self.tsize[t]:
                        out.append(Outpost(t, "row"))
                elif tr[3]:
                    out.append(Outpost(t, "pool"))
        return sorted(set(out))

    def _outpost_pending(self, p, gi, seg, cell, touched, put):
        """After p put figure gi on segment seg: open the extra-figure decision if there is a choice."""
        opts = self._outpost_options(p, gi, seg)
        if not opts:
            kind = self.seg_kind[seg]
            if not (self.open_decisions and any(gi in r[0] and (r[1] is None or kind in r[1]) for r in self.R.OUTPOST_PUTS)):
                return False
        self._cont = (p, gi, seg, cell, touched, put)
        self.sdec = OutpostOpen(p, opts)
        return True

    def outpost_refusal(self, action):
        """Why Outpost(t, slot) is not allowed now: (message, clause)."""
        R = self.R
        first = R.OUTPOST_PUTS[0][4] if R.OUTPOST_PUTS else ""
        if self.sdec is None or self.sdec.moment != OUTPOST:
            return ("no figure may go on an outpost now: this turn put no figure that allows one", first)
        p, gi, seg = self._cont[:3]
        t, slot = action.track, action.slot
        if not (isinstance(t, int) and 0 <= t < len(R.TRACKS)) or slot not in ("row", "pool"):
            return ("no such outpost", first)
        tr = R.TRACKS[t]
        kind = self.seg_kind[seg]
        rules = [r for r in R.OUTPOST_PUTS if gi in r[0] and (r[1] is None or kind in r[1])]
        same = [r for r in rules if r[3] == slot]
        if not same:
            clause = rules[0][4] if rules else first
            return (f"{'an' if self.figure_name(gi)[:1] in 'aeiou' else 'a'} {self.figure_name(gi)} on "
                    f"{'an' if R.KINDS[kind].name[:1] in 'aeiou' else 'a'} {R.KINDS[kind].name} lets no figure go "
                    f"to an outpost's {slot}", clause)
        clause = same[0][4]
        if self.supply[p][same[0][2]] <= 0:
            return (f"no {self.figure_name(same[0][2])} left in supply", clause)
        if slot == "pool" and not tr[3]:
            return (f"the {tr[0]} outpost has no pool", tr[5][1])
        if slot == "row":
            if kind not in tr[1]:
                return (f"a figure on {'an' if R.KINDS[kind].name[:1] in 'aeiou' else 'a'} {R.KINDS[kind].name} "
                        f"brings a figure to the row of the outpost for it, not to the {tr[0]} outpost", clause)
            if len(self.trow[t]) >= self.tsize[t]:
                return (f"the {tr[0]} row is full ({self.tsize[t]} slots with {self.nplayers} players)", tr[5][0])
        return None

    def _put_outpost(self, action):
        R = self.R
        p, gi, seg = self._cont[:3]
        t, slot = action.track, action.slot
        kind = self.seg_kind[seg]
        rule = next(r for r in R.OUTPOST_PUTS if gi in r[0] and (r[1] is None or kind in r[1]) and r[3] == slot)
        extra = rule[2]
        self.supply[p][extra] -= 1
        (self.trow if slot == "row" else self.tpool)[t].append((p, extra))
        if slot == "row" and len(self.trow[t]) >= self.tsize[t]:
            self.filled.append(t)
        self.events.append({"turn": self.turn, "kind": "outpost", "player": self.names[p], "figure": self.figure_name(extra),
                            "outpost": R.TRACKS[t][0], "slot": slot, "clause": rule[4]})

    # ------------------------------------------------------------ decisions as actions
    # The open decision (sdec) is the moment (runtime/moves.py's MOMENTS) its moves are offered at:
    # game.py lists them with these and applies them with _siege_apply.
    def catapult_options(self):
        """At a "?" (the moment "catapult"): Catapult(t) for every outpost."""
        d = self.sdec
        return [Catapult(t) for t in range(len(self.R.TRACKS))] if d is not None and d.moment == CATAPULT else []

    def remove_options(self):
        """During an attack (the moment "remove"): the deciding player's removals."""
        d = self.sdec
        return self.removal_options(d.player, d.track, d.figures) if d is not None and d.moment == REMOVE else []

    def outpost_options(self):
        """Right after the turn's figure (the moment "outpost"): Outpost(t, slot) for each place open
        to one more figure (a Pass declines)."""
        d = self.sdec
        return list(d.options) if d is not None and d.moment == OUTPOST else []

    def siege_refusal(self, action):
        """None if `action` answers the open decision, else (message, clause)."""
        d = self.sdec
        kind = type(action)
        if d.moment == OUTPOST:
            if kind is Pass:
                return None
            if kind is not Outpost:
                return (f"{self.names[d.player]} first says whether a figure goes on an outpost (or passes)",
                        self.R.OUTPOST_PUTS[0][4])
            return self.outpost_refusal(action)
        if d.moment == CATAPULT:
            if kind is not Catapult:
                return ("the drawn tile shows a \"?\": its player first chooses the outpost its catapult goes to", d.clause)
            if not (isinstance(action.track, int) and 0 <= action.track < len(self.R.TRACKS)):
                return ("no such outpost", d.clause)
            return None
        p, t, figs, clause = d.player, d.track, d.figures, d.clause
        name = self.R.TRACKS[t][0]
        if kind is not Remove:
            return (f"the {name} outpost is attacked: {self.names[p]} first removes a figure from the board", clause)
        if action in self.removal_options(p, t, figs):
            return None
        return (f"{self.names[p]} has no such figure on the board to remove for the {name} outpost", clause)

    def _siege_apply(self, action, checked=False):
        """Answer the open decision with `action` (refused with its clause unless it may)."""
        d = self.sdec
        why = self.siege_refusal(action)
        if why is not None:
            raise IllegalAction(*why)
        self.history.append((None, action))
        if d.moment == CATAPULT:
            self.sdec = None
            self._catapult(action.track, d.clause)
            self._srun()
            return
        if d.moment == REMOVE:
            p, t, clause = d.player, d.track, d.clause
            gi, seg = action.figure, action.segment
            r = self.find(seg)
            self.figs[r] = self._remove_fig(r, p, gi, seg)
            self.recallable.pop(seg, None)
            self.supply[p][gi] += 1
            x, y = self.seg_cell[seg]
            self.events.append({"turn": self.turn, "kind": "remove", "player": self.names[p],
                                "figure": self.figure_name(gi), "at": [x, y], "on": self._seg_place(seg),
                                "outpost": self.R.TRACKS[t][0], "clause": clause})
            item = self.sq[0]
            self.sq[0] = item[:3] + (item[3][1:],) + item[4:]
            self.sdec = None
            self._srun()
            return
        # the extra figure, or none; then the placement goes on (a capture, then scoring)
        if type(action) is Outpost:
            self._put_outpost(action)
        self.sdec = None
        p, gi, seg, cell, touched, put = self._cont
        self._cont = None
        if capture_pending(self, p, gi, seg, cell, touched):
            self.prisoners.put_after = put
            return
        pr = self.prisoners
        pr.pending = TurnEnd(p, cell, touched)
        pr.put_after = put
        self._end_turn()

    # ------------------------------------------------------------ scoring step and the end
    def _counterattacks(self):
        """Rows filled this turn counterattack, in the scoring step before features score (SIEGE-COUNTER-1)."""
        filled, self.filled = self.filled, []
        for t in filled:
            self._run_rules("full", t)

    def _final_outposts(self):
        """At the end, before final scoring, every outpost a rule names counterattacks (SIEGE-END-1)."""
        for t in range(len(self.R.TRACKS)):
            self._run_rules("end", t)

    def _run_rules(self, event, t):
        R = self.R
        rules = [ri for ri, r in enumerate(R.TRACK_RULES) if r[0] == event and t in r[1]]
        if not rules:
            return
        self.events.append({"turn": self.turn, "kind": "counterattack", "outpost": R.TRACKS[t][0], "when": event,
                            "clause": R.TRACK_RULES[rules[0]][3]})
        saved, self.sq = self.sq, [("act", ri, t, 0) for ri in rules if R.TRACK_RULES[ri][2]]
        self._srun()
        self.sq = saved

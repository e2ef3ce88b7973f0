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

The outposts are a component of the game (`g.outposts`, an `Outposts`: its own slots and `clone`):
each outpost's row size, row, pool and catapults, the open decision, the work still to do for the
drawn tile (`queue`), the placement a decision interrupts (`cont`), the last attack and the rows
filled this turn.  The rest of the module is functions of the game that read the components they
need (`Game` binds the public ones, docs/engine.md, as its methods); the decisions' moves (the
extra figure, the answers to an open decision) are runtime/outpost_moves.py.
"""
from __future__ import annotations

from .decisions import CatapultOpen, RemoveOpen
from .moves import Remove


class Outposts:
    """Component of Game (`g.outposts`): the figures on each outpost, its catapults, the open decision
    and the work still to do for the drawn tile."""

    __slots__ = ("sizes", "rows", "pools", "catapults", "decision", "queue", "cont", "last_attack", "filled",
                 "draw_rules")

    def __init__(self, R, players):
        self.sizes = [rows.get(players, 0) for _, _, rows, _, _, _ in R.TRACKS]  # each row's slots (never changed)
        self.rows = [[] for _ in R.TRACKS]  # (player, figure) in slot order
        self.pools = [[] for _ in R.TRACKS]
        self.catapults = [0 for _ in R.TRACKS]
        self.decision = None  # the open decision: CatapultOpen | RemoveOpen | OutpostOpen (runtime/decisions.py)
        self.queue = []  # work still to do for this draw: ("sym", t) | ("act", rule, t, k) | ("rm", t, figs, players, clause)
        self.cont = None  # the placement an outpost decision interrupts: (p, figure, segment, cell, touched, put)
        self.last_attack = None  # (outpost, each player's figures there, clause) of the drawn tile's attack, or None
        self.filled = []  # outposts whose row's last free slot was filled this turn (SIEGE-COUNTER-1)
        self.draw_rules = [r for r in R.TRACK_RULES if r[0] == "draw"]  # (never changed)

    def clone(self):
        c = _blank(Outposts)
        c.sizes, c.draw_rules = self.sizes, self.draw_rules
        c.rows = [x[:] for x in self.rows]
        c.pools = [x[:] for x in self.pools]
        c.catapults = self.catapults[:]
        c.queue = self.queue[:]  # its items are tuples
        c.filled = self.filled[:]
        c.decision, c.cont, c.last_attack = self.decision, self.cont, self.last_attack  # tuples, never changed
        return c


_blank = object.__new__


# ------------------------------------------------------------ views
def own(g, t, p):
    """Player p's figures on outpost t, row and pool (`own`)."""
    op = g.outposts
    return sum(1 for q, _ in op.rows[t] if q == p) + sum(1 for q, _ in op.pools[t] if q == p)


def track_index(g, name):
    for t, tr in enumerate(g.R.TRACKS):
        if tr[0] == name:
            return t
    return None


def outposts_by_name(g):
    """{outpost: {"row": [names], "pool": [names], "catapults": n, "slots": row size}}."""
    op = g.outposts
    out = {}
    for t, tr in enumerate(g.R.TRACKS):
        out[tr[0]] = {"row": [g.names[p] for p, _ in op.rows[t]],
                      "pool": [g.names[p] for p, _ in op.pools[t]],
                      "catapults": op.catapults[t], "slots": op.sizes[t]}
    return out


def on_outposts(g, p, gi):
    """How many of player p's figures gi stand on outposts."""
    op = g.outposts
    return sum(1 for t in range(len(op.rows)) for q, f in op.rows[t] + op.pools[t] if q == p and f == gi)


def deciding(g):
    """The seat that decides now (a removal may be another player's), or None if no siege decision is open."""
    op = g.outposts
    siege_ready(g)
    return None if op.decision is None else op.decision.player


# ------------------------------------------------------------ draw: advance and attack
def siege_ready(g):
    """Play the drawn tile's siege symbols once, before it is placed (SIEGE-ADVANCE-1)."""
    op = g.outposts
    b = g.bag
    if b.advanced or g.ended or b.drawn is None:
        return
    b.advanced = True
    op.last_attack = None  # the attack this tile's symbols make, if any (a replay's refusal names it)
    if not op.draw_rules:
        return
    for s, clause in draw_symbols(g):
        op.queue.append(("sym", -1 if s == "any" else track_index(g, s), clause))
    srun(g)


def draw_symbols(g, tid=None):
    """(symbol, clause) for each printed symbol of tile `tid` (default: the drawn tile) whose
    catapult comes when it is drawn: every `put catapult on symbols` of an `on draw` rule, and
    of an `on draw of KINDS` rule only when the tile shows a feature of one of those kinds."""
    tile = g.R.TILES[g.bag.drawn if tid is None else tid]
    if not tile.symbols:
        return []
    out = []
    for rule in g.outposts.draw_rules:
        for act in rule[2]:
            if act[0] == "put" and (len(act) < 2 or not act[1] or any(f.kind in act[1] for f in tile.feats)):
                out.extend((s, rule[3]) for s in tile.symbols)
    return out


def srun(g):
    """Do the queued work until it is done or a player must decide."""
    op = g.outposts
    R = g.R
    while op.queue and op.decision is None:
        item = op.queue[0]
        if item[0] == "sym":
            op.queue.pop(0)
            t, clause = item[1], item[2]
            if t is None:
                continue  # a symbol no outpost answers to
            if t < 0:  # "?": the current player chooses the outpost
                op.decision = CatapultOpen(g.current, clause)
                return
            catapult(g, t, clause)
        elif item[0] == "act":
            op.queue.pop(0)
            _, ri, t, k = item
            acts = R.TRACK_RULES[ri][2]
            if k + 1 < len(acts):
                op.queue.insert(0, ("act", ri, t, k + 1))
            _act(g, ri, t, acts[k])
        else:  # ("rm", t, figs, players, clause): the next player who must remove decides
            _, t, figs, players, clause = item
            while players and not removal_options(g, players[0], t, figs):
                players = players[1:]
            if not players:
                op.queue.pop(0)
                continue
            op.queue[0] = ("rm", t, figs, players, clause)
            op.decision = RemoveOpen(players[0], t, figs, clause)
            return


def catapult(g, t, clause):
    """A catapult comes to outpost t: into its slot, or, the slot being full, an attack."""
    op = g.outposts
    R = g.R
    name = R.TRACKS[t][0]
    if op.catapults[t] < R.TRACKS[t][4]:
        op.catapults[t] += 1
        g.events.append({"turn": g.turn, "kind": "catapult", "player": g.names[g.current],
                         "outpost": name, "clause": clause})
        return
    rules = [ri for ri, r in enumerate(R.TRACK_RULES) if r[0] == "overflow" and t in r[1]]
    op.last_attack = (t, [own(g, t, p) for p in range(g.nplayers)],
                        R.TRACK_RULES[rules[0]][3] if rules else clause)
    g.events.append({"turn": g.turn, "kind": "attack", "player": g.names[g.current], "outpost": name,
                     "clause": R.TRACK_RULES[rules[0]][3] if rules else clause})
    op.queue[0:0] = [("act", ri, t, 0) for ri in rules if R.TRACK_RULES[ri][2]]


def _act(g, ri, t, act):
    """One action of a rule on outpost t."""
    op = g.outposts
    R = g.R
    event, _, _, clause = R.TRACK_RULES[ri]
    name = R.TRACKS[t][0]
    if act[0] == "score":
        points = {}
        for p in range(g.nplayers):
            pts = act[1](g, t, p)
            if pts:
                g.scores[p] += pts
                points[g.names[p]] = pts
        if points:
            g.events.append({"turn": g.turn, "kind": "score", "feature": "outpost", "outpost": name,
                             "when": event, "points": points, "clause": clause})
    elif act[0] == "return":
        figs = act[1]
        for lst in (op.rows[t], op.pools[t]):
            keep = []
            for p, gi in lst:
                if gi in figs:
                    g.supply.left[p][gi] += 1
                else:
                    keep.append((p, gi))
            lst[:] = keep
    elif act[0] == "catapult":
        op.catapults[t] = 0
    elif act[0] == "remove":
        _, _, figs, cond = act
        order = [(g.current + k) % g.nplayers for k in range(g.nplayers)]
        players = tuple(p for p in order if cond is None or cond(g, t, p))
        op.queue.insert(0, ("rm", t, figs, players, clause))


def removal_options(g, p, t, figs):
    """Remove(t, figure, segment) for each of p's figures of `figs` standing on a feature
    of the kinds outpost t is for."""
    kinds = g.R.TRACKS[t][1]
    out = []
    for r, entries in enumerate(g.board.figs):
        if not entries:
            continue
        for q, gi, seg in entries:
            if q == p and gi in figs and g.board.seg_kind[seg] in kinds:
                out.append(Remove(t, gi, seg))
    out.sort(key=lambda a: (g.board.seg_cell[a.segment], a.segment, a.figure))
    return out


# ------------------------------------------------------------ scoring step and the end
def counterattacks(g):
    """Rows filled this turn counterattack, in the scoring step before features score (SIEGE-COUNTER-1)."""
    op = g.outposts
    filled, op.filled = op.filled, []
    for t in filled:
        run_rules(g, "full", t)


def final_outposts(g):
    """At the end, before final scoring, every outpost a rule names counterattacks (SIEGE-END-1)."""
    for t in range(len(g.R.TRACKS)):
        run_rules(g, "end", t)


def run_rules(g, event, t):
    op = g.outposts
    R = g.R
    rules = [ri for ri, r in enumerate(R.TRACK_RULES) if r[0] == event and t in r[1]]
    if not rules:
        return
    g.events.append({"turn": g.turn, "kind": "counterattack", "outpost": R.TRACKS[t][0], "when": event,
                     "clause": R.TRACK_RULES[rules[0]][3]})
    saved, op.queue = op.queue, [("act", ri, t, 0) for ri in rules if R.TRACK_RULES[ri][2]]
    srun(g)
    op.queue = saved

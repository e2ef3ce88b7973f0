"""Witness games: a refutation is printed only with a game of the compiled engine that breaks it.

z3 refutes an invariant with a state and a step (verifier/invariants.py), but an induction step
can be broken by a state no game reaches.  For every refuted check, `search` asks the compiled
engine for a game that does break the invariant:

- the games are played at the counterexample's number of players, with deterministic seeds
  (0, 1, 2, … of the search), and *steered* toward the counterexample's conditions: a policy
  prefers the moves that make the refuted rule fire (the figure it names put, a capture, a
  ransom, a figure on an outpost, a figure on the kind it scores) and, for `score-nonnegative`,
  otherwise lays tiles without figures so that scores stay low; steered and uniformly random
  games alternate;
- after every move (at the points where no player's decision is pending) the invariant is
  evaluated on the engine's own numbers (verifier/concrete.py): every score step by step through
  the scoring events (`score-nonnegative`, `score-never-decreases`), each figure's supply, board,
  outposts and prisoners (`supply-nonnegative`, `conserved-F`, `stays-F`), the `state`s
  (`award-seat-S`, declared invariants, compiled by the compiler's own expression backend);
- a game that breaks it is cut after that move and written as a `tessera-game/1` record, which
  is replayed at once (replay/tiles.py) to make sure it replays to the same state.

Within the budget (WITNESS_GAMES games per refuted rule) no such game: the verdict is *not
proved* -- z3's state breaks the induction step, but no game tried reaches it.
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..dsl.model import RuleSet

from .concrete import board_counts, snapshot, state_evaluator

WITNESS_GAMES = 60  # games per refuted rule (`tessera verify --witness-games N`)
RECORD_DIR: Path | None = None  # `tessera verify --record DIR`; None: the per-user folder of witness_dir.py
# by default the records go to a folder of this user's in the system's temporary folder (a verify run never
# litters the working folder, nor the rules' folder; no other user can reach it: verifier/witness_dir.py);
# the report prints each path, and `--record DIR` keeps them elsewhere

# which invariants a game can be caught breaking (the others are claims about one feature or a formula;
# of those, `returned-when-scored` at a `complete` scoring is seen on the board)
WITNESSABLE_KINDS = ("state", "step", "feature")


@dataclass
class Witness:
    """A game that breaks an invariant: its record, and what happens in it."""

    record: Path
    players: int
    seed: int
    policy: str
    turns: int
    what: str  # "seat p1's score goes 0 -> -2 at turn 71 (score field end, and its clause)"
    games: int  # games played to find it
    breaks: str = ""  # the invariant and the step it is the witness of: "`stays-barn` at capture a barn (own)"

    def lines(self) -> list[str]:
        of = f" of {self.breaks}" if self.breaks else ""
        how = self.policy if self.policy.startswith("beam") else f"{self.policy} moves"
        return [f"witness{of}: {self.what}; found in game {self.games} of the search ({self.players} players, "
                f"seed {self.seed}, {how})",
                f"replay it: tessera replay {self.record}",
                f"see it:    tessera view {self.record} -o {self.record.with_suffix('.html')}"]


@dataclass
class Search:
    """The outcome of a search for one refuted check."""

    witness: Witness | None
    games: int
    players: int
    note: str = ""  # why no game could be asked (no engine, a claim no game state shows)
    tried: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ monitors
def _rule_matches(rule: str, ev: dict) -> bool:
    """Whether an engine event is the refuted step's rule firing (`score field end`, `ransom a follower`,
    `on full of knights, …`, `award king at end`)."""
    k = ev.get("kind")
    if k == "score":
        if ev.get("feature") == "outpost":
            return rule.startswith(f"on {ev.get('when')} of ") and ev.get("outpost", "") in rule
        if ev.get("when") == "recall":  # `recall abbot from a garden`: that kind's recall, not a cloister's
            return rule.startswith("recall ") and rule.endswith(f" {ev.get('feature')}")
        return rule.startswith(f"score {ev.get('feature')} {ev.get('when')}")
    if k == "ransom":
        return rule.startswith(f"ransom a{'n' if ev.get('figure', '')[:1] in 'aeiou' else ''} {ev.get('figure')}")
    if k == "award":
        return rule.startswith(f"award {ev.get('award')} ") or rule.startswith(f"award most {ev.get('award')} ")
    return False


def _event_name(ev: dict) -> str:
    if ev.get("kind") == "score":
        what = f"on {ev['when']} of {ev.get('outpost')}" if ev.get("feature") == "outpost" else \
            f"score {ev.get('feature')} {ev.get('when')}"
    elif ev.get("kind") == "award":
        what = f"award {ev.get('award')} at end"
    else:
        what = f"{ev.get('kind')} of a {ev.get('figure', '')}".rstrip()
    return f"{what}, {ev.get('clause')}" if ev.get("clause") else what


class Monitor:
    """Tells whether a game breaks one invariant, and where."""

    def __init__(self, rs: RuleSet, inv, rule: str):
        self.rs, self.inv, self.rule = rs, inv, rule
        self.id = inv.id
        self.kind = None
        names = {f: i for i, f in enumerate(rs.figures)}
        if inv.id in ("score-nonnegative", "score-never-decreases"):
            self.kind = "scores"
        elif inv.id == "supply-nonnegative" or inv.id.startswith("conserved-"):
            self.kind = "figures"
        elif inv.id.startswith("stays-") and inv.id[6:] in names:
            self.kind = "stays"
            self.fig = names[inv.id[6:]]
        elif inv.id.startswith("award-seat-") and inv.id[11:] in rs.states:
            self.kind = "award"
            self.state = list(rs.states).index(inv.id[11:])
        elif inv.id == "tie-rule" and rule.startswith("score ") and len(rule.split()) >= 3:
            self.kind = "tie"  # one scoring of one feature whose owners (tied, each scoring) get different points
            self.feature, self.when = rule.split()[1], rule.split()[2]
        elif inv.id == "returned-when-scored" and rule.startswith("score ") and rule.endswith(" complete"):
            self.kind = "returned"  # a figure left on a completed feature of the rule's kind
            self.feature = rule.split()[1]
        elif inv.kind == "state":
            decl = next((d for d in rs.invariants if d.name == inv.id), None)
            if decl is not None:
                self.kind = "declared"
                self.eval = state_evaluator(rs, decl.test)
        self.last_stays: dict = {}
        # a capture step is one outcome (own, prisoner, exchange for X): its witness must be that capture
        m = re.match(r"capture an? (\w+) \((own|prisoner|exchange for an? (\w+))\)$", rule)
        self.capture = (m.group(1), "exchange" if m.group(3) else ("supply" if m.group(2) == "own" else "prisoner"),
                        m.group(3)) if m else None

    def outcome_ok(self, events: list) -> bool:
        """Whether the events of the move that broke the invariant are the refuted step's own (for a
        capture step: a capture of its figure with its outcome); any move, for other steps."""
        if self.capture is None:
            return True
        fig, to, back = self.capture
        caps = [e for e in events if e.get("kind") == "capture" and e.get("figure") == fig and e.get("to") == to]
        if to == "exchange":
            return bool(caps) and any(e.get("kind") == "exchange" and e.get("back") == back for e in events)
        return bool(caps)

    @property
    def usable(self) -> bool:
        return self.kind is not None

    def fork(self) -> "Monitor":
        """A copy for another branch of a game (a beam search's): its own memory of the board."""
        m = copy.copy(self)
        m.last_stays = dict(self.last_stays)
        return m

    def scan_scores(self, g, upto: int | None = None) -> str | None:
        """Every score, event by event from the start: a negative score (`score-nonnegative`) or a
        seat losing points (`score-never-decreases`; a ransom is the one rule allowed to)."""
        run = {n: 0 for n in g.names}
        transfer_ok = self.rs.ransom is not None
        for ev in g.events[:upto]:
            pts = ev.get("points")
            if not isinstance(pts, dict) or ev.get("kind") not in ("score", "award", "ransom"):
                continue
            for who, n in pts.items():
                before = run.get(who, 0)
                run[who] = before + n
                if not _rule_matches(self.rule, ev):
                    continue
                if self.id == "score-nonnegative" and run[who] < 0:
                    return f"{who}'s score goes {before} -> {run[who]} at turn {ev['turn']} ({_event_name(ev)})"
                if (self.id == "score-never-decreases" and n < 0
                        and not (transfer_ok and ev.get("kind") == "ransom")):
                    return f"{who}'s score goes {before} -> {run[who]} at turn {ev['turn']} ({_event_name(ev)})"
        return None

    def tie_of(self, before, a) -> str | None:
        """Play move `a` on a copy of `before` and watch each feature's scoring (the engine's `_award`: one
        feature, its owners, one event per rule): tied owners of one feature who get different points."""
        return self.tie_in(before.clone(), a)

    def tie_in(self, c, a) -> str | None:
        """Play move `a` on game `c` itself (a copy of the search's: the beam search keeps it), watching
        each feature's scoring as `tie_of` says."""
        calls: list = []
        orig = c._award

        def watched(r, kind, when, rule):
            n0 = len(c.events)
            orig(r, kind, when, rule)
            calls.append(c.events[n0:])
        c._award = watched
        try:
            type(c).apply_action(c, a)  # the engine's own move (a copy keeps no hook its game may carry)
        finally:
            del c._award  # the class's own again: a kept game carries no hook
        for evs in calls:
            evs = [e for e in evs if e.get("kind") == "score" and e.get("feature") == self.feature
                   and e.get("when") == self.when]
            pts = {who: n for e in evs for who, n in e.get("points", {}).items()}
            if len(pts) >= 2 and len(set(pts.values())) > 1:
                shown = "; ".join(f"{who} {n} ({e.get('clause')})" for e in evs for who, n in e.get("points", {}).items())
                return (f"one {self.feature} of {evs[0].get('tiles')} tiles scores its tied owners differently at turn "
                        f"{evs[0].get('turn')}: {shown}")
        return None

    def check(self, g) -> str | None:
        """Whether game g, as it stands now, breaks the invariant (a description), or None."""
        if self.kind == "tie":
            return None  # seen move by move (tie_of), with the game before the move
        if self.kind == "scores":
            return self.scan_scores(g)
        if self.kind == "figures":
            snap = snapshot(self.rs, g).values
            for p in range(g.nplayers):
                for gi, f in enumerate(g.R.FIGURES):
                    parts = {k: snap.get(f"{k}[{p}].{f.name}", 0) for k in ("supply", "board", "held", "outpost")}
                    if self.id == "supply-nonnegative":
                        bad = [k for k, n in parts.items() if n < 0]
                        if bad:
                            return f"{g.names[p]}'s {bad[0]} of {f.name}s is {parts[bad[0]]} at turn {g.turn}"
                    elif self.id == f"conserved-{f.name}":
                        have, want = sum(parts.values()), f.count_for(g.nplayers)
                        if have != want:
                            shown = " + ".join(f"{k} {n}" for k, n in parts.items() if k in snap_keys(self.rs))
                            return (f"{g.names[p]} has {have} {f.name}s ({shown}) at turn {g.turn}, "
                                    f"the rules give {want}")
            return None
        if self.kind == "stays":
            now = board_counts(g)
            drop = None
            for p in range(g.nplayers):  # every seat's count is remembered, the drop seen or not: a game
                n = now.get((p, self.fig), 0)  # played on past another step's break reports only its own
                was = self.last_stays.get(p, 0)
                if n < was and drop is None:
                    # the turn of the move's own event (a capture, a return): g.turn may be the next one
                    last = g.events[-1].get("turn") if g.events else None
                    drop = (f"{g.names[p]}'s {self.inv.id[6:]}s on the board go {was} -> {n} at turn "
                            f"{last if isinstance(last, int) else g.turn}")
                self.last_stays[p] = n
            return drop
        if self.kind == "returned":
            R = g.R
            corner = set(getattr(R, "FIG_CORNER", ()))
            for r, fs in enumerate(g.board.figs):
                if fs and g.board.parent[r] == r and g.board.done[r] and R.KINDS[g.board.seg_kind[r]].name == self.feature:
                    left = [(p, gi) for p, gi, _ in fs if gi not in corner]
                    if left:
                        p, gi = left[0]
                        x, y = g.board.seg_cell[r]
                        return (f"{g.names[p]}'s {R.FIGURES[gi].name} stays on the completed {self.feature} at "
                                f"[{x},{y}] after turn {g.turn}")
            return None
        if self.kind == "award":
            v = g.st[self.state]
            if not (-1 <= v < g.nplayers):
                return f"`{self.inv.id[11:]}` is {v} at turn {g.turn}, not a seat of the game nor -1"
            return None
        if self.kind == "declared":
            try:
                ok = bool(self.eval(g))
            except Exception:  # a value the expression cannot take in this game
                return None
            if not ok:
                shown = ", ".join(f"{n}={g.st[i]}" for i, n in enumerate(self.rs.states))
                return f"`{self.inv.id}` is false at turn {g.turn} ({shown or 'no states'})"
        return None


def snap_keys(rs: RuleSet) -> tuple:
    return ("supply", "board") + (("held",) if rs.captures else ()) + (("outpost",) if rs.tracks else ())


# ------------------------------------------------------------------ steering
def _focus(rs: RuleSet, check) -> tuple[set, set, set]:
    """What the refuted rule is about: the figures its line names, the feature kinds its label names,
    the kinds of action (`ransom`, `capture`, `outpost`) that make it fire."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f"{check.rule} {check.text}"))
    figs = {f for f in rs.figures if f in words}
    kinds = {k for k in rs.features if k in check.rule.split()}
    acts = set()
    if check.rule.startswith("ransom"):
        acts |= {"ransom", "capture"}
    if check.rule.startswith("capture"):
        acts.add("capture")
    if check.rule.startswith("on ") and rs.tracks or "outpost" in check.rule:
        acts.add("outpost")
    m = re.match(r"capture an? (\w+) \((own|prisoner|exchange for an? (\w+))\)$", check.rule)
    outcome = (m.group(1), "exchange" if m.group(3) else ("supply" if m.group(2) == "own" else "prisoner"),
               m.group(3)) if m else None
    if outcome is not None:
        figs = {outcome[0]} | ({outcome[2]} if outcome[2] else set())
    return figs, kinds, acts, outcome, check.invariant.id == "tie-rule"


class Policy:
    """How one search game chooses its moves: uniformly at random, or *steered*: the moves that make
    the refuted rule fire first (4 in 5), otherwise at random or, *lean*, a tile without a figure
    (scores stay low); with *others abstain*, only seat 0 makes such moves (the others keep out, as
    a seat with nothing on the feature or outpost in z3's state does)."""

    def __init__(self, g, rs: RuleSet, focus, rng: random.Random, name: str):
        self.figs = {i for i, f in enumerate(g.R.FIGURES) if f.name in focus[0]}
        self.kinds = {i for i, k in enumerate(g.R.KINDS) if k[0] in focus[1]}
        self.acts = focus[2]
        self.rng, self.name = rng, name
        self.lean = "lean" in name
        self.abstain = "abstain" in name
        self.capture = focus[3] if len(focus) > 3 else None  # (figure, outcome, back) of a capture step
        self.tie = len(focus) > 4 and focus[4]  # the tie-rule: figures of several players on one feature

    def _capture_fits(self, g, a) -> bool:
        fig, to, back = self.capture
        p = g.prisoners.pending.player if g.prisoners.pending else g.current_player()
        if to == "exchange" and g.R.FIGURES[a.figure].name == back and a.owner != p and a.back is None:
            return True  # an exchange for a `back` needs a `back` held as a prisoner first (TOWER-SWAP-1)
        if g.R.FIGURES[a.figure].name != fig:
            return False
        if to == "supply":
            return a.owner == p
        if to == "prisoner":
            return a.owner != p and a.back is None
        return a.owner != p and a.back is not None and g.R.FIGURES[a.back].name == back

    def wanted(self, g, a) -> bool:
        """Whether move a (a typed move, runtime/moves.py: read by kind and field) serves the focus."""
        kind = a.KIND
        if kind == "capture" and self.capture is not None:
            try:
                return self._capture_fits(g, a)
            except Exception:  # a capture move of another shape: any capture serves
                return True
        if kind in self.acts:
            return True
        if kind != "place":  # an outpost, capture, ransom, pass, discard, catapult or removal not asked for
            return False
        fig = a.figure
        if fig is None or fig.KIND in ("recall", "at"):
            return False
        gi = fig.figure
        on_kind = None
        if self.kinds:
            o = g.orientation(a.rotation)
            fi = fig.feature
            on_kind = 0 <= fi < len(o.kinds) and o.kinds[fi] in self.kinds
        if gi in self.figs and on_kind is not False:
            return True
        if self.kinds and (not self.figs or self.tie):  # a tie: any figure on the kind (the others share it)
            return bool(on_kind)
        if "outpost" in self.acts:  # a figure put makes an outpost put possible
            return True
        return False

    def choose(self, g, acts):
        rng = self.rng
        if self.name == "random":
            return acts[rng.randrange(len(acts))]
        focus = [a for a in acts if self.wanted(g, a)]
        if self.abstain and g.current_player() != 0:
            rest = [a for a in acts if a not in focus]
            return (rest or acts)[rng.randrange(len(rest or acts))]
        if focus and rng.random() < 0.8:
            return focus[rng.randrange(len(focus))]
        if self.lean:
            plain = [a for a in acts if a.KIND == "place" and a.figure is None] or [a for a in acts if a.KIND == "pass"]
            if plain:
                return plain[rng.randrange(len(plain))]
        return acts[rng.randrange(len(acts))]


# ------------------------------------------------------------------ the search
def record_rules(rs: RuleSet, record_dir: Path) -> list[str]:
    """The rules of `rs` as a record names them: bundled modules by name, every other rule file read
    copied beside the record and named by its file name (tessera.replay.records.rule_paths_for: a replay
    takes rule files from the record's own folder only)."""
    from ..replay.records import rule_paths_for
    from ..dsl.loader import BUNDLED_RULES, _inside

    specs, files = [], []
    for m in rs.modules:
        f = Path(m.file) if getattr(m, "file", "") else None
        if f is not None and f.exists() and not _inside(f, BUNDLED_RULES):
            specs.append(str(f))
            files.append(str(f))
        else:
            specs.append(m.name)
    return rule_paths_for(record_dir, list(dict.fromkeys(specs)), list(dict.fromkeys(files)))


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-")[:60] or "x"


def search(rs: RuleSet, check, games: int | None = None, record_dir: Path | None = None, eng=None) -> Search:
    """Look for a game of the compiled engine that breaks `check` (a refuted invariants.Check)."""
    from ..compiler.build import load_engine
    from ..replay.turns import Recorder

    games = WITNESS_GAMES if games is None else games
    model = check.result.model
    lo, hi = rs.player_range()
    players = model.get("players")
    players = players if isinstance(players, int) and lo <= players <= hi else max(lo, min(2, hi))
    # the first half of the budget at z3's number of players, then the other numbers in turn
    others = [n for n in range(lo, min(hi, 6) + 1) if n != players]
    mon = Monitor(rs, check.invariant, check.rule)
    if check.invariant.kind not in WITNESSABLE_KINDS or not mon.usable:
        return Search(None, 0, players, note=f"`{check.invariant.id}` is a claim about one scored feature or a "
                                             f"formula, which no game state shows")
    if not rs.tiles:
        return Search(None, 0, players, note="these rules have no tiles: there is no game to play")
    eng = eng or load_engine(rs)
    focus = _focus(rs, check)
    policies = ["steered, lean", "steered, others abstain", "steered", "random"] \
        if check.invariant.id == "score-nonnegative" else \
        ["steered", "steered, others abstain", "random", "steered, lean"]
    for k in range(games):
        seed = k // len(policies)
        pname = policies[k % len(policies)]
        n = players if k < (games + 1) // 2 or not others else others[(k - (games + 1) // 2) % len(others)]
        g = eng.new_game(n, seed)
        rng = random.Random(seed * 7919 + 17 + 1000 * (k % len(policies)))
        pol = Policy(g, rs, focus, rng, pname)
        mon = Monitor(rs, check.invariant, check.rule)
        turns: list = []
        rec = Recorder(turns)
        found = None
        pending_ransom = False
        mark = 0  # the events since the last moment checked: the move that breaks the invariant
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            a = pol.choose(g, acts)
            rec(g, a)
            if mon.kind == "tie" and found is None:
                found = mon.tie_of(g, a)
            g.apply_action(a)
            if found is not None and mon.kind == "tie":
                if g.prisoners.pending is not None or g.outposts.decision is not None:
                    continue
                break
            if a.KIND != "ransom" and pending_ransom:
                pending_ransom = False
            if g.prisoners.pending is not None or g.outposts.decision is not None:
                continue  # a decision of this turn is still to come
            if found is None:
                found = mon.check(g)
                if found is not None and not mon.outcome_ok(g.events[mark:]):
                    found = None  # broken, but by another step than the refuted one: not its witness
                    if mon.kind != "stays":
                        break
                    # a figure's count on the board is watched move by move (the monitor remembers it):
                    # play on, for the refuted step may come later (an exchange needs a prisoner first)
                mark = len(g.events)
                if found is not None and a.KIND == "ransom":
                    pending_ransom = True  # a record writes a ransom with the next turn's tile: play on to it
                    continue
            if found is not None and not pending_ransom:
                break
        if found is None and g.ended:
            found = mon.check(g)
        if not _spend_moves(len(g.history)):  # the verify budget (verifier/budget.py): spent, no pass either
            return Search(None, k + 1, players, note=_budget_note())
        if found is None:
            continue
        path = _write(rs, check, n, seed, turns, g.ended, record_dir)
        replayed = _replays(path, g)
        if not replayed:
            path.unlink(missing_ok=True)
            continue
        return Search(Witness(path, n, seed, pname, len(turns), found, k + 1,
                              f"`{check.invariant.id}` at {check.rule}"), k + 1, players)
    # no game of the search broke it: a beam search guided by z3's state before saying "not proved"
    got = beam_search(rs, check, eng, players, focus, games)
    if got is not None:
        return got
    return Search(None, games, players, note=(
        f"{games} games of the compiled engine (half of them with {players} players, steered toward this rule; "
        f"`tessera verify --witness-games N` plays more) and a beam search toward z3's state ({BEAM_WIDTH} games "
        f"kept at each move, {BEAM_SEEDS} deck orders, at most {BEAM_MOVES:,} moves) never broke it"))


# ------------------------------------------------------------------ the beam search toward z3's state
BEAM_WIDTH = 8  # games kept at each move
BEAM_BRANCH = 4  # moves tried from each
BEAM_MOVES = 40_000  # engine moves per refuted step, at most (the verify budget's moves, when it has one)
BEAM_SEEDS = 12  # deck orders tried, at most


def _spend_moves(n: int) -> bool:
    """Charge n engine moves to the rule set's verify budget (verifier/budget.py, when there is one):
    False once it is spent."""
    try:
        from .budget import current
    except ImportError:  # no shared budget: the search keeps to its own count (BEAM_MOVES)
        return True
    return current().spend_moves(n) is not False


def _primed(k: str) -> str:
    return k.replace("[", "'[", 1) if "[" in k else k + "'"


def feature_distance(model: dict, g, kinds: set) -> float | None:
    """How far game g's nearest open feature (of the refuted rule's kinds) stands from z3's feature:
    2 per figure z3 has there (per seat and figure: `on_feature[p].F`) that the feature has not, or has
    over, and 0.25 per open edge (z3's feature is the one the step scores, so it closes).  None when
    z3's state speaks of no figure on a feature."""
    want: dict = {}
    for k, v in model.items():
        m = re.fullmatch(r"on_feature\[(\d+)\]\.(\w+)", k)
        if m and isinstance(v, int) and not isinstance(v, bool) and v > 0:
            want[(int(m.group(1)), m.group(2))] = v
    if not want:
        return None
    R = g.R
    names = [f.name for f in R.FIGURES]
    of_kind = {i for i, k in enumerate(R.KINDS) if not kinds or k[0] in kinds}
    best = 2.0 * sum(want.values()) + 1.0  # no feature of the kind with a figure yet
    parent, done, seg_kind, opens = g.board.parent, g.board.done, g.board.seg_kind, g.board.open
    n = g.nplayers
    seatings = list(itertools.permutations(range(n))) if n <= 3 else [tuple(range(n))]
    for r, fs in enumerate(g.board.figs):
        if not fs or parent[r] != r or done[r] or seg_kind[r] not in of_kind:
            continue
        have: dict = {}
        for p, gi, _ in fs:
            have[(p, names[gi])] = have.get((p, names[gi]), 0) + 1
        for perm in seatings:  # z3's seats are any seats of the game: its seat 0 may be the game's seat 1
            d = 2.0 * sum(abs(have.get((perm[p], f), 0) - want.get((p, f), 0))
                          for p, f in {(perm.index(q), f) for q, f in have} | set(want)) + 0.25 * opens[r]
            best = min(best, d)
    return best


def distance(rs: RuleSet, model: dict, g, feature_kinds: set | None = None) -> float:
    """How far game g stands from z3's state before the refuted step: its scores (3 per point on a seat
    the step changes, 0.5 on the others), its states and completions (1 per unit), a figure z3 has on
    the board that the seat has not (2), the supplies the step changes (0.25 per figure).  For a claim
    about one scored feature (`feature_kinds` given: the refuted rule's kinds), the seats' totals in
    z3's state are any that fit, so only the feature counts: `feature_distance`."""
    if feature_kinds is not None:
        fd = feature_distance(model, g, feature_kinds)
        if fd is not None:
            return fd
    snap = snapshot(rs, g).values
    d = 0.0
    for k, v in model.items():
        if not isinstance(v, int) or isinstance(v, bool) or "'" in k or k not in snap:
            continue
        now = snap[k]
        changed = model.get(_primed(k)) not in (None, v)
        if k.startswith("score["):
            d += (3.0 if changed else 0.5) * abs(now - v)
        elif k.startswith("board["):
            d += 2.0 if v > 0 and now == 0 else 0.0
        elif k.startswith(("supply[", "held[", "outpost[")):
            d += 0.25 * abs(now - v) if changed else 0.0
        else:
            d += abs(now - v)
    return d


def beam_search(rs: RuleSet, check, eng, players: int, focus, before: int = 0) -> Search | None:
    """Games kept close to z3's state: from each of BEAM_WIDTH games, BEAM_BRANCH moves (the steered
    policy's and random ones) are tried; every child is checked for the violation (the refuted step's
    own) and the BEAM_WIDTH nearest to z3's state (`distance`) go on.  Deterministic: fixed seeds, ties
    broken by a seeded generator.  A child that breaks the invariant is replayed from the start with
    its moves, written and replayed as a record."""
    model = check.result.model
    spent = 0
    per_feature = focus[1] if check.invariant.kind == "feature" else None  # the rule's kinds (a tie, a return)
    for seed in range(BEAM_SEEDS):
        if spent >= BEAM_MOVES:
            break
        rng = random.Random(7_777 + seed)
        g0 = eng.new_game(players, seed)
        pol = Policy(g0, rs, focus, rng, "steered")
        beam = [(0.0, 0.0, g0, [], Monitor(rs, check.invariant, check.rule))]
        while beam and spent < BEAM_MOVES:
            children = []
            for _, _, g, moves, mon in beam:
                acts = g.legal_actions()
                if not acts:
                    continue
                picks = []
                for _ in range(BEAM_BRANCH * 2):
                    a = pol.choose(g, acts) if len(picks) % 2 == 0 else acts[rng.randrange(len(acts))]
                    if a not in picks:
                        picks.append(a)
                    if len(picks) == BEAM_BRANCH:
                        break
                for a in picks:
                    c, m2, mark = g.clone(), mon.fork(), len(g.events)
                    tie = m2.tie_in(c, a) if m2.kind == "tie" else None  # a scoring seen as it happens
                    if m2.kind != "tie":
                        c.apply_action(a)
                    spent += 1
                    if tie is not None:
                        return _beam_witness(rs, check, eng, players, seed, moves + [a], tie, spent, before)
                    if c.prisoners.pending is None and c.outposts.decision is None and a.KIND != "ransom":
                        found = m2.check(c)
                        if found is not None and m2.outcome_ok(c.events[mark:]):
                            return _beam_witness(rs, check, eng, players, seed, moves + [a], found, spent, before)
                    if not c.ended:
                        children.append((distance(rs, model, c, per_feature), rng.random(), c, moves + [a], m2))
            if not _spend_moves(len(children) or 1):
                return Search(None, 0, players, note=_budget_note())
            children.sort(key=lambda x: (x[0], x[1]))
            beam = children[:BEAM_WIDTH]
    return None


def _budget_note() -> str:
    try:
        from .budget import current

        return f"the search was cut short: {current().reason()}"
    except ImportError:
        return "the search was cut short by the verify budget"


def _beam_witness(rs, check, eng, players, seed, moves, found, spent, before) -> Search | None:
    from ..replay.turns import Recorder

    g = eng.new_game(players, seed)
    turns: list = []
    rec = Recorder(turns)
    for a in moves:
        rec(g, a)
        g.apply_action(a)
    while not g.ended and (g.prisoners.pending is not None or g.outposts.decision is not None):
        acts = g.legal_actions()  # the turn's decisions still open: the first of each, so the record ends a turn
        if not acts:
            break
        rec(g, acts[0])
        g.apply_action(acts[0])
    path = _write(rs, check, players, seed, turns, g.ended, None)
    if not _replays(path, g):
        path.unlink(missing_ok=True)
        return None
    w = Witness(path, players, seed, f"beam search toward z3's state after the {before} games, {spent:,} moves "
                                     f"tried", len(turns), found, before + 1, f"`{check.invariant.id}` at {check.rule}")
    return Search(w, before + 1, players)


def _record_folder(record_dir: Path | None) -> Path:
    """Where a witness record goes: `--record DIR` (a folder tessera made or may claim), else the user's own
    private witness folder (witness_dir.py: mode 0700, owner and links checked)."""
    from ..compiler.outdir import claim_record_folder

    from .witness_dir import witness_folder

    d = record_dir or RECORD_DIR
    return witness_folder().path if d is None else claim_record_folder(d)


def _write(rs: RuleSet, check, players: int, seed: int, turns: list, ended: bool, record_dir: Path | None) -> Path:
    from ..replay.records import game_record, write_record

    d = _record_folder(record_dir)
    # one file per refutation: the invariant and the step it breaks (the slug may cut a long rule; the
    # digest of the whole label keeps two refutations from sharing a file)
    label = f"{check.invariant.id}|{check.rule}|{getattr(check, 'span', None) or ''}"
    digest = hashlib.sha256(label.encode()).hexdigest()[:8]
    path = d / f"{_slug('+'.join(rs.names))}--{_slug(check.invariant.id)}--{_slug(check.rule)}--{digest}.json"
    write_record(path, game_record(record_rules(rs, d), [f"p{i}" for i in range(players)], seed, turns,
                                   "final" if ended else "none"))
    return path


def _replays(path: Path, g) -> bool:
    """The record replays without an illegal turn to the state the search saw (scores, supplies)."""
    from ..replay.records import load_record
    from ..replay.tiles import replay

    try:
        res = replay(load_record(path), path.parent)
    except Exception:
        return False
    r = res.game
    # the states and completion counts too: a declared invariant reads them, and a record that replays to
    # others does not show what the search saw (a garden copy completed without a figure: the record names
    # the tile only, and the replay lays a plain copy; docs/records.md "Garden variants"; FINDINGS2.md F4)
    return (res.error is None and list(r.scores) == list(g.scores)
            and [list(s) for s in r.supply.left] == [list(s) for s in g.supply.left]
            and list(getattr(r, "st", [])) == list(getattr(g, "st", []))
            and list(getattr(getattr(r, "board", None), "completed_count", [])) == list(getattr(getattr(g, "board", None), "completed_count", [])))


def search_all(rs: RuleSet, checks: list) -> dict:
    """A witness search for every refuted check: {id(check): Search}.  The engine is compiled once."""
    refuted = [c for c in checks if c.result.refuted]
    if not refuted:
        return {}
    eng = None
    out: dict = {}
    for c in refuted:
        if eng is None and rs.tiles:
            try:
                from ..compiler.build import load_engine

                eng = load_engine(rs)
            except Exception as exc:  # rules the engine cannot be built from: no game to ask
                for c2 in refuted:
                    out[id(c2)] = Search(None, 0, 0, note=f"the engine could not be built ({type(exc).__name__}: {exc})")
                return out
        try:
            out[id(c)] = search(rs, c, eng=eng)
        except Exception as exc:  # a rule that crashes the engine: said, never a pass nor a refutation
            out[id(c)] = Search(None, 0, 0, note=f"the engine failed while playing ({type(exc).__name__}: {exc})")
    return out


# ------------------------------------------------------------------ the river theorem's witnesses
@dataclass
class RiverWitness:
    """An engine game that follows z3's river: its record and what it shows (a discarded tile)."""

    record: Path
    players: int
    what: str
    turns: int

    def lines(self) -> list[str]:
        return [f"witness: {self.what} ({self.players} players, {self.turns} record turns)",
                f"replay it: tessera replay {self.record}",
                f"see it:    tessera view {self.record} -o {self.record.with_suffix('.html')}"]


def _river_sides(rs: RuleSet, kind: str) -> dict[str, set]:
    """Every tile's river sides at rotation 0 (a tile of several variants: the first's)."""
    from ..dsl.places import SIDES

    out: dict[str, set] = {}
    for tt in rs.tiles:
        if tt.cells is None and tt.name not in out:
            out[tt.name] = {p for f in tt.features if f.kind == kind for p in f.places if p in SIDES}
    return out


def _shape(sides: set) -> str:
    from ..dsl.places import OPPOSITE

    if len(sides) == 1:
        return "end"
    if len(sides) == 2:
        a, b = sorted(sides)
        return "straight" if OPPOSITE[a] == b else "curve"
    return ""


def river_search(rs: RuleSet, prop: str, placed: list, final: str | None, players: int | None,
                 record_dir: Path | None = None, eng=None) -> Search:
    """A game of the compiled engine that lays the river as z3's sequence does (`placed[1:]`: each
    tile's turn, cell and the heading it leaves by; the first entry is the start) and then, when
    `final` names a shape ("straight", "curve", "lake" or "any"), draws such a tile at the open end
    and finds it can only be discarded (BASE-PLACE-3): the river blocked.  With `final` None the
    game ends after the last tile laid (a river that flows back: the record shows it).  The record
    is replayed at once; a game the engine does not follow is no witness (Search.note says why)."""
    from ..compiler.build import load_engine
    from ..replay.turns import Recorder, deal
    from ..dsl.places import rotate

    lo, hi = rs.player_range()
    n = players if isinstance(players, int) and lo <= players <= hi else lo
    kind = rs.placement["continues"].arg
    sides = _river_sides(rs, kind)
    eng = eng or load_engine(rs)
    R = eng.rules
    g = eng.new_game(n, 0)
    turns: list = []
    rec = Recorder(turns)

    def candidates(shape: str):
        deck = next((d for d in g.bag.decks if d), [])
        seen, out = set(), []
        for tid in sorted(set(deck) | ({g.bag.drawn} if g.bag.drawn is not None else set())):
            name = R.TILES[tid].name
            s = sides.get(name, set())
            ok = (shape == "any" and s) or (shape == "lake" and _shape(s) == "end") or _shape(s) == shape
            if ok and tid not in seen:
                seen.add(tid)
                out.append(tid)
        return out

    def drawn(tid):
        """A copy of the game with tile tid drawn and its siege decisions taken (the first offered: a
        catapult's outpost), the decisions as moves, and the tile's moves."""
        c = g.clone()
        deal(c, tid)
        pre = []
        acts = c.legal_actions()
        while acts and not any(a.KIND in ("place", "discard") for a in acts):
            pre.append(acts[0])
            rec_moves.append((c.clone(), acts[0]))
            c.apply_action(acts[0])
            acts = c.legal_actions()
        return c, pre, acts

    def take(c, pre, move):
        """Go on with copy c: record its siege decisions and the tile's move, then play the move."""
        nonlocal g
        for before, a in rec_moves[-len(pre):] if pre else []:
            rec(before, a)
        rec(c, move)
        c.apply_action(move)
        g = c

    rec_moves: list = []

    def discard_one(shape: str) -> bool:
        """Draw a river tile of `shape` that the engine can only discard, and discard it."""
        for tid in candidates(shape):
            c, pre, acts = drawn(tid)
            if acts and all(a.KIND == "discard" for a in acts):
                take(c, pre, acts[0])
                return True
        return False

    for p in placed[1:]:
        shape = "lake" if _shape(sides.get(p.tile, set())) == "end" else ("curve" if p.turn else "straight")
        move = None
        for tid in candidates(shape):
            c, pre, acts = drawn(tid)
            rot_sides = lambda a: {rotate(s, a.rotation) for s in sides.get(R.TILES[tid].name, set())}  # noqa: E731
            move = next((a for a in acts if a.KIND == "place" and a.figure is None
                         and tuple(a.cell) == tuple(p.cell) and p.heading in rot_sides(a)), None)
            if move is not None:
                break
        if move is not None:
            take(c, pre, move)
            continue
        if move is None:
            # the tile z3 lays here does not fit the board (its other edges against what it borders):
            # the river is blocked one tile early if some river tile can only be discarded here
            if not discard_one("any"):
                return Search(None, 1, n, note=f"the engine lays no {shape} river tile at {p.cell} leaving {p.heading} "
                                               f"after {len(turns)} tiles, as z3's sequence does")
            final = "early"
            break
    what = ""
    if final is not None:
        if final != "early" and not discard_one(final):
            return Search(None, 1, n, note=f"after z3's {len(turns)} tiles the engine still lays every "
                                           f"{final} river tile it may draw (the open end: "
                                           f"{placed[-1].cell if placed else '?'})")
        name = R.TILES[g.history[-1][0]].name
        laid = len(turns) - 1
        what = (f"after {laid} river tile{'' if laid == 1 else 's'} laid as z3's sequence"
                f"{' goes' if final == 'early' else ''}, "
                f"{name} is drawn and fits nowhere: it is discarded at turn {len(turns)} [{R.CLAUSE_DISCARD}]"
                + (f" (z3's river {prop} at tile {len(placed) - 1}; the engine's is blocked before it, its other "
                   f"edges meeting what it borders)" if final == "early" and prop != "is blocked" else ""))
    else:
        last = placed[-1]
        what = f"river tile {len(turns)} ({last.tile}) at {list(last.cell)} leaves by {last.heading}: the river {prop}"
    d = _record_folder(record_dir)
    path = d / f"{_slug('+'.join(rs.names))}--river--{_slug(prop)}.json"
    from ..replay.records import game_record, write_record

    write_record(path, game_record(record_rules(rs, d), [f"p{i}" for i in range(n)], 0, turns, "none"))
    if not _replays(path, g) or (final is not None and not _discards(path)):
        path.unlink(missing_ok=True)
        return Search(None, 1, n, note="the engine's game did not replay to the same board")
    return Search(RiverWitness(path, n, what, len(turns)), 1, n)


def _discards(path: Path) -> bool:
    """The record's replay shows its last turn's tile discarded."""
    from ..replay.records import load_record
    from ..replay.tiles import replay

    res = replay(load_record(path), path.parent)
    return any(e.get("kind") == "discard" for e in res.game.events)


# ------------------------------------------------------------------ the card game's witnesses
@dataclass
class CardWitness:
    record: Path
    players: int
    seed: int
    policy: str
    what: str
    games: int

    def lines(self) -> list[str]:
        return [f"witness: {self.what}; found in game {self.games} of the search ({self.players} players, "
                f"seed {self.seed}, {self.policy} moves)",
                f"replay it: tessera replay {self.record}",
                f"see it:    tessera view {self.record} -o {self.record.with_suffix('.html')}"]


def _card_choose(g, acts, rng: random.Random, policy: str):
    """A card game's move: uniformly at random, or *claiming* (a claim whenever one is offered: many
    small takes), or *hoarding* (plays first, claims when nothing else is left: few big takes)."""
    if policy != "random":
        claims = [a for a in acts if a[0] == "claim"]
        other = [a for a in acts if a[0] != "claim"]
        pick = claims if policy == "claiming" else other
        if pick and rng.random() < 0.85:
            return pick[rng.randrange(len(pick))]
    return acts[rng.randrange(len(acts))]


def _card_engine(rs: RuleSet):
    from ..compiler.build import load_engine

    return load_engine(rs)


def _card_seats(rs: RuleSet, players: int | None, games: int, k: int) -> tuple[int, int]:
    """The player count asked for (or the rule set's fewest), and the count of search game k: the
    first half of the games at the asked count, the rest at each other count in turn."""
    lo, hi = rs.player_range()
    first = players if isinstance(players, int) and lo <= players <= hi else lo
    others = [n for n in range(lo, hi + 1) if n != first]
    return first, (first if k < (games + 1) // 2 or not others else others[(k - (games + 1) // 2) % len(others)])


CARD_POLICIES = ("random", "claiming", "hoarding")


def _card_games(rs: RuleSet, eng, players: int | None, games: int, salt: int):
    """The witness search's card games, each new: (k, players, seed, policy, game, its random stream)."""
    for k in range(games):
        seed, pname = k // len(CARD_POLICIES), CARD_POLICIES[k % len(CARD_POLICIES)]
        _, n = _card_seats(rs, players, games, k)
        yield k, n, seed, pname, eng.new_game(n, seed), random.Random(seed * 7919 + salt + 1000 * (k % len(CARD_POLICIES)))


def _write_card(rs: RuleSet, record_dir: Path | None, what: str, g, turns: list) -> Path:
    """A card witness as a tessera-cards/1 record, named by the rule set and what it breaks."""
    from ..replay.cards import card_record
    from ..replay.records import write_record

    d = _record_folder(record_dir)
    path = d / f"{_slug('+'.join(rs.names))}--{what}.json"
    write_record(path, card_record(record_rules(rs, d), g, turns, "final" if g.ended else "none"))
    return path


def card_search(rs: RuleSet, feature: str, when: str, players: int | None, label: str,
                games: int | None = None, record_dir: Path | None = None, eng=None) -> Search:
    """A card game of the compiled engine in which the scoring `feature` (`when`: take or end; the
    misplaced card's 10 is feature "misplaced") gives a player fewer than 0 points, so that player's
    score goes down (CARD-SCORE-1): written as a tessera-cards/1 record (the deck as dealt and every
    move) and replayed at once to the same scores."""
    games = WITNESS_GAMES if games is None else games
    first, _ = _card_seats(rs, players, games, 0)
    eng = eng or _card_engine(rs)
    for k, n, seed, pname, g, rng in _card_games(rs, eng, players, games, 29):
        turns: list = []
        found = None
        seen = 0
        while not g.ended and found is None:
            acts = g.legal_actions()
            if not acts:
                break
            a = _card_choose(g, acts, rng, pname)
            turns.append(g.record_of(a))
            g.apply_action(a)
            found, seen = _card_negative(g, feature, when, seen)
        if found is None and not g.ended:
            g.finish()
        if found is None:
            found, seen = _card_negative(g, feature, when, seen)
        if not _spend_moves(len(turns)):  # the verify budget (verifier/budget.py): spent, no pass either
            return Search(None, k + 1, first, note=_budget_note())
        if found is None:
            continue
        path = _write_card(rs, record_dir, f"card-scores--{_slug(label)}", g, turns)
        if not _card_replays(path, g):
            path.unlink(missing_ok=True)
            continue
        return Search(CardWitness(path, n, seed, pname, found, k + 1), k + 1, first)
    return Search(None, games, first)


def card_lost(g, printed: list) -> str | None:
    """Whether a card game of the compiled engine, as it stands, has lost or made a card (CARD-COMP-1):
    the cards found in its containers are not the printed ones each once, or its own count of each
    location differs from a recount of those containers."""
    found, mine = card_recount(g)
    if found != printed:
        return f"{len(found)} cards are found in the deck, rows, hands, piles, chests and box, not the {len(printed)} printed ones each once"
    if g.locations() != mine:
        return f"the engine counts {g.locations()}, a recount of its containers {mine}"
    return None


def card_recount(g) -> tuple[list, dict]:
    """A card game's cards as its containers hold them: every card found (sorted), and how many each
    location holds, in the shape of the engine's own count (`g.locations()`), so the two compare."""
    cards = g.all_cards()
    players = g.nplayers if hasattr(g, "nplayers") else len(g.names)
    mine = {"deck": len(cards["deck"]), "rows": {r: len(cards[f"row:{r}"]) for r in g.rows},
            "hands": {g.names[p]: len(cards[f"hand:{p}"]) for p in range(players)},
            "piles": {g.names[p]: len(cards[f"pile:{p}"]) for p in range(players)},
            "chests": {g.names[p]: len(cards[f"chest:{p}"]) for p in range(players)},
            "removed": len(cards["removed"])}
    return sorted(c for cs in cards.values() for c in cs), mine


def card_conservation_search(rs: RuleSet, move: str, players: int | None, games: int | None = None,
                             record_dir: Path | None = None, eng=None) -> Search:
    """A card game of the compiled engine that loses or makes a card (`card_lost`), for a z3 refutation
    of card-conservation at `move`: written as a tessera-cards/1 record and replayed at once to the same
    cards.  None found: the refutation is *not proved* (z3's state of the move is reached by no game)."""
    games = WITNESS_GAMES if games is None else games
    first, _ = _card_seats(rs, players, games, 0)
    eng = eng or _card_engine(rs)
    printed = sorted(n for n, spec in eng.rules.CARDS for _ in range(spec[3]))
    for k, n, seed, pname, g, rng in _card_games(rs, eng, players, games, 31):
        turns: list = []
        found = card_lost(g, printed)
        while not g.ended and found is None:
            acts = g.legal_actions()
            if not acts:
                break
            a = _card_choose(g, acts, rng, pname)
            turns.append(g.record_of(a))
            g.apply_action(a)
            found = card_lost(g, printed)
        if not _spend_moves(len(turns)):  # the verify budget (verifier/budget.py): spent, no pass either
            return Search(None, k + 1, first, note=_budget_note())
        if found is None:
            continue
        path = _write_card(rs, record_dir, f"card-conservation--{_slug(move)}", g, turns)
        try:
            shown = _card_replays(path, g) and card_lost(_card_replayed(path), printed) is not None
        except Exception:  # a record the replay refuses: no witness
            shown = False
        if not shown:
            path.unlink(missing_ok=True)  # the record does not replay to the lost card: not a witness
            continue
        return Search(CardWitness(path, n, seed, pname, f"after move {len(turns)}: {found}", k + 1), k + 1, first)
    return Search(None, games, first, note=f"{games} card games of the compiled engine ({first} players first, then "
                                            f"the others) never lost nor made a card")


def _card_replayed(path: Path):
    from ..replay.records import load_record
    from ..replay.tiles import replay

    return replay(load_record(path), path.parent).game


def _card_negative(g, feature: str, when: str, seen: int):
    """The first scoring event (from `seen` on) of `feature` that gives fewer than 0 points, with the
    player's score before and after it."""
    if len(g.events) == seen:
        return None, seen
    run: dict = {}
    for i, ev in enumerate(g.events):
        if ev.get("kind") != "score":
            continue
        for who, pts in ev.get("points", {}).items():
            before = run.get(who, 0)
            run[who] = before + pts
            if i >= seen and pts < 0 and ev.get("feature") == feature and ev.get("when") == when:
                return (f"{who}'s score goes {before} -> {run[who]} in round {ev.get('round')} "
                        f"({feature} on {when}, {ev.get('clause')})"), len(g.events)
    return None, len(g.events)


def _card_replays(path: Path, g) -> bool:
    from ..replay.records import load_record
    from ..replay.tiles import replay

    try:
        res = replay(load_record(path), path.parent)
    except Exception:
        return False
    return res.error is None and list(res.game.scores) == list(g.scores)


# ------------------------------------------------------------------ the river laid by the engine
RIVER_DIVES = 12  # random river layings tried after the shallow layings (the count the verify budget will route)
RIVER_DEPTH = 2  # every laying of this many river tiles is tried


def river_blocked(rs: RuleSet, eng=None, record_dir: Path | None = None) -> Search:
    """Lay the river with the compiled engine, as the rules let it be laid: every laying of its first
    RIVER_DEPTH tiles (every tile type the river deck holds, every placement the engine offers), then
    RIVER_DIVES random layings to the lake; at each step every tile type that could be drawn next is
    tried.  A drawn river tile the engine can only discard (BASE-PLACE-3) is a blocked river, whatever
    the cause: a turn the rule refuses, or the tile's other edges against what it borders (a fortress,
    an earlier tile).  Found: a record of that game ending in the discard.  Deterministic."""
    from ..compiler.build import load_engine
    from ..replay.turns import deal

    eng = eng or load_engine(rs)
    R = eng.rules
    lo, _ = rs.player_range()
    river_ids = _river_ids(rs, R)
    tried = [0]

    def drawable(g) -> list:
        deck = next((d for d in g.bag.decks if d), None)
        if not deck:
            return []
        di = g.bag.decks.index(deck)
        last = R.DECK_LAST[di]
        ids = set(deck) | ({g.bag.drawn} if g.bag.drawn is not None else set())
        body = sorted(t for t in ids if t in river_ids and t not in last)
        seen, out = set(), []
        for t in body or sorted(t for t in ids if t in river_ids):
            if R.TILES[t].name not in seen:
                seen.add(R.TILES[t].name)
                out.append(t)
        return out

    def options(g, tid):
        """The game with tile tid drawn (its siege decisions taken, the first of each), and its placements."""
        c = g.clone()
        deal(c, tid)
        pre = []
        acts = c.legal_actions()
        while acts and not any(a.KIND in ("place", "discard") for a in acts):
            pre.append(acts[0])
            c.apply_action(acts[0])
            acts = c.legal_actions()
        tried[0] += 1
        return c, pre, [a for a in acts if a.KIND == "place" and a.figure is None], \
            [a for a in acts if a.KIND == "discard"]

    def blocked_here(g, path):
        """The path to a discard of a tile drawn at g, or None; and g's options by tile (looked at once:
        the children below use them too, counted in `tried` as if looked at again)."""
        seen = []
        for tid in drawable(g):
            c, pre, places, discards = opt = options(g, tid)
            seen.append((tid, opt))
            if not places and discards:
                return path + [("tile", tid)] + [("move", a) for a in pre] + [("move", discards[0])], seen
        tried[0] += len(seen)
        return None, seen

    def moves(seen):
        """g's children as (tile, options, placement), before any is played (a dive plays one of them)."""
        return [(tid, opt, a) for tid, opt in seen for a in opt[2]]

    def child(move, path):
        tid, (c, pre, _, _), a = move
        c2 = c.clone()
        c2.apply_action(a)
        return c2, path + [("tile", tid)] + [("move", x) for x in pre] + [("move", a)]

    g0 = eng.new_game(lo, 0)
    found = None
    level = [(g0, [])]
    for depth in range(RIVER_DEPTH + 1):
        nxt: list = []
        count = 0
        for g, path in level:
            found, seen = blocked_here(g, path)
            if found:
                break
            kids = moves(seen)
            count += len(kids)
            if depth < RIVER_DEPTH:  # the last level's games are only counted (the search stops there)
                nxt.extend(child(m, path) for m in kids)
        if found or not _spend_moves(count or 1):
            break
        level = nxt
    rng = random.Random(4242)
    for _ in range(RIVER_DIVES if not found else 0):
        g, path = g0, []
        while True:
            found, seen = blocked_here(g, path)
            if found:
                break
            kids = moves(seen)
            if not kids:
                break
            g, path = child(kids[rng.randrange(len(kids))], path)
        if found or not _spend_moves(len(path) or 1):
            break
    if not found:
        return Search(None, tried[0], lo)
    # the game again, from the start, with its record
    from ..replay.turns import Recorder

    g = eng.new_game(lo, 0)
    turns: list = []
    rec = Recorder(turns)
    for kind, x in found:
        if kind == "tile":
            deal(g, x)
        else:
            rec(g, x)
            g.apply_action(x)
    laid = sum(1 for t in turns if not t.get("discard"))
    name = next(t["tile"] for t in reversed(turns) if t.get("discard"))
    d = _record_folder(record_dir)
    path = d / f"{_slug('+'.join(rs.names))}--river--engine-blocked.json"
    from ..replay.records import game_record, write_record

    write_record(path, game_record(record_rules(rs, d), [f"p{i}" for i in range(lo)], 0, turns, "none"))
    if not _replays(path, g) or not _discards(path):
        path.unlink(missing_ok=True)
        return Search(None, tried[0], lo, note="the engine's blocked river did not replay")
    what = (f"after {laid} river tile{'s' if laid != 1 else ''} laid as the rules allow, {name} is drawn and fits "
            f"nowhere: it is discarded at turn {len(turns)} [{R.CLAUSE_DISCARD}]")
    return Search(RiverWitness(path, lo, what, len(turns)), tried[0], lo)


DISCARD_GAMES = 8  # games tried for a tile that can never be laid


def discard_game(rs: RuleSet, tile: str, record_dir: Path | None = None, eng=None) -> Search:
    """A game of the compiled engine in which a copy of `tile` is drawn and discarded (BASE-PLACE-3:
    it fits nowhere), for a tile a check says can never be laid: random moves (seeds 0, 1, ...) up to
    that discard, written as a record that replays to it.  Deterministic; the moves are charged to
    the verify budget."""
    from ..compiler.build import load_engine
    from ..replay.records import game_record, write_record
    from ..replay.turns import Recorder

    eng = eng or load_engine(rs)
    lo, _ = rs.player_range()
    for k in range(DISCARD_GAMES):
        g = eng.new_game(lo, k)
        rng = random.Random(977 + k)
        turns: list = []
        rec = Recorder(turns)
        moves = 0
        while not g.ended:
            acts = list(g.legal_actions())
            if not acts:
                break
            a = acts[rng.randrange(len(acts))]
            rec(g, a)
            g.apply_action(a)
            moves += 1
            if turns and turns[-1].get("discard") and turns[-1].get("tile") == tile:
                d = _record_folder(record_dir)
                path = d / f"{_slug('+'.join(rs.names))}--never-laid--{_slug(tile)}.json"
                write_record(path, game_record(record_rules(rs, d), [f"p{i}" for i in range(lo)], k, turns, "none"))
                if not _replays(path, g) or not _discards(path):
                    path.unlink(missing_ok=True)
                    return Search(None, k + 1, lo, note="the engine's game did not replay to the discard")
                what = f"{tile} is drawn at turn {len(turns)} and fits nowhere: it is discarded [{eng.rules.CLAUSE_DISCARD}]"
                return Search(RiverWitness(path, lo, what, len(turns)), k + 1, lo)
        if not _spend_moves(moves or 1):
            break
    return Search(None, DISCARD_GAMES, lo, note=f"no game of {DISCARD_GAMES} tried drew {tile} and discarded it")


def _river_ids(rs: RuleSet, R) -> set:
    """The engine's ids of the river tiles: those drawn while the river is laid (river_layer.river_phase)."""
    from .river_deck import river_phase

    names = river_phase(rs, rs.placement["continues"].arg).river
    return {i for i, t in enumerate(R.TILES) if t.name in names}


CARD_DEAL_GAMES = 20  # games tried for a card game's deal


def card_deal_search(rs: RuleSet, players: int, record_dir: Path | None = None, eng=None) -> Search:
    """A card game of the compiled engine with `players` players, played to its end (random moves,
    seed 0): the rounds it deals and the cards it leaves in the deck, against the deal table's rounds
    (CARD-DEAL-1, CARD-END-1).  A witness when they differ: the table does not use the deck exactly."""
    from ..compiler.build import load_engine

    eng = eng or load_engine(rs)
    row = rs.cards.deal_for(players)
    if row is None:
        return Search(None, 0, players, note=f"the deal table has no row for {players} players")
    # a game that ends because the deck cannot deal another round (not at a score: `end when`; with the
    # bundled rules most games reach 100 first, so this is rarely found: the table's numbers are then a
    # claim no game shows, *not proved*, as a formula's)
    for k in range(CARD_DEAL_GAMES):
        g = eng.new_game(players, k)
        rng = random.Random(31 + k)
        turns: list = []
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                break
            a = _card_choose(g, acts, rng, ("claiming", "hoarding", "random")[k % 3])
            turns.append(g.record_of(a))
            g.apply_action(a)
        if not _spend_moves(len(turns)):
            return Search(None, k + 1, players, note=_budget_note())
        if not g.ended:
            g.finish()
        why = next((e.get("why", "") for e in reversed(g.events) if e.get("kind") == "end"), "")
        if "deck" in why:
            break
    else:
        return Search(None, CARD_DEAL_GAMES, players, note=f"no game of {CARD_DEAL_GAMES} with {players} players "
                                                           f"ended for want of cards (each reached the end score)")
    left = g.locations()["deck"]
    if g.round == row.rounds and left == 0:
        return Search(None, k + 1, players, note=f"a game with {players} players deals the table's {row.rounds} rounds "
                                                 f"and empties the deck")
    d = _record_folder(record_dir)
    path = d / f"{_slug('+'.join(rs.names))}--card-deal--{players}-players.json"
    from ..replay.cards import card_record
    from ..replay.records import write_record

    write_record(path, card_record(record_rules(rs, d), g, turns))
    if not _card_replays(path, g):
        path.unlink(missing_ok=True)
        return Search(None, k + 1, players, note="the engine's game did not replay to the same scores")
    what = (f"with {players} players a game that ends for want of cards deals {g.round} round{'s' if g.round != 1 else ''} of {row.cards} cards "
            f"each, where the deal table says {row.rounds}, and leaves {left} card{'s' if left != 1 else ''} in the deck")
    return Search(CardWitness(path, players, k, ("claiming", "hoarding", "random")[k % 3], what, k + 1), k + 1, players)

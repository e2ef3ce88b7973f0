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
  is replayed at once (compiler/replay.py) to make sure it replays to the same state.

Within the budget (WITNESS_GAMES games per refuted rule) no such game: the verdict is *not
proved* -- z3's state breaks the induction step, but no game tried reaches it.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from tessera.dsl.model import RuleSet

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

    def lines(self) -> list[str]:
        return [f"witness: {self.what}; found in game {self.games} of the search ({self.players} players, "
                f"seed {self.seed}, {self.policy} moves)",
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
        return rule.startswith(f"score {ev.get('feature')} {ev.get('when')}") or (
            ev.get("when") == "recall" and rule.startswith("recall "))
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
        elif inv.id == "returned-when-scored" and rule.startswith("score ") and rule.endswith(" complete"):
            self.kind = "returned"  # a figure left on a completed feature of the rule's kind
            self.feature = rule.split()[1]
        elif inv.kind == "state":
            decl = next((d for d in rs.invariants if d.name == inv.id), None)
            if decl is not None:
                self.kind = "declared"
                self.eval = state_evaluator(rs, decl.test)
        self.last_stays: dict = {}

    @property
    def usable(self) -> bool:
        return self.kind is not None

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

    def check(self, g) -> str | None:
        """Whether game g, as it stands now, breaks the invariant (a description), or None."""
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
            for p in range(g.nplayers):
                n = now.get((p, self.fig), 0)
                was = self.last_stays.get(p, 0)
                if n < was:
                    return (f"{g.names[p]}'s {self.inv.id[6:]}s on the board go {was} -> {n} at turn {g.turn}")
                self.last_stays[p] = n
            return None
        if self.kind == "returned":
            R = g.R
            corner = set(getattr(R, "FIG_CORNER", ()))
            for r, fs in enumerate(g.figs):
                if fs and g.parent[r] == r and g.done[r] and R.KINDS[g.seg_kind[r]].name == self.feature:
                    left = [(p, gi) for p, gi, _ in fs if gi not in corner]
                    if left:
                        p, gi = left[0]
                        x, y = g.seg_cell[r]
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
    return figs, kinds, acts


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

    def wanted(self, g, a) -> bool:
        """Whether move a (a typed move, runtime/moves.py: read by kind and field) serves the focus."""
        kind = a.KIND
        if kind in self.acts:
            return True
        if kind != "place":  # an outpost, capture, ransom, pass, discard, catapult or removal not asked for
            return False
        fig = a.figure
        if fig is None or fig.KIND in ("recall", "at"):
            return False
        gi = fig.figure
        if gi in self.figs:
            return True
        if self.kinds and not self.figs:
            o = g.orientation(a.rotation)
            fi = fig.feature
            return 0 <= fi < len(o.kinds) and o.kinds[fi] in self.kinds
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
    copied beside the record and named by its file name (tessera.compiler.records.rule_paths_for: a replay
    takes rule files from the record's own folder only)."""
    from tessera.compiler.records import rule_paths_for
    from tessera.dsl.loader import BUNDLED_RULES, _inside

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
    from tessera.compiler.build import load_engine
    from tessera.compiler.turns import Recorder

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
        while not g.ended:
            acts = g.legal_actions()
            if not acts:
                g.finish()
                break
            a = pol.choose(g, acts)
            rec(g, a)
            g.apply_action(a)
            if a.KIND != "ransom" and pending_ransom:
                pending_ransom = False
            if g.pending is not None or getattr(g, "sdec", None) is not None:
                continue  # a decision of this turn is still to come
            if found is None:
                found = mon.check(g)
                if found is not None and a.KIND == "ransom":
                    pending_ransom = True  # a record writes a ransom with the next turn's tile: play on to it
                    continue
            if found is not None and not pending_ransom:
                break
        if found is None and g.ended:
            found = mon.check(g)
        if found is None:
            continue
        path = _write(rs, check, n, seed, turns, g.ended, record_dir)
        replayed = _replays(path, g)
        if not replayed:
            path.unlink(missing_ok=True)
            continue
        return Search(Witness(path, n, seed, pname, len(turns), found, k + 1), k + 1, players)
    return Search(None, games, players)


def _write(rs: RuleSet, check, players: int, seed: int, turns: list, ended: bool, record_dir: Path | None) -> Path:
    from tessera.compiler.records import write_record

    from tessera.compiler.outdir import claim_record_folder

    from .witness_dir import witness_folder

    d = record_dir or RECORD_DIR
    d = witness_folder().path if d is None else claim_record_folder(d)
    path = d / f"{_slug('+'.join(rs.names))}--{_slug(check.invariant.id)}--{_slug(check.rule)}.json"
    doc = {"format": "tessera-game/1", "rules": record_rules(rs, d), "players": [f"p{i}" for i in range(players)],
           "seed": seed, "turns": turns, "end": "final" if ended else "none"}
    write_record(path, doc)
    return path


def _replays(path: Path, g) -> bool:
    """The record replays without an illegal turn to the state the search saw (scores, supplies)."""
    from tessera.compiler.records import load_record
    from tessera.compiler.replay import replay

    try:
        res = replay(load_record(path), path.parent)
    except Exception:
        return False
    r = res.game
    return res.error is None and list(r.scores) == list(g.scores) and [list(s) for s in r.supply] == [list(s) for s in g.supply]


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
                from tessera.compiler.build import load_engine

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

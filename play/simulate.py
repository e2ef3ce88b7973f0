"""Simulate many games with a compiled engine and summarise what the rules do.

Seeds.  Game i of a run with seed S uses the bag seed
`SeedSequence(S).spawn(...)[i]` (numpy's seed-splitting scheme: the child
with spawn key (i,), 64 bits of its state), so runs with different S never
share a game, and a game's seed does not depend on how the run is split up.
When every seat is `random`, a game is the engine's own random game
(`play_random(players, G)`, moves from the runtime's `random_moves`); otherwise
the player in seat p of a game with bag seed G draws its own random choices
from `SeedSequence([G, AGENT_TAG], spawn_key=(p,))`.  The same game comes out
in every process, on every machine, whatever `--jobs` or backend.

Work is split into chunks of game indices; each chunk is played by a worker
(this process with `--jobs 1`, a process pool, or a Dask cluster) that builds
the engine from the generated source it is sent, and returns one row per game.
The summary is computed from the rows in game order, so it is the same
whatever the split.
"""
from __future__ import annotations

import itertools
import json
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ..dsl.family import CARDS, TILES, Family

from . import stats
from .agents import make_agent, stronger
from ..compiler.runtime import events as E
from ..replay.turns import Recorder
from .usage import count_events

AGENT_TAG = 0x6167656E  # "agen": keeps players' streams apart from bag seeds


def game_seed(run_seed: int, i: int) -> int:
    """The bag seed of game i of run `run_seed` (numpy SeedSequence spawning)."""
    import numpy as np

    return int(np.random.SeedSequence(run_seed, spawn_key=(i,)).generate_state(1, np.uint64)[0])


def agent_seed(gseed: int, seat: int) -> int:
    import numpy as np

    return int(np.random.SeedSequence([gseed, AGENT_TAG], spawn_key=(seat,)).generate_state(1, np.uint64)[0])


def seating(agents: list[str], i: int, rotate: bool) -> list[str]:
    """Who plays each seat in game i: `agents` as given, or, with `rotate` (`--rotate-seats`), moved
    i seats on (game 0 as given, game 1 with the last player first, ...), so that each player sits in
    each seat equally often over every `players` games."""
    if not rotate or not agents:
        return list(agents)
    k = i % len(agents)
    return list(agents[-k:] + agents[:-k]) if k else list(agents)


def play_one(eng, players: int, seed: int, agents: list[str] | None = None, record: bool = True):
    """One game with bag seed `seed`, seat p played by `agents[p]` (default: all random).

    Returns the finished game and its record turns (None unless `record`)."""
    g = eng.new_game(players, seed)
    specs = agents or ["random"] * players
    turns = [] if record else None
    cards = Family.of_rules(eng.rules) is CARDS  # the card game (rulebook 001): its own moves
    if cards:
        before = (lambda g_, a: turns.append(g_.record_of(a))) if turns is not None else None
    else:
        before = Recorder(turns) if turns is not None else None
    if all(s == "random" for s in specs):  # the engine's one random player: the game play_random(players, seed) plays
        if cards:
            return eng.runtime.random_moves(g, seed, before=before), turns
        from ..compiler.runtime.play import random_moves

        return random_moves(g, seed, before=before), turns
    seats = [make_agent(specs[p], agent_seed(seed, p)) for p in range(players)]
    while not g.ended:
        acts = g.legal_actions()
        if not acts:
            g.finish()
            break
        a = seats[g.current_player()].choose(g, acts)
        if before is not None:
            before(g, a)
        g.apply_action(a)
    return g, turns


# ------------------------------------------------------------------ one chunk of games (any worker)

_ENGINES: dict[str, object] = {}


def _engine(source: str, label: str):
    eng = _ENGINES.get(source)
    if eng is None:
        from ..compiler.build import engine_from_source

        eng = _ENGINES[source] = engine_from_source(source, label)
    return eng


def play_chunk(task: dict, indices: list[int], eng=None) -> list[dict]:
    """Play games `indices` of the run described by `task` (with `eng`, or an engine built from the task's
    source); one row per game, in index order."""
    eng = eng or _engine(task["source"], "+".join(task["rules"]))
    players = task["players"]
    record_dir = Path(task["record"]) if task.get("record") else None
    rows = []
    figures = figure_rules(eng.rules)
    for i in indices:
        gseed = game_seed(task["seed"], i)
        try:
            specs = seating(task["agents"], i, task.get("rotate", False))
            g, rec = play_one(eng, players, gseed, specs, record_dir is not None)
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            from ..replay.tiles import raise_rule_failure
            raise_rule_failure(exc, f"in game {i} (seed {gseed})")
        family = Family.of_rules(eng.rules).name
        points = E.points_by_feature(g.events, family)
        rows.append({"game": i, "seed": gseed, "scores": list(g.returns()), "points": dict(sorted(points.items())),
                     "sources": point_sources(g.events, figures, family),
                     "turns": g.turn - g.discards, "discards": g.discards,
                     # the Tower's captures (own figures and exchanges included) and ransoms
                     **E.tallies(g.events, columns=("captures", "ransoms"))})
        if Family.of_rules(eng.rules).breaks_ties:  # the card game breaks ties (its `tie` rule)
            rows[-1]["winners"] = list(g.winners)
        if task.get("rotate"):
            rows[-1]["agents"] = specs  # who sat where in this game (--rotate-seats)
        rows[-1]["fired"] = count_events(g.events, family)  # rule usage: times each rule fired (play/usage.py)
        rows[-1].update(lead(g, rows[-1].get("winners")))
        if getattr(eng.rules, "TRACKS", None):  # Siege and Defense: counterattacks of rows filled in play, attacks, removals
            rows[-1].update(E.tallies(g.events, columns=("counterattacks", "attacks", "removals")))
        if record_dir is not None and Family.of_rules(eng.rules) is CARDS:
            write_card_record(record_dir, i, task.get("record_rules") or task["rules"], g, rec)
        elif record_dir is not None:  # rule files named relative to the records (records.rule_paths_for)
            write_record(record_dir, i, task.get("record_rules") or task["rules"], [g.names[p] for p in range(players)],
                         gseed, rec)
    return rows


def figure_rules(R) -> dict[tuple[str, str, str], str]:
    """(feature, when, clause) -> the figure a scoring rule belongs to, read from the engine's tables:
    `score K end by F` (SCORE_BY), `score K put F` / `score K join F` (SCORE_PUT, SCORE_JOIN: the
    Barn's), `recall F` (RECALLS: the Abbot's, any feature, as "*")."""
    if Family.of_rules(R) is not TILES or not hasattr(R, "FIGURES"):
        return {}
    names = [f.name for f in R.FIGURES]
    kinds = [k.name for k in R.KINDS]
    out: dict[tuple[str, str, str], str] = {}
    for (when, k, g), (_, clause) in getattr(R, "SCORE_BY", {}).items():
        out[(kinds[k], when, clause)] = names[g]
    for when, table in (("put", getattr(R, "SCORE_PUT", {})), ("join", getattr(R, "SCORE_JOIN", {}))):
        for (k, g), (_, clause) in table.items():
            out[(kinds[k], when, clause)] = names[g]
    for g, (_, clause) in getattr(R, "RECALLS", {}).items():
        out[("*", "recall", clause)] = names[g]
    return out


def point_sources(events, figures: dict[tuple[str, str, str], str], family: str = "tiles") -> dict[str, int]:
    """Points of one game by where they came from, beyond a feature's own scoring (which `points`
    holds with the rest, by feature): `FEATURE: FIGURE` for a figure's own rule (`field: barn`,
    `cloister: abbot`), `outpost: TRACK` for an outpost's counterattacks and attacks, and
    `ransoms received` / `ransoms paid` (a ransom moves points between players: in `points` it
    is nowhere).  Read from the events the engine records: their feature, moment and clause, as
    each event kind declares its `source` (compiler/runtime/events.py)."""
    return E.point_sources(events, figures, family)


def lead(g, winners: list[int] | None = None) -> dict:
    """How the lead went in game `g`, read from its scoring events (each names its turn and the
    points it moved; the sum of a seat's points is its final score):

    - `lead_changes`: how often the player alone on top changed (a tie on top between two
      leaders does not end the lead; the first player to lead alone is no change);
    - `decided_at`: the turn from which the winner led alone for good (the final scoring counts
      as the turn after the last, so a game only the final scoring decided has `decided_at`
      equal to its number of turns), None in a game without a single winner;
    - `moves`: that number of turns (discards and other players' decisions in a turn included)."""
    names = {n: p for p, n in enumerate(g.names)}
    score = [0] * len(g.names)
    leader = None  # the player alone on top, after the last turn that had one
    changes = 0
    since = None  # the turn since which the eventual winner has been alone on top
    end = getattr(g, "turn", 0)
    final = g.returns() if callable(getattr(g, "returns", None)) else list(g.scores)
    if winners is None:
        top = max(final)
        winners = [p for p, s in enumerate(final) if s == top]
    win = winners[0] if len(winners) == 1 else None

    def after(turn: int) -> None:
        nonlocal leader, changes, since
        top = max(score)
        alone = [p for p, s in enumerate(score) if s == top]
        if len(alone) == 1:
            if leader is not None and alone[0] != leader:
                changes += 1
            leader = alone[0]
        if win is not None and alone == [win]:
            since = turn if since is None else since
        else:
            since = None

    turn = None
    for ev in g.events:
        pts = ev.get("points")
        if not pts or "turn" not in ev:
            continue
        if turn is not None and ev["turn"] != turn:
            after(turn)
        turn = ev["turn"]
        for name, v in pts.items():
            score[names[name]] += v
    if turn is not None:
        after(turn)
    return {"lead_changes": changes, "decided_at": None if win is None or since is None else min(since, end),
            "moves": end}


def write_record(record_dir: Path, i: int, rules: list[str], names: list[str], gseed: int, turns: list[dict]) -> None:
    """Game i of the run as `game-00000i.json` (its bag seed is in the record)."""
    record_dir.mkdir(parents=True, exist_ok=True)
    from ..replay.records import game_record, write_record as write_whole

    write_whole(record_dir / f"game-{i:06d}.json", game_record(rules, names, gseed, turns))  # temp file + rename: Ctrl-C never leaves half a record


def write_card_record(record_dir: Path, i: int, rules: list[str], g, turns: list[dict]) -> None:
    """Card game i of the run as `game-00000i.json` (tessera-cards/1, docs/records.md): the deck
    as it was dealt, then every move."""
    record_dir.mkdir(parents=True, exist_ok=True)
    from ..replay.cards import card_record
    from ..replay.records import write_record as write_whole

    write_whole(record_dir / f"game-{i:06d}.json", card_record(rules, g, turns))


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops handing out work and summarises."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _submit(ex, fn, *args):
    """ex.submit, with Ctrl-C blocked meanwhile: a worker is spawned inside submit and inherits the blocked
    signal, so a Ctrl-C while it is still starting (importing, before `_quiet_worker` runs) cannot kill it
    with a traceback and break the pool; one that reaches the parent meanwhile is delivered on unblocking."""
    if not hasattr(signal, "pthread_sigmask"):
        return ex.submit(fn, *args)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return ex.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# ------------------------------------------------------------------ running a whole simulation

def chunks(games: int, workers: int) -> Iterator[list[int]]:
    """The game indices in chunks, made as they are handed out: nothing is allocated for a game
    before its chunk starts, so `--games 1000000000` starts its first game at once."""
    size = max(1, min(25, games // max(1, workers * 8)))
    for s in range(0, games, size):
        yield list(range(s, min(games, s + size)))


@dataclass
class Run:
    """Games played so far under each rule set (rows[k]: the finished games of rule set k, in game order)."""
    rows: list[list[dict]]
    interrupted: bool = False


def run(tasks: list[dict], games: int, jobs: int = 1, backend: str = "processes", scheduler: str | None = None,
        progress: Callable[[int], None] | None = None, engines: list | None = None) -> Run:
    """Play `games` games of every task (one task per rule set), split over `jobs` workers
    (`engines`: the tasks' engines, already loaded, for play in this process).

    The rows do not depend on `jobs` or `backend`.  Ctrl-C stops handing out
    work: the games finished so far are returned with `interrupted` set."""
    work = ((k, c) for c in chunks(games, jobs) for k in range(len(tasks)))  # rule sets interleaved: pairs finish together
    finished: list[dict[int, dict]] = [{} for _ in tasks]  # only games that were played take memory
    out = Run([[] for _ in tasks])
    done = 0

    def take(k: int, rows: list[dict]) -> None:
        nonlocal done
        for r in rows:
            finished[k][r["game"]] = r
        done += len(rows)
        if progress is not None:
            progress(done)

    try:
        if backend == "dask":
            _run_dask(tasks, work, jobs, scheduler, take)
        elif jobs <= 1:
            # in this process too, the first Ctrl-C only stops handing out chunks: the chunk being played
            # finishes, so no record is left half-written (a second Ctrl-C stops at once)
            with _CtrlC() as ctrl_c:
                for k, c in work:
                    if ctrl_c.requested:
                        break
                    take(k, play_chunk(tasks[k], c, engines[k] if engines else None))
            if ctrl_c.requested:
                raise KeyboardInterrupt
        else:
            _run_pool(tasks, work, jobs, take)
    except KeyboardInterrupt:
        out.interrupted = True
    out.rows = [[rows[i] for i in sorted(rows)] for rows in finished]
    return out


class _CtrlC:
    """While open, the first Ctrl-C only asks the pool loop to stop (a flag, read between waits);
    a second one raises KeyboardInterrupt as usual.

    Why not let the first one raise: KeyboardInterrupt lands wherever the main
    thread happens to be, and inside `concurrent.futures.wait` that is in the
    middle of acquiring the futures' locks; locks taken there are never
    released, and the next `cancel()` or `result()` waits for ever (CI saw
    exactly this hang).  A flag is read only at points we choose."""

    def __init__(self) -> None:
        self.requested = False
        self._old = None

    def __enter__(self) -> "_CtrlC":
        import threading

        if threading.current_thread() is threading.main_thread():  # signal handlers live in the main thread only
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def _run_pool(tasks, work, jobs, take) -> None:
    """Hand chunks to `jobs` spawned workers, a few at a time (never the whole run
    at once: memory stays flat for -n 10**6).  Ctrl-C: no new chunk starts, the
    chunks being played finish and count (their records are whole), then
    KeyboardInterrupt; a second Ctrl-C stops waiting for them."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads (the progress bar)
    todo = iter(work)
    pending: dict = {}
    forced = False
    with _CtrlC() as ctrl_c:
        ex = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_quiet_worker)
        try:
            while True:
                while not ctrl_c.requested and len(pending) < 2 * jobs:
                    nxt = next(todo, None)
                    if nxt is None:
                        break
                    pending[_submit(ex, play_chunk, tasks[nxt[0]], nxt[1])] = nxt[0]
                if ctrl_c.requested:
                    for f in [f for f in pending if f.cancel()]:  # queued, not started: dropped
                        del pending[f]
                if not pending:
                    break
                finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for f in finished:
                    take(pending.pop(f), f.result())
        except KeyboardInterrupt:  # the second Ctrl-C
            forced = True
            raise
        finally:
            ex.shutdown(wait=not forced, cancel_futures=True)
    if ctrl_c.requested:
        raise KeyboardInterrupt


def _run_dask(tasks, work, jobs, scheduler, take) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise RuntimeError("--backend dask needs Dask: pip install 'tessera-rules[cluster]'") from exc
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:  # TLS with this run's own certificates, no HTTP: only this user can reach it (play/dask_local.py)
        from .dask_local import private_cluster

        cluster, security = private_cluster(jobs)
        client = Client(cluster, security=security)
    pending: dict = {}  # a few chunks per worker at a time, as the pool does: memory flat in the game count
    window = 2 * max(jobs, len(client.scheduler_info().get("workers", ())) or 1)
    try:
        todo = iter(work)
        for k, c in itertools.islice(todo, window):
            f = client.submit(play_chunk, tasks[k], c, pure=False)
            pending[f.key] = (f, k)
        running = as_completed([f for f, _ in pending.values()])
        for f in running:
            _, k = pending.pop(f.key)
            take(k, f.result())
            nxt = next(todo, None)
            if nxt is not None:
                g = client.submit(play_chunk, tasks[nxt[0]], nxt[1], pure=False)
                pending[g.key] = (g, nxt[0])
                running.add(g)
    finally:
        for f, _ in pending.values():
            f.cancel()
        client.close()
        if cluster is not None:
            cluster.close()


def simulate(eng, games: int, players: int, seed: int, rules: list[str], record_dir: Path | None = None,
             agents: list[str] | None = None, record_rules: list[str] | None = None, rule_set=None,
             rotate: bool = False) -> Summary:
    """Serial simulation with an engine already loaded (tests, scripts): the same games as `run`
    (`rule_set`: the RuleSet the engine was compiled from, for rule usage by rule-file line).
    With `record_dir` and no `record_rules`, the rule files named are copied beside the records
    (a bundled one is named by its module), as `tessera simulate --record` does: a record's rule
    files lie in its folder."""
    agents = agents or ["random"] * players
    if record_dir is not None and record_rules is None:
        from ..dsl.loader import BUNDLED_RULES, _inside, is_module_name

        from ..replay.records import rule_paths_for

        from ..compiler.outdir import claim_record_folder

        claim_record_folder(Path(record_dir))  # RecordFolderError for a folder of the user's, or a file
        specs = [Path(r).stem if not is_module_name(r) and _inside(Path(r), BUNDLED_RULES) else r for r in rules]
        record_rules = rule_paths_for(Path(record_dir), specs, [r for r in specs if not is_module_name(r)])
    task = {"source": eng.source, "rules": list(rules), "players": players, "seed": seed, "agents": agents,
            "record": str(record_dir) if record_dir is not None else None, "record_rules": record_rules,
            "rotate": rotate}
    from .usage import catalogue

    return Summary(list(rules), players, seed, agents, play_chunk(task, list(range(games)), eng),
                   catalogue(rule_set) if rule_set is not None else None)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# ------------------------------------------------------------------ summaries

@dataclass
class Summary:
    rules: list[str]
    players: int
    seed: int
    agents: list[str]
    rows: list[dict] = field(default_factory=list)  # finished games, in game order
    catalogue: object = None  # the rule set's firing statements (play/usage.py), for rule usage by line

    @property
    def games(self) -> int:
        return len(self.rows)

    def kinds(self) -> list[str]:
        return sorted({k for r in self.rows for k in r["points"]})

    def scores(self, p: int) -> list[int]:
        return [r["scores"][p] for r in self.rows]

    def won(self, p: int) -> list[int]:
        """1 where seat p alone had the top score (where the rules break ties, as the card game's
        `tie` does: where p alone won)."""
        out = []
        for r in self.rows:
            if "winners" in r:
                out.append(int(r["winners"] == [p]))
                continue
            top = max(r["scores"])
            out.append(int(r["scores"][p] == top and r["scores"].count(top) == 1))
        return out

    def tied(self, p: int) -> list[int]:
        """1 where seat p shared the top score with another seat (the victory, where the rules break ties)."""
        out = []
        for r in self.rows:
            if "winners" in r:
                out.append(int(p in r["winners"] and len(r["winners"]) > 1))
                continue
            top = max(r["scores"])
            out.append(int(r["scores"][p] == top and r["scores"].count(top) > 1))
        return out

    def points(self, kind: str) -> list[int]:
        return [r["points"].get(kind, 0) for r in self.rows]

    def sources(self) -> list[str]:
        """The points' sources beyond the features' own scorings (`field: barn`, `outpost: knights`,
        `ransoms received`, ...: tessera.play.simulate.point_sources), sorted."""
        return sorted({k for r in self.rows for k in r.get("sources", {})})

    def source_points(self, source: str) -> list[int]:
        return [r.get("sources", {}).get(source, 0) for r in self.rows]

    def all_seats(self) -> list[float]:
        return [sum(r["scores"]) / self.players for r in self.rows]

    @property
    def mean_captures(self) -> float:
        return sum(r.get("captures", 0) for r in self.rows) / max(self.games, 1)

    @property
    def mean_ransoms(self) -> float:
        return sum(r.get("ransoms", 0) for r in self.rows) / max(self.games, 1)

    def mean_of(self, key: str) -> float:
        """The mean per game of a per-game count (`counterattacks`, `attacks`, `removals`)."""
        return sum(r.get(key, 0) for r in self.rows) / max(self.games, 1)

    @property
    def discards_apply(self) -> bool:
        """Whether a tile can be discarded in these games: not in the card game (its rows carry `winners`)."""
        return not (self.rows and "winners" in self.rows[0])

    @property
    def rotated(self) -> bool:
        """Whether the players moved seats from game to game (`--rotate-seats`)."""
        return any("agents" in r for r in self.rows)

    def seat_label(self, p: int) -> str:
        """Who played seat p: its player, or `rotated` when the players moved seats."""
        return "rotated" if self.rotated else self.agents[p]

    # the stronger player's edge (issue 27): the one player stronger than every other (agents.stronger)
    def edge_player(self) -> str | None:
        return stronger(self.agents)

    def _edge_seats(self) -> list[int]:
        who = self.edge_player()
        return [r.get("agents", self.agents).index(who) for r in self.rows]

    def edge_won(self) -> list[int]:
        """1 where the stronger player alone had the top score (where the rules break ties: alone won)."""
        out = []
        for r, p in zip(self.rows, self._edge_seats()):
            if "winners" in r:
                out.append(int(r["winners"] == [p]))
            else:
                top = max(r["scores"])
                out.append(int(r["scores"][p] == top and r["scores"].count(top) == 1))
        return out

    def edge_lead(self) -> list[int]:
        """The stronger player's score minus the best other player's, per game."""
        return [r["scores"][p] - max(s for q, s in enumerate(r["scores"]) if q != p)
                for r, p in zip(self.rows, self._edge_seats())]

    def edge(self) -> dict | None:
        """The stronger player's wins (alone on top) and lead over the best other, with intervals; None when
        no one player is stronger than every other."""
        who = self.edge_player()
        if who is None:
            return None
        return {"player": who, "others": [a for a in self.agents if a != who],
                "seats": "rotated" if self.rotated else "fixed",
                "wins": stats.rate_ci(sum(self.edge_won()), self.games), "lead": stats.mean_ci(self.edge_lead())}

    def usage_catalogue(self):
        from .usage import Catalogue

        return self.catalogue if self.catalogue is not None else Catalogue([])

    def rule_usage(self) -> list[dict]:
        """Per firing rule: the share of games it fired in and the times per game (play/usage.py)."""
        from .usage import usage

        return usage(self.usage_catalogue(), self.rows)

    def never_fired(self) -> list[str]:
        """A warning per rule of the rule set that fired in none of the games."""
        from .usage import never_fired

        return never_fired(self.usage_catalogue(), self.rows) if self.catalogue is not None and self.rows else []

    # the balance measures (docs/simulate.md, "Balance"): one value per game each
    def top_shared(self) -> list[int]:
        """1 where the top score was shared (where the rules break ties: where more than one won)."""
        out = []
        for r in self.rows:
            if "winners" in r:
                out.append(int(len(r["winners"]) > 1))
            else:
                top = max(r["scores"])
                out.append(int(r["scores"].count(top) > 1))
        return out

    def seat_edge(self, p: int = 0) -> list[float]:
        """Seat p's score minus the mean score of the other seats, per game."""
        k = self.players - 1
        return [r["scores"][p] - (sum(r["scores"]) - r["scores"][p]) / k for r in self.rows] if k else []

    def spread(self) -> list[int]:
        return [max(r["scores"]) - min(r["scores"]) for r in self.rows]

    def lowest(self) -> list[int]:
        return [min(r["scores"]) for r in self.rows]

    def decided(self) -> list[float | None]:
        """The share of the game played before the winner led alone for good (None: no single winner)."""
        return [None if r.get("decided_at") is None else r["decided_at"] / max(r.get("moves") or 1, 1)
                for r in self.rows]

    def length_deviation(self) -> list[float]:
        """Each game's distance in turns from the median game length (Brown & Forsythe 1974)."""
        import statistics

        if not self.rows:
            return []
        med = statistics.median(r["turns"] for r in self.rows)
        return [abs(r["turns"] - med) for r in self.rows]

    def counts(self, key: str) -> list[int]:
        return [r.get(key, 0) for r in self.rows]

    EXPANSION_COUNTS = (("captures", "captures"), ("ransoms", "ransoms"), ("attacks", "attacks on outposts"),
                        ("removals", "figures removed by attacks"), ("counterattacks", "counterattacks (rows filled)"))

    def balance(self) -> dict:
        n = self.games
        decided = [x for x in self.decided() if x is not None]
        doc = {
            "tie_rate": stats.rate_ci(sum(self.top_shared()), n),
            "decided_at": stats.share_mean_ci(decided),  # shares in [0, 1], counts >= 0: bootstrap, held in bounds
            "lead_changes": stats.count_mean_ci(self.counts("lead_changes")),
            "score_spread": stats.mean_ci(self.spread()),
            "lowest_score": {**stats.mean_ci(self.lowest()), "min": min(self.lowest(), default=None)},
            "length_spread": stats.sd_ci([r["turns"] for r in self.rows]),
            "seat_advantage": None,
        }
        if self.players > 1:
            doc["seat_advantage"] = {"score": stats.mean_ci(self.seat_edge(0)),
                                     "wins": stats.rate_ci(sum(self.won(0)), n), "fair_share": _r4(1 / self.players)}
        return doc

    def expansion_counts(self) -> dict:
        """Mean per game of the expansions' events that happened in any game (captures, ransoms, attacks,
        removals, counterattacks of rows filled in play) and of the outposts' points."""
        out = {k: stats.count_mean_ci(self.counts(k)) for k, _ in self.EXPANSION_COUNTS if any(self.counts(k))}
        if any(r["points"].get("outpost") for r in self.rows):
            out["outpost_points"] = stats.mean_ci(self.points("outpost"))
        return out

    def to_dict(self, per_game: bool = True) -> dict:
        n = self.games
        by_kind = {k: stats.mean_ci(self.points(k)) for k in self.kinds()}
        by_source = {k: stats.mean_ci(self.source_points(k)) for k in self.sources()}
        turns = stats.mean_ci([r["turns"] for r in self.rows])
        discards = stats.count_mean_ci([r["discards"] for r in self.rows])
        seats = []
        for p in range(self.players):
            seats.append({"seat": p + 1, "agent": self.seat_label(p), "score": stats.mean_ci(self.scores(p)),
                          "wins": stats.rate_ci(sum(self.won(p)), n), "ties": stats.rate_ci(sum(self.tied(p)), n)})
        doc = {
            "games": n, "players": self.players, "seed": self.seed, "rules": self.rules, "agents": self.agents,
            "by_seat": seats,
            "score_all_seats": stats.mean_ci(self.all_seats()),
            "points_by_feature": by_kind,
            "points_by_source": by_source,  # the parts of points_by_feature from a figure's own rules, outposts, ransoms
            "turns": turns,
            "discards": discards,
            "max_score": max((max(r["scores"]) for r in self.rows), default=0),
            # the plain means, as before intervals were added
            "mean_score_by_seat": [s["score"]["mean"] for s in seats],
            "win_rate_by_seat": [s["wins"]["rate"] for s in seats],
            "tie_rate_by_seat": [s["ties"]["rate"] for s in seats],
            "mean_points_by_feature": {k: v["mean"] for k, v in by_kind.items()},
            "mean_turns": turns["mean"],
            "mean_discards": discards["mean"],
            "mean_captures": self.mean_captures,
            "mean_ransoms": self.mean_ransoms,
        }
        if self.rows and "attacks" in self.rows[0]:  # rules with outposts (Siege and Defense)
            doc.update(mean_counterattacks=self.mean_of("counterattacks"), mean_attacks=self.mean_of("attacks"),
                       mean_removals=self.mean_of("removals"))
        doc["balance"] = self.balance()
        doc["edge"] = self.edge()
        doc["expansion_counts"] = self.expansion_counts()
        doc["rule_usage"] = self.rule_usage()
        doc["never_fired"] = self.never_fired()
        if per_game:
            doc["per_game"] = self.rows
        return doc


def _r4(x: float) -> float:
    return round(float(x), 4)


def compare(ours: Summary, ref: Summary) -> list[dict]:
    """Paired differences (ours - ref) over the games both finished, with BH-adjusted significance."""
    both = {r["game"] for r in ours.rows} & {r["game"] for r in ref.rows}
    a = Summary(ours.rules, ours.players, ours.seed, ours.agents, [r for r in ours.rows if r["game"] in both],
                ours.catalogue)
    b = Summary(ref.rules, ref.players, ref.seed, ref.agents, [r for r in ref.rows if r["game"] in both], ref.catalogue)
    rows = []

    def row(measure: str, x: list, y: list, unit: str = "points") -> None:
        rows.append({"measure": measure, "unit": unit, "ours": stats.mean_ci(x)["mean"], "ref": stats.mean_ci(y)["mean"],
                     **stats.paired(x, y)})

    row("mean score (all seats)", a.all_seats(), b.all_seats())
    for p in range(a.players):
        row(f"score, seat {p + 1} ({a.seat_label(p)})", a.scores(p), b.scores(p))
    for p in range(a.players):
        row(f"win rate, seat {p + 1} ({a.seat_label(p)})", a.won(p), b.won(p), "rate")
    who = a.edge_player()
    if who is not None:  # whether the rule change moves the stronger player's edge (issue 27)
        row(f"edge: win rate of the stronger player ({who})", a.edge_won(), b.edge_won(), "rate")
        row(f"edge: lead of the stronger player ({who}) over the best other", a.edge_lead(), b.edge_lead())
    if a.players > 1:
        row("tie rate (top score shared)", [max(a.tied(p)[i] for p in range(a.players)) for i in range(len(both))],
            [max(b.tied(p)[i] for p in range(b.players)) for i in range(len(both))], "rate")
    for kind in sorted(set(a.kinds()) | set(b.kinds())):
        row(f"points from {kind}", a.points(kind), b.points(kind))
    for src in sorted(set(a.sources()) | set(b.sources())):  # their parts by source: the barn's, each outpost's, ransoms
        row(f"points from {src}", a.source_points(src), b.source_points(src))
    row("game length (turns)", [r["turns"] for r in a.rows], [r["turns"] for r in b.rows], "turns")
    if a.discards_apply or b.discards_apply:  # a card game discards no tile: no row
        row("discards", [r["discards"] for r in a.rows], [r["discards"] for r in b.rows], "tiles")
    # the balance measures (docs/simulate.md, "Balance")
    if a.players > 1:
        row("seat advantage (seat 1's score - the others' mean)", a.seat_edge(0), b.seat_edge(0))
    pairs = [(x, y) for x, y in zip(a.decided(), b.decided()) if x is not None and y is not None]
    row("decided at (share of the game)", [x for x, _ in pairs], [y for _, y in pairs], "share")
    row("lead changes", a.counts("lead_changes"), b.counts("lead_changes"), "times")
    row("score spread (top - bottom)", a.spread(), b.spread())
    row("lowest score", a.lowest(), b.lowest())
    row("length spread (turns from the median length)", a.length_deviation(), b.length_deviation(), "turns")
    for key, label in Summary.EXPANSION_COUNTS:
        if any(a.counts(key)) or any(b.counts(key)):
            row(label, a.counts(key), b.counts(key), "times")
    # rule usage: how often each rule fired per game, under either rule set
    # (a rule is matched by its clause and what it does, so an override and the rule it replaces are one row,
    # named at the rules under study's line: play/usage.py)
    ua, ub = per_game_usage(ours, a), per_game_usage(ref, b)
    from .usage import compared_label

    named = {compared_label(r): r.label for s_ in (ref, ours) for r in s_.usage_catalogue().rules}
    for key in sorted(set(ua) | set(ub), key=lambda k: named.get(k, k)):
        zero = [0] * len(both)
        row(f"fires: {named.get(key, key)}", ua.get(key, zero), ub.get(key, zero), "times")
    stats.adjust(rows)
    return rows


def per_game_usage(s: Summary, paired: Summary) -> dict[str, list[int]]:
    from .usage import per_game

    return per_game(s.usage_catalogue(), paired.rows)


CSV_FIELDS = ("rules", "game", "seed", "turns", "discards")


def write_csv(path: Path, summaries: list[Summary]) -> None:
    """One line per game and rule set: the seed, each seat's score, points by feature, length."""
    import csv

    players = summaries[0].players
    kinds = sorted({k for s in summaries for k in s.kinds()})
    # the Tower's captures and ransoms, when a game had any (other rule sets keep their columns)
    tower = ("captures", "ransoms") if any(r.get("captures") or r.get("ransoms") for s in summaries for r in s.rows) else ()
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([*CSV_FIELDS, *(f"score_{p + 1}" for p in range(players)), *(f"points_{k}" for k in kinds), *tower])
        for s in summaries:
            label = "+".join(s.rules)
            for r in s.rows:
                w.writerow([label, r["game"], r["seed"], r["turns"], r["discards"], *r["scores"],
                            *(r["points"].get(k, 0) for k in kinds), *(r.get(k, 0) for k in tower)])

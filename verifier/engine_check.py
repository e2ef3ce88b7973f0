"""Engine check: the compiled engine's incremental features against a from-scratch networkx rebuild.

In N random games, the board's features are recomputed independently of the
engine -- connected components of a graph whose nodes are (cell, place)
pairs, joined inside a tile by the rule file's feature definitions and across
tiles by matched edges; the graph grows by one tile per move, never read from
the engine's union-find -- and compared with what the engine's union-find
holds: the same features, the same tiles in each, the same figures, the same
completion status, the same open edges, the same field-city borders.  A
mismatch names the game's seed, the turn and the feature.

When: after every move that completes a feature or scores, at the end of every
game, and after one move in SAMPLE of the others (`tessera verify --engine`;
`check_engine(..., sample=1)` compares after every move).  A wrong merge, a
missed completion or a lost figure stays wrong until the end of the game, so
the end's comparison catches it even when it happened between two checks.
"""
from __future__ import annotations

from collections import Counter

from dataclasses import dataclass

import networkx as nx

from ..compiler.pyexpr import Scope, emit
from ..dsl import multicell
from ..dsl.model import RuleSet
from ..dsl.places import CORNER_HALVES, CORNER_MEETS, corner_feature, unrotate
from ..dsl.places import HALF_OPPOSITE, HALF_SIDE, OFFSET, OPPOSITE, SIDES, place_type, rotate


@dataclass
class Mismatch:
    seed: int
    turn: int
    message: str
    rules: tuple = ()  # a model error: the labels of the rules that fired (verifier/conformance.py)

    def __str__(self) -> str:
        return f"game seed {self.seed}, turn {self.turn}: {self.message}"


def _meets(cell, place):
    """The (cell, place) across the edge from an edge place, or None for C and corners."""
    t = place_type(place)
    if t == "side":
        dx, dy = OFFSET[place]
        return (cell[0] + dx, cell[1] + dy), OPPOSITE[place]
    if t == "half":
        dx, dy = OFFSET[HALF_SIDE[place]]
        return (cell[0] + dx, cell[1] + dy), HALF_OPPOSITE[place]
    return None


def _node(place: str, kind: str) -> str:
    """A graph node's place: the centre is qualified by kind, since two centre features may
    share C (a cloister beside a tower foundation)."""
    return f"C:{kind}" if place == "C" else place


def _engine_places(f: dict) -> frozenset:
    return frozenset((c, _node(p, f["kind"])) for c, p in f["places"])


class BoardGraph:
    """Owns the from-scratch feature graph of one board position.

    Built from the rule file's tiles alone (never from the engine's union-find);
    `add` puts one more tile on it, so a game's graph grows move by move instead
    of being rebuilt after every move."""

    def __init__(self, rs: RuleSet, board: dict):
        self.rs = rs
        self.g = nx.Graph()
        self.local: dict[tuple, tuple] = {}  # (cell, place) -> (cell, tile type, feature index)
        self.board: dict = {}
        self.at: dict = {}  # cell -> its nodes
        self.fresh: set = set()  # cells added since the last `take_fresh`
        for cell, (tid, rot) in board.items():
            self.add(cell, tid, rot)

    def add_multi(self, anchor, tid: int) -> None:
        """A tile covering several cells (X10), laid at rotation 0 with its NW cell at `anchor`:
        every covered cell is on the board; each feature's nodes, from its numbered places
        (tessera.dsl.multicell), are joined as one feature, and to the neighbours across the perimeter."""
        tt = self.rs.tiles[tid]
        w, h = tt.cells
        for i in range(w):
            for j in range(h):
                c = (anchor[0] + i, anchor[1] + j)
                self.board[c] = (tid, 0)
                self.fresh.add(c)
                self.at.setdefault(c, [])
        new = []
        for f in tt.features:
            nodes = []
            for p in f.places:
                (i, j), local = multicell.locate(p, w, h)
                nodes.append(((anchor[0] + i, anchor[1] + j), _node(local, f.kind)))
            for n in nodes:
                self.g.add_node(n, kind=f.kind)
                self.local[n] = (anchor, tid, f.index, 0)
                self.at[n[0]].append(n)
            for a, b in zip(nodes, nodes[1:]):
                self.g.add_edge(a, b)
            new.extend(nodes)
        for n in new:
            m = _meets(*n)
            if m is not None and m in self.g:
                self.g.add_edge(n, m)

    def _border_node(self, cell, tid: int, rot: int, bf):
        tt = self.rs.tiles[tid]
        if tt.cells is None:
            return (cell, _node(rotate(bf.places[0], rot), bf.kind))
        (i, j), local = multicell.locate(bf.places[0], *tt.cells)
        return ((cell[0] + i, cell[1] + j), _node(local, bf.kind))

    def add(self, cell, tid: int, rot: int) -> None:
        """One more tile on the board: its features' nodes, joined inside it and to its neighbours."""
        tt = self.rs.tiles[tid]
        self.board[cell] = (tid, rot)
        self.fresh.add(cell)
        new = self.at[cell] = []
        for f in tt.features:
            nodes = [(cell, _node(rotate(p, rot), f.kind)) for p in f.places]
            for n in nodes:
                self.g.add_node(n, kind=f.kind)
                self.local[n] = (cell, tid, f.index, rot)
            for a, b in zip(nodes, nodes[1:]):
                self.g.add_edge(a, b)
            new.extend(nodes)
        for n in new:
            m = _meets(*n)
            if m is not None and m in self.g:
                self.g.add_edge(n, m)

    def components(self) -> list[frozenset]:
        return [frozenset(c) for c in nx.connected_components(self.g)]

    def take_fresh(self) -> set:
        """The cells added since the last call."""
        fresh, self.fresh = self.fresh, set()
        return fresh

    def components_near(self, cells) -> tuple[list[frozenset], set]:
        """The components a move onto `cells` can have changed: those with a node on one of the cells, and
        the centre features (completed by neighbours) on the cells around them; and the cells they were
        looked for on."""
        focus = []
        where = set(cells)
        for cell in cells:
            focus.extend(self.at.get(cell, ()))
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    c = (cell[0] + dx, cell[1] + dy)
                    if (dx or dy) and c not in cells:
                        centre = [n for n in self.at.get(c, ()) if n[1].startswith("C:")]
                        if centre:
                            focus.extend(centre)
                            where.add(c)
        comps: list[frozenset] = []
        seen: set = set()
        for n in focus:
            if n not in seen:
                comp = frozenset(nx.node_connected_component(self.g, n))
                seen |= comp
                comps.append(comp)
        return comps, where

    def open_edges(self, comp) -> int:
        n = 0
        for cell, place in comp:
            m = _meets(cell, place)
            if m is not None and m[0] not in self.board:
                n += 1
        return n

    def neighbours(self, comp) -> int:
        (cell, _), *_ = comp
        return sum(1 for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx or dy) and (cell[0] + dx, cell[1] + dy) in self.board)

    def borders(self, comp, index) -> frozenset:
        out = set()
        for n in comp:
            cell, tid, fi, rot = self.local[n]
            f = self.rs.tiles[tid].features[fi]
            for b in f.borders:
                bf = self.rs.tiles[tid].features[b]
                if bf.places:
                    out.add(index[self._border_node(cell, tid, rot, bf)])
        return frozenset(out)


SAMPLE = 8  # between the moments that matter, one move in SAMPLE is checked


def _sync(bg: BoardGraph, g) -> None:
    """Put on the rebuild graph the tiles the engine placed since the last call."""
    for cell, (o, _) in g.board.tiles.items():
        if cell not in bg.board:
            part = getattr(o.tile, "part", None)
            if part is not None:  # a cell of a tile covering several cells: the whole tile, from its anchor
                tid, i, j = part
                bg.add_multi((cell[0] - i, cell[1] - j), tid)
            else:
                bg.add(cell, o.tile.index, o.rot)


CONFORM = True  # also hold every transition against the verifier's model (verifier/conformance.py)


def move_cost(g) -> int:
    """A move's charge to the budget (verifier/budget.py): listing a turn's moves grows with the board."""
    from .budget import MOVE_UNITS

    return MOVE_UNITS * (1 + len(g.board.tiles) // 100)


def check_engine(rs: RuleSet, games: int, players: int = 2, seed: int = 0, every: int = 1,
                 sample: int = 1, conform: bool | None = None, allowance: int | None = None,
                 stats: dict | None = None) -> tuple[list[Mismatch], int]:
    """Play `games` random games and compare the engine with the rebuild. Returns (mismatches, positions checked).

    `allowance`: the budget units these games may spend (verifier/budget.py; None: the rule set's
    budget in this process); once spent, the games stop, and `stats["cut"]` says so.  `stats` also
    receives the units spent (`"units"`) and the games played to their end (`"games"`).

    The comparison is made after every move that completes a feature or scores
    (the engine's completion count or its events moved), at the end of each game,
    and, between those, after one move in `sample` (`sample=1`: after every move;
    `every` > 1 checks one move in `every` and the end only)."""
    from ..compiler.build import load_engine

    eng = load_engine(rs)
    complete_rules = compile_complete_rules(rs)
    mismatches: list[Mismatch] = []
    checked = 0
    model = None
    if CONFORM if conform is None else conform:
        from .conformance import model_for

        model = model_for(rs, players)
    model_errors: list = []
    from ..replay.tiles import raise_rule_failure
    from ..compiler.runtime.play import random_moves

    from .budget import current

    spent = [0]
    cut = False
    finished = 0
    budget = current() if allowance is None else None
    for gi in range(games):
        if (allowance is not None and spent[0] >= allowance) or (budget is not None and budget.exhausted):
            cut = True
            break
        gseed = seed + gi
        turn = 0
        bg = BoardGraph(rs, {})
        mark = [0, 0]  # completions and events before the move

        watch = None
        if model is not None:
            from .conformance import Watcher

            watch = Watcher(model, gseed)

        def before(g, a) -> None:
            mark[0], mark[1] = sum(g.board.completed_count), len(g.events)
            if watch is not None:
                watch.before(g, a)

        def after(g) -> bool:
            """Compare at the moments that matter and a sample of the rest; a mismatch ends the game."""
            nonlocal turn, checked
            turn += 1
            units = move_cost(g)
            spent[0] += units
            if budget is not None:
                budget.spend(units)
            if (allowance is not None and spent[0] >= allowance) or (budget is not None and budget.exhausted):
                return True  # the budget is spent: this game stops here (stats["cut"])
            if watch is not None:
                watch.applied(g)
            if g.prisoners.pending is not None or g.outposts.decision is not None:
                return False  # mid-turn: a capture, an outpost or an attack's choice still to come
            if watch is not None:
                watch.quiet(g)
            if every > 1:
                due = turn % every == 0
            else:
                moved = sum(g.board.completed_count) != mark[0] or any(
                    e["kind"] in ("score", "award") for e in g.events[mark[1]:])
                due = moved or turn % sample == 0
            if due or g.ended:
                _sync(bg, g)
                fresh = bg.take_fresh()
                found = compare(rs, g, complete_rules, bg, None if g.ended else fresh)
                checked += 1
                mismatches.extend(Mismatch(gseed, turn, m) for m in found[:3])
                return bool(found)
            return False

        try:
            g = eng.new_game(players, gseed)
            if watch is not None:
                watch.start(g)
            random_moves(g, gseed, before=before, after=after)
            if g.ended:
                finished += 1
            else:
                cut = cut or (allowance is not None and spent[0] >= allowance) or (budget is not None and budget.exhausted)
            if watch is not None:
                if g.ended:
                    watch.quiet(g)  # a game that ended with no move left (finish) scored after the last move
                model_errors.extend(Mismatch(e.seed, e.turn, f"model error: {e.message}", e.rules) for e in watch.errors)
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            raise_rule_failure(exc, f"in game seed {gseed}, turn {turn}")
        if len(mismatches) >= 5 or len(model_errors) >= 3:
            break
    if stats is not None:
        stats.update(units=spent[0], cut=cut and not (mismatches or model_errors), games=finished)
    return mismatches + model_errors[:3], checked


_KINDS_MARKS: dict = {}  # id(rule set) -> (rule set, its centre kinds, its mark names)


def _kinds_and_marks(rs: RuleSet) -> tuple[set, list]:
    """The rule set's centre kinds and the marks its tiles print, read off its tiles once per rule set (a
    comparison asked them of every tile's features again, for every feature compared)."""
    hit = _KINDS_MARKS.get(id(rs))
    if hit is None or hit[0] is not rs:
        _KINDS_MARKS.clear()
        hit = _KINDS_MARKS[id(rs)] = (rs, rs.centre_kinds(), rs.mark_names())
    return hit[1], hit[2]


def compare(rs: RuleSet, g, complete_rules, bg: BoardGraph | None = None, cells=None) -> list[str]:
    """Every feature of the engine against the rebuild (`bg`: the rebuild graph of this very board, kept up to date
    by the caller; built from scratch when not given).

    With `cells` (the tiles placed since the last comparison), only the features a move onto those cells can
    have changed -- the features on them and the centre features around them -- each as one piece, its tiles,
    open edges, figures and completion; the whole board (borders, figure counts and corners too) otherwise."""
    if bg is None:
        bg = BoardGraph(rs, {})
        _sync(bg, g)
    whole = cells is None
    if whole:
        comps = bg.components()
        index = {n: i for i, c in enumerate(comps) for n in c}
        engine = g.features()
    else:
        comps, near = bg.components_near(cells)
        index = {}
        engine = g.features(cells=near)
    problems: list[str] = []
    centre, marks = _kinds_and_marks(rs)
    places = [_engine_places(f) for f in engine]  # each feature's (cell, place) nodes, made once
    by_places = dict(zip(places, engine))
    root_places = {f["root"]: p for f, p in zip(engine, places)}
    for i, comp in enumerate(comps):
        kind = bg.g.nodes[next(iter(comp))]["kind"]
        where = _Where(comp, kind)
        f = by_places.get(comp)
        if f is None:
            problems.append(f"{where}: the engine does not hold this feature as one piece")
            continue
        cells = frozenset(c for c, _ in comp)
        if f["cells"] != cells:
            problems.append(f"{where}: engine counts tiles {sorted(f['cells'])}, rebuild {sorted(cells)}")
        op = bg.open_edges(comp)
        if kind not in centre and f["open"] != op:
            problems.append(f"{where}: engine says {f['open']} open edges, rebuild {op}")
        for who, fig, cell, place in f["figure_places"]:
            if (cell, _node(place, kind)) not in comp:
                problems.append(f"{where}: the engine's {fig} of {who} at {cell} {place} is not on this feature")
        want_done = False
        if kind in complete_rules:
            names = {"open": op, "neighbours": bg.neighbours(comp), "tiles": len(cells),
                     "shields": _shields(rs, bg, comp), "figures": len(f["figures"]),
                     "marks": {m: _marks(rs, bg, comp, m) for m in marks},
                     # the figures by type (a figure's place on the feature is checked above)
                     "count": Counter(name for _, name in f["figures"]),
                     "players": g.nplayers, "current": g.current,
                     # game-wide counts the rebuild cannot redo on its own: the engine's own values
                     "completed": {k[0]: g.board.completed_count[i] for i, k in enumerate(g.R.KINDS)},
                     "state": {name: g.st[i] for i, name in enumerate(rs.states)}}
            want_done = bool(complete_rules[kind](names))
        if f["complete"] != want_done:
            problems.append(f"{where}: engine says {'complete' if f['complete'] else 'incomplete'}, rebuild says {'complete' if want_done else 'incomplete'}")
        if not whole:
            continue
        engine_borders = frozenset(index[next(iter(root_places[r]))] for r in f["borders"] if root_places.get(r))
        want_borders = bg.borders(comp, index)
        if engine_borders != want_borders:
            problems.append(f"{where}: engine borders {len(engine_borders)} features, rebuild {len(want_borders)}")
    if not whole:
        return problems
    if len(engine) != len(comps):
        problems.append(f"engine holds {len(engine)} features, rebuild finds {len(comps)}")
    comp_kinds = [bg.g.nodes[next(iter(c))]["kind"] for c in comps]
    problems.extend(_corner_problems(rs, g, bg.board, comps, index, root_places, comp_kinds))
    # figures are conserved: supply + board == the rules' count, per player and figure
    on_board: dict[tuple, int] = {}
    for f in engine:
        for who, fig in f["figures"]:
            on_board[(who, fig)] = on_board.get((who, fig), 0) + 1
    for p in range(g.nplayers):
        for gi, fig in enumerate(g.R.FIGURES):
            fname, count = fig.name, fig.count_for(g.nplayers)
            held = g.held_count(p, gi)  # prisoners held by other players (the Tower)
            outposts = g.on_outposts(p, gi)  # on the outposts (Siege and Defense)
            have = g.supply.left[p][gi] + on_board.get((g.names[p], fname), 0) + held + outposts
            if have != count:
                problems.append(f"player {g.names[p]} has {have} {fname}s (supply + board + outposts + held as prisoners), "
                                f"the rules give {count}")
    return problems


def _corner_problems(rs: RuleSet, g, board: dict, comps, index, root_places, comp_kinds) -> list[str]:
    """Figures on corners (the barn): the four cells meeting at the corner are placed, each tile
    has the figure's kind on both half-sides beside that corner (from the rule file's features,
    rotated), those four pieces are one feature of the rebuild, and the engine's feature holding
    the figure is that one."""
    out = []
    for (p, gi, seg), (cell, corner) in g.board.corner_at.items():
        fname = g.R.FIGURES[gi].name
        kinds = set(rs.may_stand(fname))
        where = f"{fname} of {g.names[p]} at the {corner} corner of [{cell[0]},{cell[1]}]"
        nodes = []
        for dx, dy, theirs in ((0, 0, corner), *CORNER_MEETS[corner]):
            c = (cell[0] + dx, cell[1] + dy)
            if c not in board:
                out.append(f"{where}: [{c[0]},{c[1]}] is empty, but four tiles must meet there")
                break
            tid, rot = board[c]
            if rs.tiles[tid].cells is not None:
                # a cell of a tile covering several cells (laid at rotation 0): the rebuild holds its
                # pieces under the cell's own place names (tessera.dsl.multicell.locate), so ask the graph
                halves = CORNER_HALVES[theirs]
                found = {index.get((c, h)) for h in halves}
                if None in found or len(found) != 1 or comp_kinds[next(iter(found))] not in kinds:
                    out.append(f"{where}: tile {rs.tiles[tid].name} has no {'/'.join(sorted(kinds))} "
                               f"on both of {', '.join(halves)} of its cell [{c[0]},{c[1]}]")
                    break
                nodes.append((c, halves[0]))
                continue
            local = [unrotate(h, rot) for h in CORNER_HALVES[theirs]]
            fi = corner_feature(rs.tiles[tid].features, unrotate(theirs, rot), kinds)
            if fi is None:
                out.append(f"{where}: tile {rs.tiles[tid].name} at [{c[0]},{c[1]}] has no {'/'.join(sorted(kinds))} "
                           f"on both of {', '.join(local)} (its own frame)")
                break
            nodes.append((c, CORNER_HALVES[theirs][0]))
        else:
            pieces = {index.get(n) for n in nodes}
            if len(pieces) != 1 or None in pieces:
                out.append(f"{where}: the four tiles' pieces at the corner are {len(pieces)} features in the rebuild")
                continue
            held = root_places.get(g.board.find(seg))
            if held != comps[pieces.pop()]:
                out.append(f"{where}: the engine's feature holding it is not the field at that corner")
    return out


_QUANTITIES = ("open", "neighbours", "tiles", "shields", "figures", "players", "current")


def compile_complete_rules(rs: RuleSet) -> dict:
    """Each kind's completion condition, from the rule AST, as a function of independently computed quantities."""
    out = {}
    for kind, c in rs.complete.items():
        scope = Scope(names={q: f"v[{q!r}]" for q in _QUANTITIES})
        scope.names.update({name: f"v['state'][{name!r}]" for name in rs.states})
        scope.calls["completed"] = lambda args, sc: f"v['completed'][{args[0].name!r}]"
        scope.calls["marks"] = lambda args, sc: f"v['marks'][{args[0].name!r}]"
        # `count(F)` in a condition (`complete tower when count(floor) >= 3`, a house rule's): it was a KeyError
        # that stopped the whole engine check
        scope.calls["count"] = lambda args, sc: f"v['count'][{args[0].name!r}]"
        out[kind] = eval("lambda v: " + emit(c.when, scope), {"_of": lambda vs, p: vs[p] if 0 <= p < len(vs) else 0,
                                                             "_div": lambda a, b: a // b if b else 0,
                                                             "_mod": lambda a, b: a % b if b else 0})
    return out


def _marks(rs: RuleSet, bg: BoardGraph, comp, mark: str) -> int:
    parts = {(bg.local[n][0], bg.local[n][1], bg.local[n][2]) for n in comp}  # distinct tile features
    return sum(rs.tiles[tid].features[fi].marks_of(mark) for _, tid, fi in parts)


def _shields(rs: RuleSet, bg: BoardGraph, comp) -> int:
    parts = {(bg.local[n][0], bg.local[n][1], bg.local[n][2]) for n in comp}  # distinct tile features
    return sum(rs.tiles[tid].features[fi].shields for _, tid, fi in parts)


class _Where:
    """A feature's description, worked out only if a problem is reported."""

    def __init__(self, comp, kind):
        self.comp, self.kind = comp, kind

    def __format__(self, spec) -> str:
        return _describe(self.comp, self.kind)


def _describe(comp, kind) -> str:
    cells = sorted({c for c, _ in comp})
    head = ", ".join(f"[{x},{y}]" for x, y in cells[:3]) + (" …" if len(cells) > 3 else "")
    return f"{kind} on {head}"


# -- registered as a `tessera verify` check, run with `--engine [--games N]` ----------
from .checks import after_checks, register  # noqa: E402
from .invariants import model_sample, void_result  # noqa: E402

ENGINE_GAMES = 0  # set by `tessera verify --engine --games N`
MODEL_ERRORS: dict = {}  # id(rule set) -> its model errors (Mismatch with rules), read by `after_engine`
ENGINE_PLAYERS = 2


_POOL: list = []  # [ProcessPoolExecutor, jobs]: started once, kept for every rule set of a `tessera verify` run


def _pool(jobs: int):
    """A pool of `jobs` spawned workers, kept between rule sets: starting a worker (imports, networkx) costs
    more than a rule set's share of the games."""
    import atexit
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if _POOL and _POOL[1] == jobs:
        return _POOL[0]
    close_pool()
    ex = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    if not _POOL:
        atexit.register(close_pool)
    _POOL[:] = [ex, jobs]
    return ex


def close_pool() -> None:
    if _POOL:
        ex, _ = _POOL
        _POOL.clear()
        ex.shutdown(wait=True, cancel_futures=True)


def check_engine_parallel(rs: RuleSet, games: int, players: int = 2, jobs: int | None = None,
                          sample: int = SAMPLE, stats: dict | None = None) -> tuple[list[Mismatch], int]:
    """`check_engine` over seeds 0..games-1 split into one contiguous range per process (all cores by
    default); the same games and the same answer as one process, the first mismatches in seed order."""
    import os

    from .budget import current

    jobs = jobs or len(os.sched_getaffinity(0))
    jobs = max(1, min(jobs, games // 20))  # a process is worth starting for 20 games or more
    budget = current()
    stats = stats if stats is not None else {}
    if jobs == 1:
        return check_engine(rs, games, players, 0, sample=sample, stats=stats)
    bounds = [games * k // jobs for k in range(jobs + 1)]
    each = None if budget.total is None else budget.left // jobs  # each worker's share of what is left
    parts = list(_pool(jobs).map(_check_range, [(rs, bounds[k + 1] - bounds[k], players, bounds[k], sample, each)
                                                for k in range(jobs)]))
    for _, _, st in parts:
        budget.spend(st.get("units", 0))
    stats.update(units=sum(st.get("units", 0) for _, _, st in parts), games=sum(st.get("games", 0) for _, _, st in parts),
                 cut=any(st.get("cut") for _, _, st in parts))
    mismatches = [m for ms, _, _ in parts for m in ms][:5]
    return mismatches, sum(c for _, c, _ in parts)


def _check_range(args):
    rs, games, players, seed, sample, allowance = args
    stats: dict = {}
    ms, checked = check_engine(rs, games, players, seed, sample=sample, allowance=allowance, stats=stats)
    return ms, checked, stats


def _engine_clauses(rs: RuleSet) -> list[str]:
    corner = [c.clause for n in rs.corner_figures() for c in (rs.figures[n].on_cites or rs.figures[n].cites)[:1]]
    return ["BASE-PLACE-2", "BASE-FIELD-1", "BASE-COMP-2", *corner]


@register("engine-features", _engine_clauses, applies=lambda rs: ENGINE_GAMES > 0 and bool(rs.tiles))
def engine_features(rs: RuleSet):
    """The compiled engine's features match an independent networkx rebuild (at every completion and scoring,
    the end of each game, one move in SAMPLE otherwise), the games split over all cores."""
    from ..compiler.runtime.errors import RuleFailure

    from .budget import current

    stats: dict = {}
    try:
        mismatches, checked = check_engine_parallel(rs, ENGINE_GAMES, ENGINE_PLAYERS, sample=SAMPLE, stats=stats)
    except RuleFailure as failure:
        return [failure.describe()]
    out = [str(m) for m in mismatches]
    if mismatches:
        out.extend(mismatch_witness(rs, mismatches[0], ENGINE_PLAYERS))
    MODEL_ERRORS[id(rs)] = [m for m in mismatches if m.rules]  # they void the proofs that used those steps
    if stats.get("cut") and not out:  # never a pass on games it did not play
        out.append(f"inconclusive, not a pass: {stats.get('games', 0)} of {ENGINE_GAMES} games played to their end "
                   f"before the {current().reason()}")
    return out


@after_checks
def after_engine(rs: RuleSet, results: list) -> None:
    """After every check of the rule set: the engine check's model errors void the invariants' verdicts
    that used the erring steps (run_checks calls it; the invariants' result is rewritten)."""
    if not any(r.name == "engine-features" for r in results):
        return
    errors = MODEL_ERRORS.pop(id(rs), None)
    void_result(rs, results, [(m.rules, str(m)) for m in errors or ()])


SAMPLE_GAMES = 3  # conformance games of a house rule under --no-engine (the engine check plays more)


def _house(rs: RuleSet) -> bool:
    """Has the rule set a module outside the bundled top-level rule files (a house rule, or a variant)?"""
    from pathlib import Path

    from ..dsl.model import BUNDLED_RULES

    for m in rs.modules:
        f = Path(m.span.file or "")
        try:
            if f.resolve().parent != BUNDLED_RULES.resolve():
                return True
        except OSError:
            return True
    return False


@model_sample
def sample_model_errors(rs: RuleSet, games: int = SAMPLE_GAMES) -> list[tuple[tuple, str]]:
    """Under --no-engine (no engine check to hold the model to the engine), a house rule's few games of
    the compiled engine held against the model (the conformance check), within the rule set's budget: the
    model errors found, as (rules that fired, text); asked by the invariants check (verifier/invariants.py)."""
    from ..compiler.runtime.errors import RuleFailure

    from ..compiler.lower import CompileError

    if ENGINE_GAMES > 0 or not _house(rs) or not rs.tiles:
        return []
    try:
        found, _ = check_engine(rs, games, 2, 0, every=1 << 30, conform=True)
    except RuleFailure:
        return []  # a rule that fails in a game: the examples, the records and the engine check report it
    except CompileError:
        # no engine: a parameter kept a z3 name (`verify --param`; verifier/params.py counts such a proof
        # only where the range's two ends pass their own check, these games included)
        return []
    return [(m.rules, str(m)) for m in found if m.rules]


def mismatch_witness(rs: RuleSet, m: Mismatch, players: int) -> list[str]:
    """The check's game of mismatch `m` as a tessera-game/1 record: the same seed and the same random
    moves (runtime/play.py's `random_moves`) up to the move after which the engine and the rebuild
    disagreed, replayed at once to the same scores; so a failure is a game a person can step through,
    not a seed of the check's loop (issue 35: refuted means a game, everywhere)."""
    from ..compiler.build import load_engine
    from ..replay.records import game_record, load_record, write_record
    from ..replay.tiles import replay
    from ..compiler.runtime.play import random_moves
    from ..replay.turns import Recorder

    from .witness import _record_folder, _slug, record_rules

    try:
        g = load_engine(rs).new_game(players, m.seed)
        turns: list = []
        moves = [0]

        def after(_g) -> bool:
            moves[0] += 1
            return moves[0] >= m.turn

        random_moves(g, m.seed, before=Recorder(turns), after=after)
        d = _record_folder(None)
        path = d / f"{_slug('+'.join(rs.names))}--engine-features--seed-{m.seed}.json"
        write_record(path, game_record(record_rules(rs, d), list(g.names), m.seed, turns,
                                       "final" if g.ended else "none"))
        res = replay(load_record(path), path.parent)
    except Exception as exc:  # the record cannot be written or is refused: said, the failure stands
        return [f"    (no record: {type(exc).__name__}: {exc})"]
    same = res.error is None and list(res.game.scores) == list(g.scores)
    said = "" if same else " (it does not replay to the same scores: the engine is not deterministic)"
    return [f"    replay it: tessera replay {path}{said} ({len(turns)} turns, to move {m.turn})",
            f"    see it:    tessera view {path} -o {path.with_suffix('.html')}"]

"""Engine check: the compiled engine's incremental features against a from-scratch networkx rebuild.

After every move of N random games, the board's features are recomputed
independently of the engine -- connected components of a graph whose nodes are
(cell, place) pairs, joined inside a tile by the rule file's feature
definitions and across tiles by matched edges -- and compared with what the
engine's union-find holds: the same features, the same tiles in each, the same
figures, the same completion status, the same open edges, the same field-city
borders.  A mismatch names the game's seed, the turn and the feature.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from compiler.pyexpr import Scope, emit
from dsl.model import RuleSet
from dsl.places import CORNER_HALVES, CORNER_MEETS, corner_feature, unrotate
from dsl.places import HALF_OPPOSITE, HALF_SIDE, OFFSET, OPPOSITE, SIDES, place_type, rotate


@dataclass
class Mismatch:
    seed: int
    turn: int
    message: str

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


class BoardGraph:
    """Owns the from-scratch feature graph of one board position."""

    def __init__(self, rs: RuleSet, board: dict):
        self.rs = rs
        self.g = nx.Graph()
        self.local: dict[tuple, tuple] = {}  # (cell, place) -> (cell, tile type, feature index)
        tiles = {i: t for i, t in enumerate(rs.tiles)}
        for cell, (tid, rot) in board.items():
            tt = tiles[tid]
            for f in tt.features:
                nodes = [(cell, rotate(p, rot)) for p in f.places]
                for n in nodes:
                    self.g.add_node(n, kind=f.kind)
                    self.local[n] = (cell, tid, f.index, rot)
                for a, b in zip(nodes, nodes[1:]):
                    self.g.add_edge(a, b)
        for n in list(self.g.nodes):
            m = _meets(*n)
            if m is not None and m in self.g:
                self.g.add_edge(n, m)
        self.board = board

    def components(self) -> list[frozenset]:
        return [frozenset(c) for c in nx.connected_components(self.g)]

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
                    out.add(index[(cell, rotate(bf.places[0], rot))])
        return frozenset(out)


def check_engine(rs: RuleSet, games: int, players: int = 2, seed: int = 0, every: int = 1) -> tuple[list[Mismatch], int]:
    """Play `games` random games; compare after every `every` moves. Returns (mismatches, positions checked)."""
    from compiler.build import load_engine

    eng = load_engine(rs)
    complete_rules = compile_complete_rules(rs)
    mismatches: list[Mismatch] = []
    checked = 0
    from compiler.replay import raise_rule_failure
    from compiler.runtime.game import random_moves

    for gi in range(games):
        gseed = seed + gi
        turn = 0

        def after(g) -> bool:
            """Compare after every `every` moves; a mismatch ends the game."""
            nonlocal turn, checked
            turn += 1
            if turn % every == 0 or g.ended:
                found = compare(rs, g, complete_rules)
                checked += 1
                mismatches.extend(Mismatch(gseed, turn, m) for m in found[:3])
                return bool(found)
            return False

        try:
            random_moves(eng.new_game(players, gseed), gseed, after=after)
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            raise_rule_failure(exc, f"in game seed {gseed}, turn {turn}")
        if len(mismatches) >= 5:
            break
    return mismatches, checked


def compare(rs: RuleSet, g, complete_rules) -> list[str]:
    board = {cell: (o.tile.index, o.rot) for cell, (o, _) in g.board.items()}
    bg = BoardGraph(rs, board)
    comps = bg.components()
    index = {n: i for i, c in enumerate(comps) for n in c}
    engine = g.features()
    problems: list[str] = []
    by_places = {f["places"]: f for f in engine}
    root_places = {f["root"]: f["places"] for f in engine}
    for i, comp in enumerate(comps):
        kind = bg.g.nodes[next(iter(comp))]["kind"]
        where = _describe(comp, kind)
        f = by_places.get(comp)
        if f is None:
            problems.append(f"{where}: the engine does not hold this feature as one piece")
            continue
        cells = frozenset(c for c, _ in comp)
        if f["cells"] != cells:
            problems.append(f"{where}: engine counts tiles {sorted(f['cells'])}, rebuild {sorted(cells)}")
        op = bg.open_edges(comp)
        if kind not in rs.centre_kinds() and f["open"] != op:
            problems.append(f"{where}: engine says {f['open']} open edges, rebuild {op}")
        for who, fig, cell, place in f["figure_places"]:
            if (cell, place) not in comp:
                problems.append(f"{where}: the engine's {fig} of {who} at {cell} {place} is not on this feature")
        want_done = False
        if kind in complete_rules:
            names = {"open": op, "neighbours": bg.neighbours(comp), "tiles": len(cells),
                     "shields": _shields(rs, bg, comp), "figures": len(f["figures"]),
                     "players": g.nplayers, "current": g.current,
                     # game-wide counts the rebuild cannot redo on its own: the engine's own values
                     "completed": {k[0]: g.completed_count[i] for i, k in enumerate(g.R.KINDS)},
                     "state": {name: g.st[i] for i, name in enumerate(rs.states)}}
            want_done = bool(complete_rules[kind](names))
        if f["complete"] != want_done:
            problems.append(f"{where}: engine says {'complete' if f['complete'] else 'incomplete'}, rebuild says {'complete' if want_done else 'incomplete'}")
        engine_borders = frozenset(index[next(iter(root_places[r]))] for r in f["borders"] if root_places.get(r))
        want_borders = bg.borders(comp, index)
        if engine_borders != want_borders:
            problems.append(f"{where}: engine borders {len(engine_borders)} features, rebuild {len(want_borders)}")
    if len(engine) != len(comps):
        problems.append(f"engine holds {len(engine)} features, rebuild finds {len(comps)}")
    problems.extend(_corner_problems(rs, g, board, comps, index, root_places))
    # figures are conserved: supply + board == the rules' count, per player and figure
    on_board: dict[tuple, int] = {}
    for f in engine:
        for who, fig in f["figures"]:
            on_board[(who, fig)] = on_board.get((who, fig), 0) + 1
    for p in range(g.nplayers):
        for gi, fig in enumerate(g.R.FIGURES):
            fname, count = fig.name, fig.count
            have = g.supply[p][gi] + on_board.get((g.names[p], fname), 0)
            if have != count:
                problems.append(f"player {g.names[p]} has {have} {fname}s (supply + board), the rules give {count}")
    return problems


def _corner_problems(rs: RuleSet, g, board: dict, comps, index, root_places) -> list[str]:
    """Figures on corners (the barn): the four cells meeting at the corner are placed, each tile
    has the figure's kind on both half-sides beside that corner (from the rule file's features,
    rotated), those four pieces are one feature of the rebuild, and the engine's feature holding
    the figure is that one."""
    out = []
    for (p, gi, seg), (cell, corner) in getattr(g, "corner_at", {}).items():
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
            held = root_places.get(g.find(seg))
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
        out[kind] = eval("lambda v: " + emit(c.when, scope), {"_div": lambda a, b: a // b if b else 0,
                                                             "_mod": lambda a, b: a % b if b else 0})
    return out


def _shields(rs: RuleSet, bg: BoardGraph, comp) -> int:
    parts = {(bg.local[n][0], bg.local[n][1], bg.local[n][2]) for n in comp}  # distinct tile features
    return sum(rs.tiles[tid].features[fi].shields for _, tid, fi in parts)


def _describe(comp, kind) -> str:
    cells = sorted({c for c, _ in comp})
    head = ", ".join(f"[{x},{y}]" for x, y in cells[:3]) + (" …" if len(cells) > 3 else "")
    return f"{kind} on {head}"


# -- registered as a `tessera verify` check, run with `--engine [--games N]` ----------
from .checks import register  # noqa: E402

ENGINE_GAMES = 0  # set by `tessera verify --engine --games N`
ENGINE_PLAYERS = 2


def _engine_clauses(rs: RuleSet) -> list[str]:
    corner = [c.clause for n in rs.corner_figures() for c in (rs.figures[n].on_cites or rs.figures[n].cites)[:1]]
    return ["BASE-PLACE-2", "BASE-FIELD-1", "BASE-COMP-2", *corner]


@register("engine-features", _engine_clauses, applies=lambda rs: ENGINE_GAMES > 0)
def engine_features(rs: RuleSet):
    """The compiled engine's features match a from-scratch networkx rebuild after every move."""
    from compiler.runtime.errors import RuleFailure

    try:
        mismatches, checked = check_engine(rs, ENGINE_GAMES, ENGINE_PLAYERS, seed=0)
    except RuleFailure as failure:
        return [failure.describe()]
    return [str(m) for m in mismatches]

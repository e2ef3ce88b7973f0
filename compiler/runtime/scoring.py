"""Scoring: completion, owners, points for owners, returned figures, recalls, final scoring, awards."""
from __future__ import annotations

from .figures import remove_fig
from .geometry import KEY
from .outposts import final_outposts
from .rounds import last_round


# functions of the game: they write its `scores` and `ended` and read the board (`g.board`, runtime/board.py);
# Game binds them as its methods
def owners(g, r):
    figs = g.board.figs[r]
    if not figs:
        return []
    corner = g.R.FIG_CORNER  # a figure on a corner makes nobody an owner
    if len(figs) == 1:  # one figure (the common case): its player, if it is not on a corner
        e = figs[0]
        return [] if e[1] in corner else [e[0]]
    count = {}
    for p, gi, seg in figs:
        if gi not in corner:
            count[p] = count.get(p, 0) + 1
    if not count:
        return []
    if not g.R.OWNERS_MOST:
        return sorted(count)
    top = max(count.values())
    return sorted([p for p, c in count.items() if c == top])


def _award(g, r, kind, when, rule):
    """Score feature r for its owners: by `rule` (fn, clause; None: no plain rule), or by a
    `score ... by FIGURE` rule for an owner whose figure there is that figure.  A FIGURE on a
    corner makes nobody an owner: every player with one there scores by its `by` rule, in
    full.  One event per clause."""
    R = g.R
    by = R.SCORE_BY
    b = g.board
    corner = R.FIG_CORNER
    scores = g.scores
    names = g.names
    groups = {}
    for p in owners(g, r):
        fn, clause = rule if rule is not None else (None, None)
        if by:
            for pl, gi, _ in b.figs[r]:
                if pl == p and (when, kind, gi) in by and gi not in corner:
                    fn, clause = by[(when, kind, gi)]
                    break
        if fn is None:
            continue
        pts = fn(g, r)
        if pts:
            scores[p] += pts
            points = groups.get(clause)
            if points is None:
                points = groups[clause] = {}
            points[names[p]] = pts
    if by and corner:
        seen = set()
        for pl, gi, _ in b.figs[r]:
            if gi in corner and (when, kind, gi) in by and (pl, gi) not in seen:
                seen.add((pl, gi))
                fn, clause = by[(when, kind, gi)]
                pts = fn(g, r)
                if pts:
                    scores[pl] += pts
                    points = groups.setdefault(clause, {})
                    points[names[pl]] = points.get(names[pl], 0) + pts
    if groups:
        feature = R.KINDS[kind].name
        tiles = len(b.cells[r])
        events = g.events
        for clause, points in groups.items():
            events.append({"turn": g.turn, "kind": "score", "feature": feature, "when": when,
                           "tiles": tiles, "points": points, "clause": clause})


def _score_completed(g, cell, touched):
    """Features the tile just placed at cell completed (its own, and centre features around it)."""
    R = g.R
    cands = touched if type(touched) is set else set(touched)  # the roots the tile touched, each once
    b = g.board
    parent = b.parent
    around = b.around_centres.get(cell[0] * KEY + cell[1])  # the tiles around with centre features, in AROUND's order
    if around is not None:
        cands = set(touched)
        for _, no, base in around:  # a cloister (or garden) around may be complete now
            for i in no.centre:
                s = parent[base + i]
                cands.add(s if parent[s] == s else b.find(s))
    done = b.done
    seg_kind = b.seg_kind
    Rd = g.Rd  # the rules' tables by name (Game.__init__)
    complete = Rd["COMPLETE"]
    quick = Rd["QUICK_COMPLETE"]  # lowering's: the kinds whose `complete` is `open == 0` (quick[0])
    closed = quick[0] if quick is not None else ()
    finished = []
    for r in cands:
        if not done[r]:
            kind = seg_kind[r]
            if kind in closed:  # read from the board: no call of the generated condition
                if b.open[r] == 0:
                    finished.append(r)
            else:  # the condition itself (a method it reads that fails is reported at its rule's line)
                test = complete.get(kind)
                if test is not None and test(g, r):
                    finished.append(r)
    if len(finished) > 1:
        finished.sort(key=g._canon)  # several in one turn: a canonical order (the King's depends on it)
    for r in finished:
        kind = seg_kind[r]
        done[r] = True
        b.completed_count[kind] += 1
        sc = Rd["SCORE_COMPLETE"].get(kind)
        if sc is not None:
            g._award(r, kind, "complete", sc)
        g._return_figures(r)
        R.on_complete(g, r, kind)


def _return_figures(g, r):
    """After a scoring, figures with a `return ... when scored` rule go back to supply."""
    R = g.R
    b = g.board
    if b.figs[r]:
        keep = []
        s = g.supply
        for e in b.figs[r]:
            if e[1] in R.RETURNS:
                s.left[e[0]][e[1]] += 1
                s.recallable.pop(e[2], None)
                if b.corner_at.pop(e, None) is not None:
                    b.on_corners -= 1
            else:
                keep.append(e)
        b.figs[r] = keep


def _recall(g, p, gi, seg):
    """Player p takes back figure gi standing on segment seg and scores the recall rule."""
    R = g.R
    b = g.board
    r = b.find(seg)
    fn, clause = R.RECALLS[gi]
    pts = fn(g, r)
    b.figs[r] = remove_fig(g, r, p, gi, seg)
    g.supply.recallable.pop(seg, None)
    g.supply.left[p][gi] += 1
    g.scores[p] += pts
    g.events.append({"turn": g.turn, "kind": "score", "feature": R.KINDS[b.seg_kind[seg]].name, "when": "recall",
                        "tiles": len(b.cells[r]), "points": {g.names[p]: pts}, "clause": clause})


def _final(g):
    R = g.R
    g.ended = True
    last_round(g)  # the game's end closes a round not every player had a turn in (runtime/rounds.py)
    if R.TRACKS:  # every outpost counterattacks before final scoring (SIEGE-END-1)
        final_outposts(g)
    b = g.board
    parent, figs, done = b.parent, b.figs, b.done
    roots = [r for r in range(len(parent)) if parent[r] == r and figs[r] and not done[r]]
    _canon_sort(g, roots)
    seg_kind = b.seg_kind
    score_end = R.SCORE_END
    by = R.SCORE_BY
    for r in roots:
        kind = seg_kind[r]
        sc = score_end.get(kind)
        if sc is not None or by:
            _award(g, r, kind, "end", sc)
    for si, fn, clause, name in R.AWARDS:
        holder = g.st[si]
        if 0 <= holder < g.nplayers:
            pts = fn(g)
            g.scores[holder] += pts
            g.events.append({"turn": g.turn, "kind": "award", "award": name, "when": "end",
                                "points": {g.names[holder]: pts}, "clause": clause})
    for si, fn, clause, name in R.AWARDS_MOST:
        values = g.st[si]
        top = max(values)
        if top <= 0:
            continue  # nobody has any: nobody has the most
        pts = fn(g)
        won = [p for p in range(g.nplayers) if values[p] == top]  # a tie: each of them scores
        for p in won:
            g.scores[p] += pts
        g.events.append({"turn": g.turn, "kind": "award", "award": name, "when": "end",
                            "points": {g.names[p]: pts for p in won}, "clause": clause})


def _canon_sort(g, roots):
    """Sort roots in place as `roots.sort(key=g._canon)` does (featureview.canon: kind, least cell, size,
    the cells in order), comparing the cells in full only among roots equal in the rest."""
    b = g.board
    cells = b.cells
    seg_kind = b.seg_kind
    kinds = g.R.KINDS
    keys = {}
    for r in roots:
        c = cells[r]
        first = True
        mx = my = 0
        for x, y in c:  # min(c), without a comparison of tuples
            if first or x < mx or (x == mx and y < my):
                mx, my = x, y
                first = False
        keys[r] = (kinds[seg_kind[r]].name, (mx, my), len(c))
    roots.sort(key=keys.__getitem__)
    n = len(roots)
    i = 0
    while i < n:
        k = keys[roots[i]]
        j = i + 1
        while j < n and keys[roots[j]] == k:
            j += 1
        if j - i > 1:  # among equals, by the cells in order, then as they were (a stable sort)
            run = sorted([(sorted(cells[roots[t]]), t, roots[t]) for t in range(i, j)])
            roots[i:j] = [e[2] for e in run]
        i = j


def finish(g):
    """End the game now (a record's `"end": "final"`): final scoring."""
    if not g.ended:
        g._final()


def winners(g):
    top = max(g.scores)
    return [g.names[p] for p in range(g.nplayers) if g.scores[p] == top]

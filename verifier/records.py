"""The rulebooks' worked examples as games: bundled records replayed with the rule set's engine.

A worked example that is a situation on the board (a floor that captures across a gap, a
follower refused on an occupied road, a counterattack on a full outpost) cannot be an
`example` block, which asks z3 about one scoring formula.  It is a game record
(`tessera-game/1`, conventions.md) under `rules/records/<module>/`, and the folder's
`expected.json` says what the rulebook says the game gives, worked out by hand from the
rulebook's text (never read from the engine). Every key is shown below; an expectation
has those it needs (a refused game: `error` alone):

    {"city_3_tiles_1_shield.json": {
        "clause": "BASE-CITY-2",
        "rulebook": "a completed city of 3 tiles and 1 shield: 2 per tile and per shield, 8",
        "scores": {"red": 8, "blue": 0},
        "events": [[2, "city", "complete", {"red": 8}, "BASE-CITY-2"]],
        "supply": {"red": {"follower": 7}},
        "prisoners": {},
        "outposts": {"monks": {"row": ["red"], "pool": [], "catapults": 0}},
        "winners": ["red"],
        "error": {"turn": 8, "clause": "BASE-FOLLOW-2", "words": ["follower", "city"]}}}

`scores`, `prisoners` and `winners` are compared whole; `events` is every scoring event
(turn, feature, when, points, and optionally the clause or a list of acceptable ones), in
any order, and no other; `supply` the figures it names; `outposts` each outpost it names, with the
keys it names (`row`, `pool`, `catapults`, `slots`); `error` says the record's turn
`turn` is refused citing `clause` (or one of a list), with `words` in its message, and
nothing before it; without `error` the record must replay to its end.  A key left out is
not checked.

The check `records` replays, for a rule set, every bundled record whose rules are that
rule set (its modules, as `tessera verify base+barn` loads them): `tessera verify`'s
default rule sets run the records of one expansion each.  The engine is compiled from the
very rule set verified, so a rule file changed by mistake changes the game the record
replays, and what differs is an error.

A house rule's rule set (one with modules that are not bundled rule files: `tessera verify
rules/variants/big_cities.tess` loads base and big_cities) runs the records of the rule set
the house rule changes: those whose modules are the rule set's without the house rule's
(base's for big_cities; a record of base is not run under base+river+big_cities, whose
river alone would change it).  They are replayed with the house rule's engine, and a house
rule may change the game: a record that gives what the rulebook says is counted as agreeing
(the house rule leaves that game alone), one that differs is a note, not an error, at the
house rule's statements that cite the clauses involved (else at all its statements):

    rules/variants/big_cities.tess:5:10: note: record base/city_3_tiles_1_shield.json [BASE-CITY-1]:
    changed: under this house rule (rules/variants/big_cities.tess:5) red scores 11 where the rulebook's
    game gives 8 (the record: rules/records/base/city_3_tiles_1_shield.json)

A record the house rule now refuses, or one the rulebook refuses that now plays on, says so
with the turn and clause.  A record that cannot be read, an expectation with an unknown key
and a rule that fails while the record is replayed stay errors.  The summary note counts
the records replayed, those that agree and those the house rule changes.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..dsl import ast as A
from ..dsl.ast import Span
from ..dsl.diagnostics import Diagnostic
from ..dsl.model import BUNDLED_RULES, RuleSet

from .checks import register
from .engines import engine_of

RECORDS = BUNDLED_RULES / "records"
EXPECTED = "expected.json"
KEYS = {"clause", "rulebook", "scores", "events", "supply", "prisoners", "winners", "outposts", "error"}


def _names(rules: tuple[str, ...]) -> frozenset[str] | None:
    from ..dsl.loader import load_rule_set

    rs, _, _ = load_rule_set(list(rules))
    return None if rs is None else frozenset(rs.names)


_NAMES: dict[tuple[str, ...], frozenset[str] | None] = {}
_READ: dict[str, tuple[tuple[int, int], object]] = {}


def _json(path: Path):
    """A JSON file's contents, read again only when the file changed (a rule set's check asks for its
    cases three times: applies, clauses, the check; and `tessera verify` checks several rule sets)."""
    st = path.stat()
    key = (st.st_mtime_ns, st.st_size)
    hit = _READ.get(str(path))
    if hit is None or hit[0] != key:
        hit = _READ[str(path)] = (key, json.loads(path.read_text(encoding="utf-8")))
    return hit[1]


def house_modules(rs: RuleSet) -> list:
    """The rule set's house rules: its modules that are not bundled rule files (rules/*.tess).
    A module named like a bundled one (a mistyped copy of barn.tess) is that module, not a
    house rule: its records' differences are errors."""
    from ..dsl.workspace import bundled_modules

    bundled = set(bundled_modules())
    return [m for m in rs.modules if m.name not in bundled]


def cases(rs: RuleSet, root: Path = RECORDS) -> list[tuple[Path, dict, dict | str]]:
    """(record file, its expectation, the record or a message why it cannot be read) for every
    bundled record whose rules are `rs`'s modules (under a house rule: `rs`'s modules but the
    house rule's)."""
    out = []
    house = {m.name for m in house_modules(rs)}
    want = frozenset(n for n in rs.names if n not in house)
    for exp_file in sorted(root.glob(f"*/{EXPECTED}")):
        try:
            expected = _json(exp_file)
        except (OSError, ValueError) as exc:
            out.append((exp_file, {}, f"cannot read the expected results: {exc}"))
            continue
        for name, exp in sorted(expected.items()):
            path = exp_file.parent / name
            try:
                record = _json(path)
                rules = tuple(record["rules"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                out.append((path, exp, f"cannot read the record: {exc}"))
                continue
            if not set(rules) <= want:
                continue
            if rules not in _NAMES:
                _NAMES[rules] = _names(rules)
            if _NAMES[rules] == want:
                out.append((path, exp, record))
    return out


def _applies(rs: RuleSet) -> bool:
    return bool(cases(rs))


def _clauses(rs: RuleSet) -> list[str]:
    return sorted({str(exp.get("clause")) for _, exp, _ in cases(rs) if exp.get("clause")})


def _pts(d: dict) -> str:
    return ", ".join(f"{p} {v}" for p, v in sorted(d.items())) or "nothing"


def _event_key(ev) -> tuple:
    turn, feature, when, points = ev[:4]
    return (int(turn), str(feature), str(when), tuple(sorted((str(p), int(v)) for p, v in points.items())))


def _one_of(got: str, want) -> bool:
    return got in want if isinstance(want, list) else got == want


def _refused(turn) -> str:
    """What an expectation's refusal refuses: a turn, or (turn null) the game itself, which no game of
    the rules starts from (a player count they are not for)."""
    return "the game from its start" if turn is None else f"turn {turn}"


def _clauses_txt(want) -> str:
    return " or ".join(want) if isinstance(want, list) else str(want)


def _show_events(keys) -> str:
    return "; ".join(f"turn {t} {f} {w}: {_pts(dict(p))}" for t, f, w, p in keys) or "none"


def compare(exp: dict, answer: dict, error: dict | None) -> list[str]:
    """What differs between the rulebook's expectation and a replay (an empty list: agrees)."""
    bad = [f"unknown key `{k}` in the expectation" for k in exp if k not in KEYS]
    want_err = exp.get("error")
    if want_err is not None:
        said = f"the rulebook refuses {_refused(want_err['turn'])} ({_clauses_txt(want_err['clause'])})"
        if error is None:
            bad.append(f"{said}; the rules accept the whole game")
        elif error["turn"] != want_err["turn"] or not _one_of(error["clause"], want_err["clause"]):
            bad.append(f"{said}; the rules refuse {error['message']} [{error['clause']}]")
        else:
            missing = [w for w in want_err.get("words", []) if w not in error["message"]]
            if missing:
                bad.append(f"{said} for what it names ({', '.join(missing)}); the rules refuse {error['message']}")
        return bad
    if error is not None:
        return bad + [f"the rules refuse {error['message']} [{error['clause']}]; the rulebook allows it"]
    return bad + [_AS_ERROR[d[0]](*d[1:]) for d in _differences(exp, answer)]


def _differences(exp: dict, answer: dict):
    """What differs between the rulebook's expectation and a game the rules played to the end, as
    (what, the rulebook's, the rules', ...): compare and changes say each in their own words."""
    if "scores" in exp and answer["scores"] != exp["scores"]:
        yield ("scores", exp["scores"], answer["scores"])
    if "events" in exp:
        got = sorted(_event_key((e["turn"], e["feature"], e["when"], e["points"]))
                     for e in answer["events"] if e.get("kind") == "score")
        want = sorted(_event_key(e) for e in exp["events"])
        if got != want:
            yield ("scorings", want, got)
        else:  # the same events: each cites the clause the rulebook names
            evs = sorted(((_event_key((e["turn"], e["feature"], e["when"], e["points"])), e.get("clause"))
                          for e in answer["events"] if e.get("kind") == "score"), key=lambda x: x[0])
            wants = sorted(((_event_key(e), e[4] if len(e) > 4 else None) for e in exp["events"]), key=lambda x: x[0])
            for (key, got_c), (_, want_c) in zip(evs, wants):
                if want_c is not None and not _one_of(str(got_c), want_c):
                    yield ("clause", want_c, got_c, key)
    for player, figs in (exp.get("supply") or {}).items():
        for fig, n in figs.items():
            have = answer["supply"].get(player, {}).get(fig)
            if have != n:
                yield ("supply", n, have, player, fig)
    if "winners" in exp and answer["winners"] != exp["winners"]:
        yield ("winners", exp["winners"], answer["winners"])
    for post, want in (exp.get("outposts") or {}).items():
        have = answer.get("outposts", {}).get(post, {})
        for k, v in want.items():
            if have.get(k) != v:
                yield ("outpost", v, have.get(k), post, k)
    if "prisoners" in exp and answer.get("prisoners", {}) != exp["prisoners"]:
        yield ("prisoners", exp["prisoners"], answer.get("prisoners", {}))


def _who(names: list[str]) -> str:
    return ", ".join(names) or "nobody"


# each difference as an error of the rule set verified (compare) ...
_AS_ERROR = {
    "scores": lambda want, got: f"scores: the rulebook gives {_pts(want)}, the rules give {_pts(got)}",
    "scorings": lambda want, got: f"scorings: the rulebook gives {_show_events(want)}; the rules give {_show_events(got)}",
    "clause": lambda want, got, key: (f"turn {key[0]} {key[1]} {key[2]}: scored citing {got}, the rulebook's clause is "
                                      f"{_clauses_txt(want)}"),
    "supply": lambda want, got, player, fig: f"supply: {player} has {want} {fig} in the rulebook, {got} under the rules",
    "winners": lambda want, got: f"winners: the rulebook gives {', '.join(want)}, the rules give {', '.join(got)}",
    "outpost": lambda want, got, post, k: f"outpost {post}: {k} {want} in the rulebook, {got} under the rules",
    "prisoners": lambda want, got: f"prisoners: the rulebook gives {want}, the rules give {got}",
}
# ... and as what a house rule changes, said after "under this house rule" (changes)
_AS_CHANGE = {
    "scores": lambda want, got: [f"{p} scores {got.get(p)} where the rulebook's game gives {want.get(p)}"
                                 for p in sorted(set(want) | set(got)) if got.get(p) != want.get(p)],
    "scorings": lambda want, got: [f"the scorings are {_show_events(got)} where the rulebook's game has "
                                   f"{_show_events(want)}"],
    "clause": lambda want, got, key: [f"turn {key[0]} {key[1]} {key[2]} scores citing {got} where the rulebook's game "
                                      f"cites {_clauses_txt(want)}"],
    "supply": lambda want, got, player, fig: [f"{player} has {got} {fig} in supply where the rulebook's game has {want}"],
    "winners": lambda want, got: [f"the winners are {_who(got)} where the rulebook's game gives {_who(want)}"],
    "outpost": lambda want, got, post, k: [f"outpost {post} has {k} {got} where the rulebook's game has {want}"],
    "prisoners": lambda want, got: [f"the prisoners are {got} where the rulebook's game gives {want}"],
}


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(BUNDLED_RULES.parent))
    except ValueError:
        return str(path)


def check_records(rs: RuleSet, root: Path = RECORDS) -> list[tuple[Path, dict, list[str]]]:
    """Each case with what differs (an empty list: the record gives what the rulebook says)."""
    out = []
    for path, exp, record in cases(rs, root):
        got = _replay(rs, path, record)
        out.append((path, exp, got if isinstance(got, list) else compare(exp, *got)))
    return out


def _replay(rs: RuleSet, path: Path, record: dict | str, failures: bool = False):
    """(answer, error) of a record replayed with `rs`'s engine, or [why it cannot be]; a rule that
    fails while it is replayed is one of those reasons when `failures` (under a house rule)."""
    from ..replay.records import RecordError
    from ..replay.tiles import replay
    from ..compiler.runtime.errors import RuleFailure

    if isinstance(record, str):
        return [record]
    try:
        res = replay(record, path.parent, engine=engine_of(rs))
    except RecordError as exc:
        return [f"the record is malformed: {exc}"]
    except RuleFailure as exc:
        if not failures:
            raise
        return [f"a rule failed while the record was replayed: {exc}"]
    return res.answer, res.error


# ------------------------------------------------------------------ under a house rule
_NOT_RULES = (A.Extends, A.Requires, A.ClauseDecl, A.ExampleDecl, A.InvariantDecl, A.AssumeDecl)  # change no game


def _statements(rs: RuleSet) -> list[tuple[Span, frozenset[str], bool]]:
    """The house rules' statements that change the game: (where, the clauses cited, an override?)."""
    from .source import cites

    out = []
    for m in house_modules(rs):
        for item in m.items:
            if isinstance(item, _NOT_RULES):
                continue
            decl = item.decl if isinstance(item, A.Override) else item
            span = decl.span if isinstance(item, A.Override) else item.span
            out.append((span, frozenset(cites(decl)), isinstance(item, A.Override)))
    return out


def _involved(exp: dict, answer: dict, error: dict | None) -> set[str]:
    """The clauses a changed record's difference touches: the record's, the refusals' and the
    scorings' on either side."""
    out = {str(exp.get("clause"))}
    for c in ((exp.get("error") or {}).get("clause"), (error or {}).get("clause")):
        out.update(c if isinstance(c, list) else [c] if c else [])
    for e in exp.get("events") or []:
        if len(e) > 4:
            out.update(e[4] if isinstance(e[4], list) else [e[4]])
    out.update(str(e.get("clause")) for e in answer.get("events", []) if e.get("kind") == "score" and e.get("clause"))
    return out


def responsible(rs: RuleSet, exp: dict, answer: dict, error: dict | None) -> list[Span]:
    """The house rule's lines a changed record is put down to: its statements that cite one of the
    clauses involved; else its overrides; else every statement of it; else its modules."""
    stmts = _statements(rs)
    involved = _involved(exp, answer, error)
    for pick in ([sp for sp, cl, _ in stmts if cl & involved], [sp for sp, _, ov in stmts if ov], [sp for sp, _, _ in stmts]):
        if pick:
            return pick
    return [m.span for m in house_modules(rs)]


def _lines(spans: list[Span]) -> str:
    from .source import rel, where

    by_file: dict[str, list[str]] = {}
    for sp in spans:
        by_file.setdefault(rel(sp.file), []).append(str(sp.line)) if sp.line else None
    return ", ".join(f"{f}:{', '.join(dict.fromkeys(ls))}" for f, ls in by_file.items()) or ", ".join(map(where, spans))


def _refusal(error: dict) -> str:
    return f"{error['message']} [{error['clause']}]"


def changes(exp: dict, answer: dict, error: dict | None) -> list[str]:
    """What a house rule changes in a record's game, each said after "under this house rule"
    (an empty list: the game gives what the rulebook says)."""
    if compare({k: v for k, v in exp.items() if k in KEYS}, answer, error) == []:
        return []
    want_err = exp.get("error")
    if want_err is not None:
        said = f"the rulebook refuses {_refused(want_err['turn'])} ({_clauses_txt(want_err['clause'])})"
        if error is None:
            return [f"the game plays to its end (scores {_pts(answer['scores'])}) where {said}"]
        if error["turn"] != want_err["turn"] or not _one_of(error["clause"], want_err["clause"]):
            return [f"it refuses {_refusal(error)} where {said}"]
        missing = [w for w in want_err.get("words", []) if w not in error["message"]]
        return [f"it refuses turn {error['turn']} as the rulebook does ({error['clause']}), but its refusal no longer "
                f"names {', '.join(missing)}: {error['message']}"]
    if error is not None:
        return [f"it refuses {_refusal(error)} where the rulebook's game plays on"]
    out = [line for d in _differences(exp, answer) for line in _AS_CHANGE[d[0]](*d[1:])]
    return out or compare(exp, answer, error)  # (every difference compare finds is worded above)


def check_house_records(rs: RuleSet, root: Path = RECORDS) -> list[tuple[Path, dict, list[str], list[str], list[Span]]]:
    """Under a house rule: each case with what the house rule changes in its game (said after
    "under this house rule"), the problems that keep it from being replayed or compared (errors),
    and the house rule's lines it is put down to (when changed)."""
    out = []
    for path, exp, record in cases(rs, root):
        got = _replay(rs, path, record, failures=True)
        if isinstance(got, list):
            out.append((path, exp, [], got, []))
            continue
        unknown = [f"unknown key `{k}` in the expectation" for k in exp if k not in KEYS]
        if unknown:
            out.append((path, exp, [], unknown, []))
            continue
        changed = changes(exp, *got)
        out.append((path, exp, changed, [], responsible(rs, exp, *got) if changed else []))
    return out


def _house_records(rs: RuleSet, root: Path = RECORDS) -> list[Diagnostic]:
    out = []
    results = check_house_records(rs, root)
    for path, exp, changed, problems, spans in results:
        name = str(path.relative_to(root)) if path.is_relative_to(root) else _rel(path)
        clause = f"[{exp.get('clause', '?')}]"
        if problems:
            head = f"record {_rel(path)} {clause}: {exp.get('rulebook', '')}".rstrip(": ")
            out.append(Diagnostic(Span(_rel(path), 1, 1), "\n    ".join([head] + problems), "record"))
        elif changed:
            head = (f"record {name} {clause}: changed: under this house rule ({_lines(spans)}) {changed[0]} "
                    f"(the record: {_rel(path)})")
            out.append(Diagnostic(spans[0], "\n    ".join([head] + [f"and {c}" for c in changed[1:]]), "record", "note"))
    if results:
        n_bad = sum(1 for r in results if r[3])
        n_changed = sum(1 for r in results if r[2])
        house = {m.name for m in house_modules(rs)}
        of = "+".join(n for n in rs.names if n not in house)
        summary = (f"{len(results)} worked-example records of {of} replayed under this house rule "
                   f"({', '.join(m.name for m in house_modules(rs))}): {len(results) - n_bad - n_changed} agree with the "
                   f"rulebook, {n_changed} changed by the house rule")
        out.append(Diagnostic(Span(_rel(results[0][0]), 0, 0),
                              summary + (f", {n_bad} cannot be replayed" if n_bad else ""), "record", "note"))
    return out


@register("records", _clauses, applies=_applies)
def records(rs: RuleSet) -> list[Diagnostic]:
    """The rulebooks' situations as game records (rules/records/) replay to what the rulebook says."""
    if house_modules(rs):
        return _house_records(rs)
    out = []
    results = check_records(rs)
    for path, exp, bad in results:
        if bad:
            head = f"record {_rel(path)} [{exp.get('clause', '?')}]: {exp.get('rulebook', '')}".rstrip(": ")
            out.append(Diagnostic(Span(_rel(path), 1, 1), "\n    ".join([head] + bad), "record"))
    if results:
        n_bad = sum(1 for *_, bad in results if bad)
        out.append(Diagnostic(Span(_rel(results[0][0]), 0, 0),
                              f"{len(results)} worked-example records: {len(results) - n_bad} agree, {n_bad} do not",
                              "record", "note"))
    return out

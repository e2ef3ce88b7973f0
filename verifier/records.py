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
replays.  A house rule's rule set (other modules) runs none of them.
"""
from __future__ import annotations

import json
from pathlib import Path

from tessera.dsl.ast import Span
from tessera.dsl.diagnostics import Diagnostic
from tessera.dsl.model import BUNDLED_RULES, RuleSet

from .checks import register

RECORDS = BUNDLED_RULES / "records"
EXPECTED = "expected.json"
KEYS = {"clause", "rulebook", "scores", "events", "supply", "prisoners", "winners", "outposts", "error"}


def _names(rules: tuple[str, ...]) -> frozenset[str] | None:
    from tessera.dsl.loader import load_rule_set

    rs, _, _ = load_rule_set(list(rules))
    return None if rs is None else frozenset(rs.names)


_NAMES: dict[tuple[str, ...], frozenset[str] | None] = {}


def cases(rs: RuleSet, root: Path = RECORDS) -> list[tuple[Path, dict, dict | str]]:
    """(record file, its expectation, the record or a message why it cannot be read) for every
    bundled record whose rules are `rs`'s modules."""
    out = []
    want = frozenset(rs.names)
    for exp_file in sorted(root.glob(f"*/{EXPECTED}")):
        try:
            expected = json.loads(exp_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            out.append((exp_file, {}, f"cannot read the expected results: {exc}"))
            continue
        for name, exp in sorted(expected.items()):
            path = exp_file.parent / name
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
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


def _clauses_txt(want) -> str:
    return " or ".join(want) if isinstance(want, list) else str(want)


def _show_events(keys) -> str:
    return "; ".join(f"turn {t} {f} {w}: {_pts(dict(p))}" for t, f, w, p in keys) or "none"


def compare(exp: dict, answer: dict, error: dict | None) -> list[str]:
    """What differs between the rulebook's expectation and a replay (an empty list: agrees)."""
    bad = [f"unknown key `{k}` in the expectation" for k in exp if k not in KEYS]
    want_err = exp.get("error")
    if want_err is not None:
        said = f"the rulebook refuses turn {want_err['turn']} ({_clauses_txt(want_err['clause'])})"
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
    if "scores" in exp and answer["scores"] != exp["scores"]:
        bad.append(f"scores: the rulebook gives {_pts(exp['scores'])}, the rules give {_pts(answer['scores'])}")
    if "events" in exp:
        got = sorted(_event_key((e["turn"], e["feature"], e["when"], e["points"]))
                     for e in answer["events"] if e.get("kind") == "score")
        want = sorted(_event_key(e) for e in exp["events"])
        if got != want:
            bad.append(f"scorings: the rulebook gives {_show_events(want)}; the rules give {_show_events(got)}")
        else:  # the same events: each cites the clause the rulebook names
            evs = sorted(((_event_key((e["turn"], e["feature"], e["when"], e["points"])), e.get("clause"))
                          for e in answer["events"] if e.get("kind") == "score"), key=lambda x: x[0])
            wants = sorted(((_event_key(e), e[4] if len(e) > 4 else None) for e in exp["events"]), key=lambda x: x[0])
            for (key, got_c), (_, want_c) in zip(evs, wants):
                if want_c is not None and not _one_of(str(got_c), want_c):
                    bad.append(f"turn {key[0]} {key[1]} {key[2]}: scored citing {got_c}, the rulebook's clause is "
                               f"{_clauses_txt(want_c)}")
    for player, figs in (exp.get("supply") or {}).items():
        for fig, n in figs.items():
            have = answer["supply"].get(player, {}).get(fig)
            if have != n:
                bad.append(f"supply: {player} has {n} {fig} in the rulebook, {have} under the rules")
    if "winners" in exp and answer["winners"] != exp["winners"]:
        bad.append(f"winners: the rulebook gives {', '.join(exp['winners'])}, the rules give {', '.join(answer['winners'])}")
    for post, want in (exp.get("outposts") or {}).items():
        have = answer.get("outposts", {}).get(post, {})
        for k, v in want.items():
            if have.get(k) != v:
                bad.append(f"outpost {post}: {k} {v} in the rulebook, {have.get(k)} under the rules")
    if "prisoners" in exp and answer.get("prisoners", {}) != exp["prisoners"]:
        bad.append(f"prisoners: the rulebook gives {exp['prisoners']}, the rules give {answer.get('prisoners', {})}")
    return bad


_ENGINES: dict[int, tuple[RuleSet, object]] = {}


def _engine(rs: RuleSet):
    from tessera.compiler.build import load_engine

    hit = _ENGINES.get(id(rs))
    if hit is None or hit[0] is not rs:
        _ENGINES.clear()
        _ENGINES[id(rs)] = hit = (rs, load_engine(rs))
    return hit[1]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(BUNDLED_RULES.parent))
    except ValueError:
        return str(path)


def check_records(rs: RuleSet, root: Path = RECORDS) -> list[tuple[Path, dict, list[str]]]:
    """Each case with what differs (an empty list: the record gives what the rulebook says)."""
    from tessera.compiler.records import RecordError
    from tessera.compiler.replay import replay

    out = []
    for path, exp, record in cases(rs, root):
        if isinstance(record, str):
            out.append((path, exp, [record]))
            continue
        try:
            res = replay(record, path.parent, engine=_engine(rs))
        except RecordError as exc:
            out.append((path, exp, [f"the record is malformed: {exc}"]))
            continue
        out.append((path, exp, compare(exp, res.answer, res.error)))
    return out


@register("records", _clauses, applies=_applies)
def records(rs: RuleSet) -> list[Diagnostic]:
    """The rulebooks' situations as game records (rules/records/) replay to what the rulebook says."""
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

"""Strategies and pipelines shared by the CI fuzz test (tests/test_fuzz_untrusted.py) and the
long campaign (bench/fuzz_campaign.py): hostile rule files and records through every stage.

A rule file goes parse -> check -> fmt -> compile -> import -> one game; a record goes
through `tessera replay --json`.  Each stage may refuse (a diagnostic, exit 1 or 2), but
never raises an internal error, never hangs, and never touches a file outside its
output folder.
"""
from __future__ import annotations

import importlib
import itertools
import json
import os
import random
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------ rule files
QUANT = ["tiles", "shields", "open", "neighbours", "figures", "players", "current"]
INTS = st.one_of(st.integers(0, 12), st.integers(-10**7, 10**7), st.sampled_from([0, 1, 999_999, 1_000_001, 10**40]))


def exprs(depth: int = 3):
    leaf = st.one_of(INTS.map(str), st.sampled_from(QUANT), st.sampled_from(["completed(city)", "completed(road)"]))
    if depth == 0:
        return leaf
    sub = exprs(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(conds(depth - 1), sub, sub).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.integers(2, 120).map(lambda n: " + ".join(["tiles"] * n)),
    )


def conds(depth: int = 2):
    leaf = st.sampled_from(["true", "false", "open == 0", "neighbours == 8", "tiles >= 2"])
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.tuples(exprs(depth - 1), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
                                     exprs(depth - 1)).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
                     st.tuples(conds(depth - 1), st.sampled_from(["and", "or"]), conds(depth - 1))
                     .map(lambda t: f"({t[0]} {t[1]} {t[2]})"))


KINDS = ["city", "road", "cloister", "field"]
HOSTILE_TEXT = st.text(alphabet=st.sampled_from(list("ab_ 0\n\r\t\x0c\x1b\u2028\ufeff\"#{}[]()=+-*/\\'\x00é")), max_size=30)

STATEMENTS = st.one_of(
    st.tuples(st.sampled_from(KINDS), st.sampled_from(["complete", "end"]), exprs())
    .map(lambda t: f"override score {t[0]} {t[1]} = {t[2]}"),
    st.tuples(st.sampled_from(["city", "road"]), conds()).map(lambda t: f"override complete {t[0]} when {t[1]}"),
    st.tuples(st.sampled_from(["V", "U", "E", "D"]), st.sampled_from([0, 1, 3, 500, 501, 10**9]))
    .map(lambda t: f"override tile {t[0]} x{t[1]} {{\n  edges F F R R\n  road S W\n  field Nw Ne En Es Se Wn\n  field Sw Ws\n}}"),
    st.tuples(INTS, exprs(2)).map(lambda t: f"state s = {t[0]}\non complete of city {{\n  set s = {t[1]}\n}}"),
    st.integers(0, 200).map(lambda n: f"figure follower {n} per player on city, road, cloister, field"),
    exprs(2).map(lambda e: f'example fz {{\n  formula = "{e}"  tiles = 3  expect = 5\n}}'),
    HOSTILE_TEXT,
)

NAMES = st.one_of(st.just("fz"), st.text(alphabet=st.sampled_from(list("abz_09")), min_size=1, max_size=80),
                  st.sampled_from(["base", "river", "x" * 300]))

RULE_FILES = st.tuples(NAMES, st.booleans(), st.lists(STATEMENTS, max_size=4), st.booleans()).map(
    lambda t: ("\ufeff" if t[3] else "") + f"module {t[0]}\n" + ("extends base\n" if t[1] else "") + "\n".join(t[2]) + "\n")

# ------------------------------------------------------------------ records
JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=True),
              st.text(max_size=6), st.sampled_from(["E", "D", "U", "follower", "N", "C", "../x.tess", "/", "/etc/passwd"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6)


def _real_turns() -> list[dict]:
    from compiler.build import load_engine
    from compiler.simulate import play_one
    from dsl.loader import require_rule_set

    eng = load_engine(require_rule_set(["base"]))
    _, turns = play_one(eng, 2, 7)
    return turns


@st.composite
def records(draw) -> str:
    """JSON text of a record: a real game's turns with a few things broken, or junk."""
    turns = [dict(t) for t in _TURNS()]
    n = draw(st.integers(0, len(turns)))
    turns = turns[:n]
    doc: dict = {"format": "tessera-game/1", "rules": ["base"], "players": ["red", "blue"], "turns": turns,
                 "end": draw(st.sampled_from(["final", "none"]))}
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.sampled_from(["top", "turn", "turn"]))
        if where == "top" or not turns:
            doc[draw(st.sampled_from(["rules", "players", "turns", "end", "start", "seed", "format", "extra"]))] = draw(JUNK)
        else:
            t = turns[draw(st.integers(0, len(turns) - 1))]
            t[draw(st.sampled_from(["tile", "at", "rotation", "place", "discard", "recall"]))] = draw(JUNK)
    text = json.dumps(doc)
    cut = draw(st.sampled_from([None, None, None, "truncate", "dupkey", "bytes"]))
    if cut == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif cut == "dupkey":
        text = text.replace('"players"', '"players": ["x"], "players"', 1)
    elif cut == "bytes":
        text = text.replace("red", "r\udcffd")
    return text


_cache: dict = {}


def _TURNS() -> list[dict]:
    if "turns" not in _cache:
        _cache["turns"] = _real_turns()
    return _cache["turns"]


# ------------------------------------------------------------------ pipelines
class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def on_alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def snapshot(*roots: Path) -> dict:
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                p = os.path.join(dirpath, name)
                try:
                    st_ = os.lstat(p)
                except OSError:
                    continue
                out[p] = (st_.st_size, st_.st_mtime_ns)
    return out


_counter = itertools.count()


def rule_file_pipeline(text: str, work: Path) -> str:
    """parse -> check -> fmt -> compile -> import -> a game; returns how far it got.
    Raises only for a broken guarantee (an internal error)."""
    from compiler.build import compile_to_dir
    from dsl.diagnostics import render
    from dsl.fmt import format_module
    from dsl.limits import playable
    from dsl.loader import check_paths, load_rule_set
    from dsl.parser import ParseFailure, parse

    src = work / "fz.tess"
    src.write_text(text, encoding="utf-8", errors="surrogateescape")
    diags, ws = check_paths([str(src)])
    for d in diags:
        line = render(d, ws.sources)
        assert "\x1b" not in line and len(max(line.split("\n"), key=len)) < 1200
    try:
        mod = parse(src.read_text(encoding="utf-8-sig"), str(src))
    except (ParseFailure, UnicodeDecodeError):
        return "refused at parse"
    again = format_module(mod, src.read_text(encoding="utf-8-sig"))
    assert parse(again, str(src)) == mod  # fmt never changes the meaning
    rs, diags, ws = load_rule_set([str(src)])
    if rs is None:
        assert any(d.severity == "error" for d in diags)
        return "refused at check"
    if playable(rs):
        return "refused as unplayable"
    out = work / "out"
    pkg_name = f"fzeng{os.getpid()}_{next(_counter)}"
    compile_to_dir(rs, out, pkg_name)
    sys.path.insert(0, str(out))
    try:
        eng = importlib.import_module(pkg_name)
        n = 2 if rs.players is None or rs.players.low <= 2 <= rs.players.high else rs.players.low
        g = eng.new_game(players=n, seed=1)
        rng = random.Random(1)
        for _ in range(400):
            if g.is_terminal():
                break
            acts = g.legal_actions()
            if not acts:
                break
            g.apply_action(acts[rng.randrange(len(acts))])
        if not g.is_terminal():
            g.finish()
    finally:
        sys.path.remove(str(out))
        for m in [m for m in sys.modules if m == pkg_name or m.startswith(pkg_name + ".")]:
            del sys.modules[m]
    return "played"


def record_pipeline(text: str, work: Path) -> int:
    """`tessera replay --json` on the record; returns the exit code (0, 1 or 2), and checks
    the answer is one JSON object naming an error for 1 and 2."""
    from typer.testing import CliRunner

    from tessera.cli import app
    import tessera.engine_cmds  # noqa: F401

    rec = work / "game.json"
    rec.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    res = CliRunner().invoke(app, ["replay", "--json", str(rec)])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    doc = json.loads(res.stdout)
    assert res.exit_code in (0, 1, 2)
    if res.exit_code:
        assert "error" in doc and doc["error"]["message"]
        assert doc["error"].get("kind") != "internal", doc
    else:
        assert set(doc) == {"scores", "events", "supply", "winners"}
    return res.exit_code

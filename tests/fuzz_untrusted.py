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

def state_exprs(depth: int = 2):
    """Arithmetic on states: products, sums and powers of `s` and `w of current`, with numbers
    and quantities (issue 28: the fuzzer never grew a state)."""
    leaf = st.one_of(st.sampled_from(["s", "s", "t", "w of current", "w of 0", "2", "3", "tiles_here"]),
                     st.integers(-3, 12).map(str), st.sampled_from(["999999", "1000000"]))
    if depth == 0:
        return leaf
    sub = state_exprs(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["*", "*", "+", "-", "//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.integers(2, 12).map(lambda n: " * ".join(["s"] * n)),  # a power in one rule
    )


@st.composite
def growing_states(draw) -> str:
    """States and `on` rules that compute with them: repeated rules make powers (`set s = s * s`
    on every road is 2^(2^n)), per-player states too, on place and on complete."""
    out = [f"state s = {draw(st.sampled_from(['0', '1', '2', '3', '-2', '999999', '1000000']))}",
           f"state t = {draw(st.sampled_from(['1', '2', '-1']))}",
           f"state w of each player = {draw(st.sampled_from(['1', '2', '7']))}"]
    for _ in range(draw(st.integers(1, 4))):
        event = draw(st.sampled_from(["place", "place of road", "place of city", "complete", "complete of city"]))
        here = "tiles" if event.startswith("complete") else "completed(road)"
        sets = []
        for target in draw(st.lists(st.sampled_from(["s", "t", "w of current", "w of 1"]), min_size=1, max_size=3,
                                    unique=True)):
            value = draw(state_exprs()).replace("tiles_here", here)
            sets.append(f"  set {target} = {value}")
        out.append(f"on {event} {{\n" + "\n".join(sets) + "\n}")
    if draw(st.booleans()):  # the state scores, so points grow with it
        out.append(f"override score road complete = {draw(state_exprs(1)).replace('tiles_here', 'tiles')} [BASE-ROAD-2]")
    return "\n".join(out)


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
    growing_states(),
    growing_states(),
    # long games: many copies of a plain tile (500 copies of a straight road is a game of 570 tiles)
    st.sampled_from([300, 500]).map(lambda n: f"override tile U x{n} {{\n  edges F R F R\n  road N S\n  field Nw Ws Wn Sw\n"
                                              f"  field Ne En Es Se\n}}"),
)

NAMES = st.one_of(st.just("fz"), st.text(alphabet=st.sampled_from(list("abz_09")), min_size=1, max_size=80),
                  st.sampled_from(["base", "river", "x" * 300]))

_ANY_FILES = st.tuples(NAMES, st.booleans(), st.lists(STATEMENTS, max_size=4), st.booleans()).map(
    lambda t: ("\ufeff" if t[3] else "") + f"module {t[0]}\n" + ("extends base\n" if t[1] else "") + "\n".join(t[2]) + "\n")
# a playable base game whose states compute (most reach the game, and many pass the bound)
_GROWING_FILES = st.tuples(growing_states(), st.sampled_from(["", "override tile U x500 {\n  edges F R F R\n  road N S\n"
                                                                  "  field Nw Ws Wn Sw\n  field Ne En Es Se\n}"])).map(
    lambda t: f"module fz\nextends base\n{t[0]}\n{t[1]}\n")
RULE_FILES = st.one_of(_ANY_FILES, _ANY_FILES, _GROWING_FILES)

# ------------------------------------------------------------------ card rule files (issue 38)
CARD_QUANT = ["taken(people)", "values(people)", "held(animal)", "chest(city)", "colours(city)", "players", "round",
              "taken(dragon)", "animal_points(held(animal))"]


def card_exprs(depth: int = 2):
    leaf = st.one_of(INTS.map(str), st.sampled_from(CARD_QUANT))
    if depth == 0:
        return leaf
    sub = card_exprs(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"(if {t[0]} > 0 then {t[1]} else {t[2]})"),
        st.integers(2, 60).map(lambda n: " * ".join(["taken(people)"] * n)),  # powers of what a take brings
    )


_PLAYERS = st.sampled_from([(2, 5), (2, 6), (1, 5), (2, 1_000_000), (3, 3), (6, 2), (0, 0), (2, 10**9)])
_DEAL_ROW = st.tuples(st.integers(0, 8), st.sampled_from([0, 1, 4, 6, 40, 10**6]), st.sampled_from([0, 1, 6, 500, 10**7]))

CARD_STATEMENTS = st.one_of(
    _PLAYERS.map(lambda t: f"override players {t[0]}..{t[1]}"),
    st.lists(_DEAL_ROW, min_size=1, max_size=5).map(
        lambda rows: "override deal " + ", ".join(f"{p} players {c} cards {r} rounds" for p, c, r in rows)),
    st.tuples(st.sampled_from(["people", "city", "animal", "dragon", "blank", "newkind"]),
              st.sampled_from([0, 1, 9, 499, 500, 501, 10**6]), st.sampled_from(["per colour", "joker", "aside"]))
    .map(lambda t: f"override card {t[0]} x{t[1]} {t[2]}"),
    st.sampled_from([0, 1, 130, 140, 2000, 2001, 10**7]).map(lambda n: f"override cards {n}"),
    st.sampled_from([0, 1, 10, 140, 10**6, -1]).map(lambda n: f"override layout {n}"),
    st.sampled_from([0, 1, 3, 100, 101]).map(lambda n: f"override feudal big_feudal {n} per player"),
    st.sampled_from(["none", "first", "all", "sometimes"]).map(lambda m: f"override facedown {m}"),
    card_exprs().map(lambda e: f"override score people on take = {e}"),
    card_exprs().map(lambda e: f"override score cities at end = {e}"),
    card_exprs(1).map(lambda e: f"override tie = {e}"),
    card_exprs(1).map(lambda e: f"override misplaced = {e} keep animal, city"),
    st.lists(st.one_of(st.integers(-5, 30), st.sampled_from([10**6, 10**7])), max_size=8).map(
        lambda v: "override table animal_points = " + ", ".join(map(str, v))),
    st.tuples(st.sampled_from(["best", "round", "players"]), st.sampled_from([">=", "==", "<"]),
              st.sampled_from([0, 1, 100, 10**6, 10**9])).map(lambda t: f"override end when {t[0]} {t[1]} {t[2]}"),
    st.sampled_from(["people", "city", "newkind"]).map(lambda k: f"take {k} to chest"),
    HOSTILE_TEXT,
)

CARD_RULE_FILES = st.tuples(NAMES, st.lists(CARD_STATEMENTS, max_size=4), st.booleans()).map(
    lambda t: ("\ufeff" if t[2] else "") + f"module {t[0]}\nextends card\n" + "\n".join(t[1]) + "\n")

# ------------------------------------------------------------------ records
JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=True),
              st.text(max_size=6), st.sampled_from(["E", "D", "U", "follower", "N", "C", "../x.tess", "/", "/etc/passwd"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6)


def _real_turns() -> list[dict]:
    from tessera.compiler.build import load_engine
    from tessera.play.simulate import play_one
    from tessera.dsl.loader import require_rule_set

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
    shape = draw(st.sampled_from([None, None, None, "long", "deep", "deep"]))
    if shape == "long":  # long games: the real turns over and over, up to past MAX_TURNS
        doc["turns"] = (turns or [dict(t) for t in _TURNS()]) * draw(st.sampled_from([10, 60, 200]))
    elif shape == "deep":  # a value nested deeper than any record, in a turn or at the top
        depth = draw(st.sampled_from([5, 31, 32, 33, 200, 5000]))
        value: object = draw(st.sampled_from([0, "E", {}]))
        for _ in range(depth):
            value = [value] if draw(st.booleans()) else {"at": value}
        if turns:
            turns[draw(st.integers(0, len(turns) - 1))][draw(st.sampled_from(["place", "at", "recall", "x"]))] = value
        else:
            doc["start"] = value
    if shape == "deep" and depth > 500:
        text = json.dumps({k: v for k, v in doc.items() if k not in ("turns", "start")})[:-1] + ', "turns": ' + \
            ("[" * depth) + ("]" * depth) + "}"  # json.dumps itself recurses: write the deep part by hand
    else:
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


def _CARD_GAME() -> tuple[list[str], list[dict]]:
    """A real 3-player card game: its deck as dealt and its turns."""
    if "cards" not in _cache:
        from tessera.compiler.build import load_engine
        from tessera.play.simulate import play_one
        from tessera.dsl.loader import require_rule_set

        g, turns = play_one(load_engine(require_rule_set(["card"])), 3, 11)
        _cache["cards"] = (list(g.drawn), turns)
    return _cache["cards"]


CARD_NAMES = ["yellow.animal", "red.people.1", "blue.city", "dragon", "animal_joker", "nocard", "red", "", "../x"]


@st.composite
def card_records(draw) -> str:
    """JSON text of a tessera-cards/1 record: a real game with a few things broken (hostile
    player names, cards, rows, decks, turns), long, or junk."""
    deck, real = _CARD_GAME()
    turns = [dict(t) for t in real[: draw(st.integers(0, len(real)))]]
    players = draw(st.sampled_from([["red", "blue", "green"], ['"/><script>top.PWN=1</script>', "b", "c"],
                                    ["a", "a", "b"], ["x" * 64, "y", "z"], ["\u202e\x1b[31m", "b", "c"], ["solo"]]))
    doc: dict = {"format": "tessera-cards/1", "rules": ["card"], "players": players, "deck": list(deck),
                 "turns": turns, "end": draw(st.sampled_from(["final", "none"]))}
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.sampled_from(["top", "turn", "turn", "deck"]))
        if where == "deck":
            k = draw(st.integers(0, len(doc["deck"])))
            doc["deck"][k:k + draw(st.integers(0, 3))] = draw(st.lists(st.sampled_from(CARD_NAMES), max_size=3))
        elif where == "top" or not turns:
            doc[draw(st.sampled_from(["rules", "players", "turns", "end", "seed", "deck", "format", "extra"]))] = \
                draw(st.one_of(JUNK, st.sampled_from([["base"], ["card", "card"], "card", ["../card.tess"]])))
        else:
            t = turns[draw(st.integers(0, len(turns) - 1))]
            t[draw(st.sampled_from(["play", "row", "claim", "lay", "keep", "discard", "player", "at", "face"]))] = \
                draw(st.one_of(JUNK, st.sampled_from(CARD_NAMES), st.sampled_from(players)))
    if draw(st.sampled_from([False, False, False, True])):  # long: the game over and over, up to past MAX_TURNS
        doc["turns"] = (turns or [dict(t) for t in real]) * draw(st.sampled_from([10, 60, 200]))
    text = json.dumps(doc)
    cut = draw(st.sampled_from([None, None, None, "truncate", "dupkey"]))
    if cut == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif cut == "dupkey":
        text = text.replace('"players"', '"players": ["x"], "players"', 1)
    return text


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


@contextmanager
def memory_cap(extra: int = 1 << 30):
    """At most `extra` more bytes of address space while inside (the soft RLIMIT_AS, restored
    after): an input that would exhaust memory fails as MemoryError here, in this input, and
    never takes the machine down."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as fh:
        now = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = now + extra if hard == resource.RLIM_INFINITY else min(now + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


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
    from tessera.compiler.build import compile_to_dir
    from tessera.compiler.runtime.errors import rule_location
    from tessera.dsl.diagnostics import render
    from tessera.dsl.fmt import format_module
    from tessera.dsl.limits import MAX_TILES, playable
    from tessera.dsl.loader import check_paths, load_rule_set
    from tessera.dsl.parser import ParseFailure, parse

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
        try:
            for _ in range(20 * MAX_TILES):  # a whole game, however long (each tile is at most a few actions)
                if g.is_terminal():
                    break
                acts = g.legal_actions()
                if not acts:
                    break
                g.apply_action(acts[rng.randrange(len(acts))])
            if not g.is_terminal():
                g.finish()
        except Exception as exc:  # a state or points past MAX_VALUE: the game stops at the rule's line
            if type(exc).__name__ != "BoundExceeded" or not isinstance(exc, ArithmeticError):  # the package's own copy
                raise
            where = rule_location(exc)
            assert where is not None and Path(where.rsplit(":", 1)[0]).name == src.name, where  # fz.tess:LINE
            return "stopped at a value bound"
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
    elif doc.get("format") == "tessera-cards/1" or "locations" in doc:  # a card game's answer
        assert {"scores", "events", "winners", "locations"} <= set(doc), doc.keys()
    else:
        assert set(doc) == {"scores", "events", "supply", "winners"}
    return res.exit_code


def picture_pipeline(work: Path) -> list[int]:
    """`tessera view` and `tessera draw --turn 1` of work/game.json into work/out/: each answers
    (0, 1 or 2) with no internal error, and what it writes is there only when it answers 0 or 1."""
    from typer.testing import CliRunner

    from tessera.cli import app
    import tessera.picture_cmds  # noqa: F401

    codes = []
    for args in (["view", str(work / "game.json"), "-o", str(work / "out" / "game.html")],
                 ["draw", str(work / "game.json"), "--turn", "1", "-o", str(work / "out" / "t1.svg")]):
        res = CliRunner().invoke(app, args)
        assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
        text = res.stdout + res.stderr
        assert "internal error" not in text and "Traceback" not in text, text
        assert res.exit_code in (0, 1, 2), text
        if res.exit_code == 2:
            assert not Path(args[-1]).exists()
        codes.append(res.exit_code)
    return codes

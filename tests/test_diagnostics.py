"""`tessera check` on broken rule files: one fixture per diagnostic code.

Each file in tests/fixtures/bad/ holds one mistake (cycle/ holds two modules
that require each other).  The checker must exit 1 and print the exact
mypy-style header `file:line:col: error: message  [code]`, the source line and
the caret under the mistake; a folder of good rules exits 0, a usage error 2;
several mistakes are all reported at once, and no traceback is ever printed.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.dsl.parser import _EXAMPLES, ParseFailure, parse
from tessera.cli import app

REPO = Path(__file__).resolve().parent.parent
BAD = REPO / "tests" / "fixtures" / "bad"
runner = CliRunner()

# fixture (relative to tests/fixtures/bad) -> header, source line, caret line
EXPECTED: dict[str, tuple[str, str, str]] = {
    'conflict.tess': (
        'tests/fixtures/bad/conflict.tess:8:1: error: card `dragon`: a `joker` has no colour, so it cannot be `per colour`  [conflict]',
        '    card dragon x2 per colour joker',
        '    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~',
    ),
    'family.tess': (
        'tests/fixtures/bad/family.tess:8:1: error: these rules mix the tile game with the card game (rulebook 001): a rule set is one game; keep the card statements in a module of their own  [family]',
        '    feature road',
        '    ^~~~~~~~~~~~',
    ),
    'missing.tess': (
        'tests/fixtures/bad/missing.tess:1:1: error: a card game needs the figure that claims cards: `feudal NAME 1 per player`  [missing]',
        '    module missing_cards',
        '    ^~~~~~~~~~~~~~~~~~~~',
    ),
    'unused.tess': (
        'tests/fixtures/bad/unused.tess:2:1: error: `exchange prisoners` without a `capture` rule: nobody is ever taken prisoner  [unused]',
        '    exchange prisoners',
        '    ^~~~~~~~~~~~~~~~~~',
    ),
    'unsupported.tess': (
        'tests/fixtures/bad/unsupported.tess:5:1: error: a capture takes 1 figure (`capture 1 of ...`); more is not supported yet  [unsupported]',
        '    capture 2 of follower in line within 1 after put floor',
        '    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~',
    ),
    'arity.tess': (
        'tests/fixtures/bad/arity.tess:3:18: error: `max` takes 2 arguments, not 1  [arity]',
        '    score city end = max(tiles)',
        '                     ^~~~~~~~~~',
    ),
    'bad-border.tess': (
        'tests/fixtures/bad/bad-border.tess:9:18: error: `-> C`: no feature of tile `A` lies on C  [bad-border]',
        '      field E S W -> C',
        '                     ^',
    ),
    'bad-name.tess': (
        'tests/fixtures/bad/bad-name.tess:2:9: error: `N` is a place name and cannot name a feature kind  [bad-name]',
        '    feature N',
        '            ^',
    ),
    'bad-place.tess': (
        'tests/fixtures/bad/bad-place.tess:8:12: error: tile `A`: a cloister lies on the centre C, not on NE  [bad-place]',
        '      cloister NE',
        '               ^~',
    ),
    'limit.tess': (
        'tests/fixtures/bad/limit.tess:4:1: error: the number 100000000 is larger than the limit of 1,000,000 for any number in a rule file  [limit]',
        '    tile A x100000000 {',
        '    ^',
    ),
    'context.tess': (
        'tests/fixtures/bad/context.tess:3:17: error: `tiles` has no meaning here (number of distinct tiles the feature covers; usable in a feature rule)  [context]',
        '    state biggest = tiles',
        '                    ^~~~~',
    ),
    'count.tess': (
        'tests/fixtures/bad/count.tess:5:6: error: tile `A` has 1 copy but its variants claim 2  [count]',
        '    tile A x1 {',
        '         ^',
    ),
    'cycle/cycle_a.tess': (
        'tests/fixtures/bad/cycle/cycle_b.tess:2:10: error: modules require each other in a cycle: cycle_a -> cycle_b -> cycle_a  [cycle]',
        '    requires cycle_a',
        '             ^~~~~~~',
    ),
    'duplicate.tess': (
        'tests/fixtures/bad/duplicate.tess:4:9: error: feature kind `city` is already defined at tests/fixtures/bad/duplicate.tess:2:1  [duplicate]',
        '    feature city',
        '            ^~~~',
    ),
    'edge-terrain.tess': (
        'tests/fixtures/bad/edge-terrain.tess:8:9: error: tile `A`: its N edge is `C` (city), so N must be city, not field  [edge-terrain]',
        '      field N E S W',
        '            ^',
    ),
    'encoding.tess': (
        'tests/fixtures/bad/encoding.tess:1:21: error: the file is not UTF-8 text: byte 0xe9 here is not UTF-8  [encoding]',
        '    module encoding "Caf�"',
        '                        ^',
    ),
    'override-missing.tess': (
        # a forgotten `extends`: the module builds on nothing, and the message says how to build on base
        'tests/fixtures/bad/override-missing.tess:3:10: error: `override` of score city complete, but no earlier module defines it; module `override_missing` builds on no other: a house rule starts with `extends base`  [override-missing]',
        '    override score city complete = 2 * tiles',
        '             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~',
    ),
    'place-overlap.tess': (
        'tests/fixtures/bad/place-overlap.tess:7:8: error: tile `A`: place N belongs to two features (city and city)  [place-overlap]',
        '      city N E S W',
        '           ^',
    ),
    'range.tess': (
        'tests/fixtures/bad/range.tess:2:1: error: players must be a range within 1..6  [range]',
        '    players 2..9',
        '    ^~~~~~~~~~~~',
    ),
    'range_backwards.tess': (  # within the bounds, written largest first: not "a range within 1..6"
        'tests/fixtures/bad/range_backwards.tess:2:1: error: players 4..2 is backwards: the fewest come first, as in `players 2..4`  [range]',
        '    players 4..2',
        '    ^~~~~~~~~~~~',
    ),
    'count_negative.tess': (  # a negative count: not "expected a number"
        'tests/fixtures/bad/count_negative.tess:3:26: error: a count here is a whole number, 0 or more, not `-1`  [syntax]',
        '    override figure follower -1 per player [BASE-TURN-1] on city',
        '                             ^',
    ),
    'override_partial.tess': (  # only the part that changes: the message says the whole statement is restated
        'tests/fixtures/bad/override_partial.tess:3:23: error: unexpected end of file; expected `[`, `in`; an `override` restates the whole statement, every part of it, as the module it replaces writes it (not only the part that changes)  [syntax]',
        '    override capture 1 of follower',
        '                          ^',
    ),
    'reserved.tess': (
        'tests/fixtures/bad/reserved.tess:2:7: error: `state tiles`: `tiles` is a built-in quantity (number of distinct tiles the feature covers); every rule that reads `tiles` would read the state instead; a state cannot shadow it: give the state another name, e.g. `house_tiles`  [reserved]',
        '    state tiles = 100',
        '          ^~~~~',
    ),
    'syntax.tess': (
        'tests/fixtures/bad/syntax.tess:5:8: error: a tile count is written `x` and a number, as in `tile D x4` (found `2`)  [syntax]',
        '    tile A 2 {',
        '           ^',
    ),
    'syntax_char.tess': (
        "tests/fixtures/bad/syntax_char.tess:3:33: error: unexpected character '$'  [syntax]",
        '    score city complete = 2 * tiles $ 1',
        '                                    ^',
    ),
    'syntax_shield.tess': (
        'tests/fixtures/bad/syntax_shield.tess:7:23: error: shields are written `shields` and a number after the places, as in `city N W shields 1` (found `1`)  [syntax]',
        '      city N E S W shield 1',
        '                          ^',
    ),
    'syntax_unclosed.tess': (
        'tests/fixtures/bad/syntax_unclosed.tess:4:11: error: unclosed `{`: a block must end with `}` (found end of file, and this `{` is still open)  [syntax]',
        '    tile A x1 {',
        '              ^',
    ),
    'syntax_if.tess': (
        'tests/fixtures/bad/syntax_if.tess:3:27: error: `if … then … else …` inside a sum, product or comparison needs parentheses, as in `1 + (if tiles > 2 then 1 else 0)`  [syntax]',
        '    score city complete = 1 + if tiles > 2 then 1 else 0',
        '                              ^',
    ),
    'syntax_edges3.tess': (
        'tests/fixtures/bad/syntax_edges3.tess:9:3: error: `edges` takes exactly four edge codes, in the order N E S W, but this line has 3: `city` on line 10 was read as the fourth  [syntax]',
        '      edges C R F',
        '      ^',
    ),
    'syntax_slash.tess': (
        "tests/fixtures/bad/syntax_slash.tess:3:29: error: unexpected character '/': division is written `//` (it rounds down), as in `tiles // 2`  [syntax]",
        '    score city complete = tiles / 2',
        '                                ^',
    ),
    'syntax_chain.tess': (
        'tests/fixtures/bad/syntax_chain.tess:3:31: error: comparisons do not chain: write `2 <= tiles and tiles <= 4`  [syntax]',
        '    complete city when 2 <= tiles <= 4',
        '                                  ^',
    ),
    'syntax_overide.tess': (
        'tests/fixtures/bad/syntax_overide.tess:3:1: error: unexpected `overide`; did you mean `override`?  [syntax]',
        '    overide score city complete = 3 * tiles',
        '    ^~~~~~~',
    ),
    'syntax_extends.tess': (
        'tests/fixtures/bad/syntax_extends.tess:2:1: error: `base` alone is not a statement: to build on the module `base`, write `extends base` (or `requires base`)  [syntax]',
        '    base',
        '    ^~~~',
    ),
    'syntax_string.tess': (
        'tests/fixtures/bad/syntax_string.tess:1:22: error: unterminated string: a string ends with `"` on the same line it starts  [syntax]',
        '    module syntax_string "A house rule',
        '                         ^',
    ),
    'syntax_halfs.tess': (
        'tests/fixtures/bad/syntax_halfs.tess:2:15: error: unexpected `halfs`; did you mean `halves`?  [syntax]',
        '    feature field halfs',
        '                  ^~~~~',
    ),
    'composition.tess': (
        'tests/fixtures/bad/composition.tess:2:1: error: this composition of BASE-COMP-1 states 3 tiles, but its list adds up to 2  [composition]',
        '    composition 3: A x2 [BASE-COMP-1]',
        '    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~',
    ),
    'total.tess': (
        'tests/fixtures/bad/total.tess:2:1: error: module `total` states 3 tiles but its tiles add up to 2  [total]',
        '    total 3',
        '    ^~~~~~~',
    ),
    'type.tess': (
        'tests/fixtures/bad/type.tess:3:20: error: expected a condition here, but this is a number  [type]',
        '    complete city when 1 + open',
        '                       ^~~~~~~~',
    ),
    'unknown-clause.tess': (
        'tests/fixtures/bad/unknown-clause.tess:2:15: error: unknown clause `BASE-CITY-9`; did you mean `BASE-CITY-2`?  [unknown-clause]',
        '    feature city [BASE-CITY-9]',
        '                  ^~~~~~~~~~~',
    ),
    'unknown-module.tess': (
        'tests/fixtures/bad/unknown-module.tess:2:10: error: unknown module `bsae`; did you mean `base`?  [unknown-name]',
        '    requires bsae',
        '             ^~~~',
    ),
    'unknown-name.tess': (
        'tests/fixtures/bad/unknown-name.tess:4:23: error: unknown name `tile`; did you mean `tiles`?  [unknown-name]',
        '    score road complete = tile',
        '                          ^~~~',
    ),
}
# Files that are checked through another fixture, or by a test of their own.
NOT_IN_TABLE = {"cycle/cycle_b.tess", "three-mistakes.tess"}


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # diagnostics name files as given: tests/fixtures/bad/...


def check(*paths: str):
    result = runner.invoke(app, ["check", *paths])
    assert isinstance(result.exception, SystemExit), result.exception  # never an uncaught exception
    return result


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_diagnostic(name: str) -> None:
    result = check(f"tests/fixtures/bad/{name}")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert tuple(lines[:3]) == EXPECTED[name]
    # a cycle reads both files; an unknown module is checked as if it were the one it is closest to, and the
    # rest of a file with a syntax error is checked with the module it requires (issue 39)
    files = 2 if name.startswith("cycle/") or name in ("unknown-module.tess", "count_negative.tess",
                                                         "override_partial.tess") else 1
    assert lines[3:] == [f"Found 1 error in 1 file (checked {files} rule file{'s' if files > 1 else ''})"]


def test_every_fixture_is_expected() -> None:
    on_disk = {str(p.relative_to(BAD)) for p in BAD.rglob("*.tess")}
    assert on_disk == set(EXPECTED) | NOT_IN_TABLE


def emitted_codes() -> set[str]:
    """The codes of every `Diagnostic(span, msg, CODE)` and `self.err(span, msg, CODE)` in dsl/."""
    codes = set()
    for path in (REPO / "dsl").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) < 3:
                continue
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            code = node.args[2]
            if name in ("Diagnostic", "err") and isinstance(code, ast.Constant) and isinstance(code.value, str):
                codes.add(code.value)
    return codes


def test_every_code_has_a_fixture() -> None:
    codes = emitted_codes()
    assert {"syntax", "unknown-name", "cycle", "encoding"} <= codes  # the scan itself works
    covered = {header.rsplit("[", 1)[1].rstrip("]") for header, _, _ in EXPECTED.values()}
    # io, usage: the command line (tests/test_untrusted.py); unplayable: compile/simulate/replay, not check;
    # growth: a warning (exit 0), tests/test_bounded_values.py
    other = {"io", "usage", "unplayable", "growth"}
    assert codes - covered <= other, f"codes without a fixture: {sorted(codes - covered - other)}"


def test_missing_file_is_a_usage_error() -> None:
    """A path on the command line that does not exist: exit 2 (usage), like an unknown option."""
    result = check("tests/fixtures/bad/no-such-file.tess")
    assert result.exit_code == 2
    assert "no such file or folder: tests/fixtures/bad/no-such-file.tess" in result.output


def test_all_mistakes_are_reported_at_once() -> None:
    result = check("tests/fixtures/bad/three-mistakes.tess")
    assert result.exit_code == 1
    headers = [l for l in result.output.splitlines() if ": error: " in l]
    assert headers == [
        "tests/fixtures/bad/three-mistakes.tess:3:15: error: unknown clause `BASE-CITY-9`; did you mean `BASE-CITY-2`?  [unknown-clause]",
        "tests/fixtures/bad/three-mistakes.tess:4:20: error: expected a condition here, but this is a number  [type]",
        "tests/fixtures/bad/three-mistakes.tess:5:27: error: unknown name `tile`; did you mean `tiles`?  [unknown-name]",
    ]
    assert result.output.splitlines()[-1] == "Found 3 errors in 1 file (checked 1 rule file)"


def test_a_syntax_error_does_not_hide_other_files() -> None:
    result = check("tests/fixtures/bad/syntax.tess", "tests/fixtures/bad/total.tess")
    codes = [l.rsplit("[", 1)[1] for l in result.output.splitlines() if ": error: " in l]
    assert codes == ["syntax]", "total]"]


@pytest.mark.parametrize("label", sorted(_EXAMPLES))
def test_syntax_hints_match_anywhere(label: str) -> None:
    """Each hint for a common mistake fires for its examples, in a file's first
    statement or after others."""
    for text in _EXAMPLES[label]:
        for prefix in ("", "feature a\nfeature b [BASE-COMP-1]\n"):
            src = text.replace("module m ", "module m\n" + prefix, 1) if text.startswith("module m ") else text
            with pytest.raises(ParseFailure) as fail:
                parse(src)
            assert fail.value.diagnostics[0].message.startswith(label + " (found "), src


# ------------------------------------------------------------- the real process
def tessera(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tessera", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_good_rules_exit_0() -> None:
    proc = tessera("check", "rules/")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the summary line ends the output; above it, the stated assumptions (`assume`), if any
    assert proc.stdout.splitlines()[-1].startswith("Success: no issues found in ")
    assert all(line.startswith("  rules/") for line in proc.stdout.splitlines()[1:-1])


def test_usage_error_exits_2() -> None:
    proc = tessera("check")
    assert proc.returncode == 2
    assert "Missing argument" in proc.stderr
    assert tessera("check", "--no-such-option", "rules/").returncode == 2


def test_no_traceback_for_any_fixture() -> None:
    proc = tessera("check", "tests/fixtures/bad/")
    assert proc.returncode == 1
    assert proc.stderr == ""
    assert "Traceback" not in proc.stdout
    for header, _, _ in EXPECTED.values():
        assert header in proc.stdout


@pytest.mark.parametrize("text, word", [
    ("module m feature city\ntileX x1 { edges F F F F }", "tileX"),
    ("module m placement adjacentmatching", "adjacentmatching"),
    ("module m feature cloister centrex", "centrex"),
    ("module m feature city\nscore city complete = 2 tiles", "tiles"),
])
def test_keywords_are_whole_words(text: str, word: str) -> None:
    """A keyword glued to more letters is one unknown word, not the keyword and a name
    (`tileX` once read as `tile X`)."""
    with pytest.raises(ParseFailure) as fail:
        parse(text)
    assert fail.value.diagnostics[0].message.startswith(f"unexpected `{word}`")


def test_check_starts_without_typer_rich_or_the_other_commands() -> None:
    """`tessera check FILE…` (tessera/main.py) prints exactly what the typer command prints, and loads
    none of typer, click, rich, the compiler or the verifier: its start-up is what a designer waits for."""
    root = Path(__file__).resolve().parent.parent
    bad = root / "tests" / "fixtures" / "bad" / "three-mistakes.tess"
    code = ("import sys\nfrom tessera.main import main\nsys.argv = ['tessera', 'check', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    rc = e.code\n"
            "heavy = sorted(m for m in ('typer', 'click', 'rich', 'tessera.compiler', 'tessera.verifier', 'tessera.cli') "
            "if m in sys.modules)\nprint('LOADED', heavy, rc)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(bad)], capture_output=True, text=True, cwd=root,
                          timeout=60)
    assert proc.stdout.rstrip().endswith("LOADED [] 1"), proc.stdout + proc.stderr
    res = CliRunner().invoke(app, ["check", str(bad)])
    assert res.exit_code == 1
    assert proc.stdout.rsplit("LOADED", 1)[0] == res.stdout

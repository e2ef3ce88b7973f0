"""A syntax error in words: the designer's common mistakes (recognised by the parser state they
leave it in, or by the text around them), else what was found and what was expected."""
from __future__ import annotations

import difflib
import re
from functools import lru_cache

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from .diagnostics import Diagnostic
from .lalr import _parser


# Common mistakes, recognised by the parser state they leave it in
# (Lark's `match_examples`).  Each label becomes the diagnostic's message.
_EXAMPLES: dict[str, list[str]] = {
    "a rule file must begin with `module NAME`": [
        "tile A x1 { edges F F F F }",
        "edge C = city",
    ],
    "a tile needs `edges N E S W` (four edge codes) before its features": [
        "module m tile A x1 { city N }",
        "module m tile A { road W E }",
    ],
    "`edges` takes exactly four edge codes, in the order N E S W": [
        "module m tile A x1 { edges C C C }",
    ],
    "a tile count is written `x` and a number, as in `tile D x4`": [
        "module m tile A 2 { edges F F F F }",
        "module m tile A count 2 { edges F F F F }",
    ],
    "clause citations are written in brackets, as in `[BASE-CITY-2]`": [
        "module m total 72 BASE-COMP-1",
        "module m score city complete = tiles BASE-CITY-2",
    ],
    "a score is written `score KIND complete = EXPR` or `score KIND end = EXPR`": [
        "module m score city = tiles",
        "module m score city complete tiles",
        "module m score city when complete = tiles",
    ],
    "an expression is missing or incomplete here": [
        "module m score city complete = ",
        "module m score city complete = 2 *",
        "module m complete city when",
        "module m score city complete = (tiles",
    ],
    "unclosed `{`: a block must end with `}`": [
        "module m tile A x1 { edges F F F F field Nw Ne",
    ],
    "shields are written `shields` and a number after the places, as in `city N W shields 1`": [
        "module m tile A x1 { edges C C C C city N E S W shield 1 }",
        "module m tile A x1 { edges C C C C city 1 }",
    ],
    "marks are written `marks NAME` or `marks NAME N` after the places, as in `road W E marks inn`": [
        "module m tile A x1 { edges F F F F field Nw marks }",
        "module m tile A x1 { edges F F F F field Nw marks 2 }",
    ],
    "a variant's count is written `x` and a number, as in `variant garden x1 { garden C }`": [
        "module m tile A x1 { edges F F F F variant garden 1 { garden C } }",
    ],
    "a figure is written `figure NAME COUNT per player on KIND, KIND`": [
        "module m figure follower 7 on city",
        "module m figure follower on city",
    ],
    "a start position is two numbers, as in `start D at 0 0`": [
        "module m start D at 0, 0",
        "module m start D at [0, 0]",
    ],
    "the player count is a range, as in `players 2..5`": [
        "module m players 2-5",
        "module m players 2 5",
        "module m players 2 to 5",
    ],
    "a comparison is written `==`, not `=`": [
        "module m complete city when open = 0",
    ],
    "clause IDs are written in capitals, as in `[BASE-CITY-2]`": [
        "module m feature city [base-city-1]",
    ],
    "clause IDs in brackets are separated by commas, as in `[BASE-COMP-1, BASE-COMP-2]`": [
        "module m total 72 [BASE-COMP-1 BASE-COMP-2]",
    ],
    "a mapping is written `{red: 8, blue: 4}`": [
        "module m example e { points = {red = 8} }",
    ],
    "example fields follow one another without commas, as in `example e { tiles = 3 points = 8 }`": [
        "module m example e { tiles = 3, points = 8 }",
    ],
}


def _signature(err: UnexpectedInput) -> tuple:
    """What the parser was doing when it failed: its LALR state, what it accepted, what it found.

    Lark's own `match_examples` also compares the depth of the parser's stack,
    so an example only matched a mistake in a file's first statement; the top
    state alone names the mistake wherever it happens.  The found token's type
    must agree too, or `when open = 0` would match an example about `[`.
    """
    state = getattr(err, "state", None)
    position = getattr(state, "position", state)
    accepts = frozenset(getattr(err, "accepts", None) or getattr(err, "expected", None) or ())
    tok = getattr(err, "token", None)
    return (type(err).__name__, position, accepts, getattr(tok, "type", None))


@lru_cache(maxsize=1)
def _example_signatures() -> tuple[tuple[tuple, str, str], ...]:
    out = []
    for label, texts in _EXAMPLES.items():
        for text in texts:
            try:
                _parser().parse(text)
            except UnexpectedInput as ut:
                tok = getattr(ut, "token", None)
                out.append((_signature(ut), str(tok) if tok is not None else "", label))
    return tuple(out)


def _match_example(err: UnexpectedInput) -> str | None:
    """The label of the example that fails like `err` (the same found token first)."""
    sig = _signature(err)
    tok = getattr(err, "token", None)
    found = str(tok) if tok is not None else ""
    candidates = [(t, label) for s, t, label in _example_signatures() if s == sig]
    for t, label in candidates:
        if t == found:
            return label
    return candidates[0][1] if candidates else None


def _keyword_of(term: str) -> str | None:
    try:
        pat = _parser().get_terminal(term).pattern
    except Exception:
        return None
    return pat.value if pat.type == "str" and pat.value.isalpha() else None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _unclosed_brace(text: str) -> int | None:
    """The offset of the last `{` that no `}` closes (strings and comments skipped)."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            opened.pop()
        i += 1
    return opened[-1] if opened else None


def statement_line(line: str) -> bool:
    """Whether a line starts a top-level statement: a word at column 1 (a statement inside a block
    is indented, a closing `}` and a comment are not words)."""
    return bool(line) and (line[0].isalpha() or line[0] == "_")


def _brace_left_open_before(text: str, pos: int) -> int | None:
    """The offset of a `{` still open where a syntax error at `pos` lies on a line that starts a new
    top-level statement (a word at column 1): the block before it was never closed."""
    start = text.rfind("\n", 0, pos) + 1
    if not statement_line(text[start:start + 1]) or start == 0:
        return None
    return _unclosed_brace(text[:start])


_CHAIN = re.compile(r"([\w()]+)\s*(==|!=|<=|>=|<|>)\s*(\w+)\s*$")


def _special(file: str, text: str, err: UnexpectedInput) -> Diagnostic | None:
    """Mistakes a designer makes often, in words (before the generic message)."""
    from .model import BUNDLED_RULES

    def at(pos: int, msg: str) -> Diagnostic:
        line, col = _line_col(text, pos)
        tok = getattr(err, "token", None)
        width = 1
        if tok is not None and tok.type == "NAME" and tok.start_pos == pos and "\n" not in str(tok):
            width = max(len(str(tok)), 1)  # the misspelt word whole
        return Diagnostic(A.Span(file, line, col, line, col + width), msg, "syntax")

    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream
        ch = text[pos] if 0 <= pos < len(text) else ""
        if ch == '"' and not re.match(r'"([^"\\\n]|\\.)*"', text[pos:]):
            return at(pos, "unterminated string: a string ends with `\"` on the same line it starts")
        if ch == "/":
            return at(pos, "unexpected character '/': division is written `//` (it rounds down), as in `tiles // 2`")
        return None
    tok = getattr(err, "token", None)
    if tok is None:
        return None
    expected = set(getattr(err, "expected", ()) or ())
    if tok.type == "$END" or isinstance(err, UnexpectedEOF):
        brace = _unclosed_brace(text)
        if brace is not None and "RBRACE" in expected:
            return at(brace, "unclosed `{`: a block must end with `}` (found end of file, and this `{` is still open)")
        return None
    pos = tok.start_pos or 0
    before = text[:pos]
    brace = _brace_left_open_before(text, pos)
    if brace is not None:
        line = text.count("\n", 0, pos) + 1
        word = re.match(r"[A-Za-z_]\w*", text[text.rfind("\n", 0, pos) + 1:]).group(0)
        return at(brace, f"unclosed `{{`: this block has no `}}` before the next statement (`{word}`, line {line})")
    if tok.type == "COMP_OP":
        m = _CHAIN.search(before)
        after = re.match(r"\s*(\w+)", text[tok.end_pos or pos:])
        if m and after:
            a, op, b = m.groups()
            return at(pos, f"comparisons do not chain: write `{a} {op} {b} and {b} {tok} {after.group(1)}`")
        return at(pos, "comparisons do not chain: join two comparisons with `and`")
    if re.search(r"(^|[^\w])if\s*$", before):
        start = before.rstrip().rfind("if")
        return at(start, "`if … then … else …` inside a sum, product or comparison needs parentheses, "
                         "as in `1 + (if tiles > 2 then 1 else 0)`")
    if tok.type == "SIGNED_INT" and str(tok).startswith("-") and "INT" in expected and "SIGNED_INT" not in expected:
        return at(pos, f"a count here is a whole number, 0 or more, not `{tok}`")
    if tok.type == "NAME":
        words = sorted(w for w in (_keyword_of(e) for e in expected) if w)
        # two letters swapped (`tiel`, `staet`) is the likeliest typo: such a keyword first, then the closest
        swapped = [w for w in words if len(w) == len(str(tok)) and sorted(w) == sorted(str(tok)) and w != str(tok)]
        close = swapped[:1] or difflib.get_close_matches(str(tok), words, n=1, cutoff=0.7)
        if close:
            return at(pos, f"unexpected `{tok}`; did you mean `{close[0]}`?")
        if "EXTENDS" in expected and is_bundled_module(str(tok)):
            return at(pos, f"`{tok}` alone is not a statement: to build on the module `{tok}`, write "
                           f"`extends {tok}` (or `requires {tok}`)")
    return None


@lru_cache(maxsize=1)
def _bundled_module_names() -> frozenset[str]:
    from .model import BUNDLED_RULES

    return frozenset(p.stem for p in (*BUNDLED_RULES.glob("*.tess"), *BUNDLED_RULES.glob("variants/*.tess")))


def is_bundled_module(word: str) -> bool:
    """Whether `word` names a bundled module (rules/ or rules/variants/).  A word of a rule file
    is looked up in the folder's listing, never made into a path: a 300-letter word is no file
    name the system accepts (ENAMETOOLONG was a traceback, and the editor's diagnostics never came)."""
    return word in _bundled_module_names()


def _syntax_diag(file: str, text: str, err: UnexpectedInput) -> Diagnostic:
    try:
        special = _special(file, text, err)
    except Exception:  # a hint must never crash the checker
        special = None
    if special is not None:
        return special
    label = None
    try:
        label = _match_example(err)
    except Exception:  # matching must never crash the checker
        label = None
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or line <= 0:
        lines = (text[:-1] if text.endswith("\n") else text).split("\n")  # lines as Lark counts them
        line, col = len(lines), len(lines[-1]) + 1
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        msg = f"unexpected character {ch!r}"
        code = "syntax"
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        what = "end of file" if tok.type == "$END" else f"`{tok}`"
        expected = sorted(_pretty(e) for e in err.expected if not e.startswith("__"))[:8]
        msg = f"unexpected {what}"
        if expected:
            msg += "; expected " + ", ".join(expected)
        code = "syntax"
    else:
        msg = "unexpected end of file"
        code = "syntax"
    if label:
        msg = f"{label} (found {msg.removeprefix('unexpected ').split(';')[0]})"
    if code == "syntax" and _in_override(text, err):
        msg += ("; an `override` restates the whole statement, every part of it, as the module it "
                "replaces writes it (not only the part that changes)")
    end = col + 1
    tok = getattr(err, "token", None)
    if (isinstance(err, UnexpectedToken) and tok is not None and tok.type != "$END"
            and tok.line == line and tok.column == col and tok.end_line == line and (tok.end_column or 0) > col):
        end = tok.end_column  # the whole unexpected word is underlined, not its first letter
    return Diagnostic(A.Span(file, line, col, line, end), msg, code)


def _in_override(text: str, err) -> bool:
    """Whether the syntax error lies inside a statement that starts with `override` (the statement
    begins at the last line before the error that starts at column 1)."""
    pos = getattr(err, "pos_in_stream", None)
    tok = getattr(err, "token", None)
    if pos is None and tok is not None and tok.type != "$END":
        pos = tok.start_pos
    if pos is None:
        pos = len(text)
    for line in reversed(text[:pos].split("\n")):
        if line[:1] not in ("", " ", "\t", "#"):
            return line.startswith("override ")
    return False


_PRETTY = {
    "NAME": "a name", "TILE_NAME": "a tile name", "INT": "a number", "SIGNED_INT": "a number",
    "STRING": "a string", "CLAUSE": "a clause ID", "PLACE": "a place", "COUNT": "a count like x4",
    "LBRACE": "`{`", "RBRACE": "`}`", "LSQB": "`[`", "RSQB": "`]`", "LPAR": "`(`", "RPAR": "`)`",
    "EQUAL": "`=`", "COMMA": "`,`", "COLON": "`:`", "$END": "end of file", "COMP_OP": "a comparison",
    "ADD_OP": "`+`/`-`", "MUL_OP": "`*`/`//`/`%`",
}


def _pretty(term: str) -> str:
    if term in _PRETTY:
        return _PRETTY[term]
    try:
        pat = _parser().get_terminal(term).pattern
        if pat.type == "str":
            return f"`{pat.value}`"
    except Exception:
        pass
    return term.lower()

"""Parse rule files into the AST (Lark LALR, positions propagated).

The jobs are one module each: dsl/lalr.py builds or loads the Lark parser of grammar.lark,
dsl/transform.py turns its tree into the AST, dsl/syntax_errors.py words a syntax error;
here, `parse` runs them and bounds how deep an expression may nest.
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import fields, is_dataclass

from lark import Token, Tree
from lark.exceptions import UnexpectedEOF, UnexpectedInput, VisitError

from . import ast as A
from .diagnostics import Diagnostic
from .lalr import GRAMMAR, TABLES, _build, _parser, _tables, keywords, make_parser, tables_text
from .syntax_errors import _EXAMPLES, is_bundled_module, _brace_left_open_before, _syntax_diag, _unclosed_brace, statement_line
from .transform import _Build

__all__ = ["GRAMMAR", "MAX_DEPTH", "MAX_LEVELS", "ParseFailure", "TABLES", "_EXAMPLES", "_build", "_parser",
           "_tables", "keywords", "make_parser", "parse", "tables_text"]


class ParseFailure(Exception):
    """Syntax errors (`diagnostics`, all of them); `partial`: the module of the rest of the file with
    the statements that hold them set aside, when that rest parses (None otherwise), and `set_aside`:
    the names written in those statements (an error about one of them follows from the syntax error)."""

    def __init__(self, diagnostics: list[Diagnostic], partial: "A.Module | None" = None,
                 set_aside: frozenset[str] = frozenset()):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics
        self.partial = partial
        self.set_aside = set_aside


# Deeper expressions would overflow Python's stack in the tree walks that follow
# (the transformer, dsl/transform.py, the checker, the formatter, the compilers).
MAX_DEPTH = 100  # operators nested in one expression
_MAX_TREE_DEPTH = 2 * MAX_DEPTH  # parse-tree levels (a pair of parentheses costs two)


def _too_deep(file: str, line: int, column: int) -> ParseFailure:
    return ParseFailure([Diagnostic(
        A.Span(file, max(line, 1), max(column, 1)),
        f"this expression is nested more than {MAX_DEPTH} levels deep; split it up", "syntax")])


def _check_tree_depth(file: str, tree) -> None:
    stack = [(tree, 1, (1, 1))]
    while stack:
        node, depth, where = stack.pop()
        if not isinstance(node, Tree):
            continue
        meta = node.meta
        if not getattr(meta, "empty", True):
            where = (meta.line, meta.column)
        if depth > _MAX_TREE_DEPTH:
            raise _too_deep(file, *where)
        stack.extend((c, depth + 1, where) for c in node.children)


_CHAINS = ({"+", "-"}, {"*", "//", "%"}, {"and"}, {"or"})
MAX_LEVELS = 250  # levels of an expression tree, a flat chain `a + b + ... + z` included (each is a level of the tree walks)


def _check_expr_depth(file: str, module: A.Module) -> None:
    """Real nesting (parentheses, calls, `if`, `not`) is bounded by MAX_DEPTH; a flat chain
    `a + b + c ...` is not nesting, but its length still bounds the tree walks: MAX_LEVELS."""
    expr_types = (A.IntLit, A.BoolLit, A.Var, A.Call, A.BinOp, A.Not, A.Neg, A.Cond)
    stack: list[tuple[object, int, int, object]] = [(module, 0, 0, None)]  # node, nesting, tree depth, parent op
    while stack:
        node, depth, levels, parent_op = stack.pop()
        if isinstance(node, tuple):
            stack.extend((c, depth, levels, None) for c in node)
            continue
        if not is_dataclass(node) or isinstance(node, A.Span):
            continue
        if isinstance(node, expr_types):
            levels += 1
            same_chain = isinstance(node, A.BinOp) and parent_op is not None and any(
                node.op in c and parent_op in c for c in _CHAINS)
            if not same_chain:
                depth += 1
            span = node.span  # type: ignore[attr-defined]
            if depth > MAX_DEPTH:
                raise _too_deep(file, span.line, span.column)
            if levels > MAX_LEVELS:
                raise ParseFailure([Diagnostic(
                    A.Span(file, max(span.line, 1), max(span.column, 1)),
                    f"this expression is more than {MAX_LEVELS} operators long; split it up (a `state` can hold a part)",
                    "syntax")])
        if isinstance(node, A.BinOp):  # the left operand continues a chain, the right one starts a level
            stack.append((node.left, depth, levels, node.op))
            stack.append((node.right, depth, levels, None))
            continue
        stack.extend((getattr(node, f.name), depth, levels, None) for f in fields(node) if f.name != "span")


MAX_SYNTAX_ERRORS = 50  # a file's syntax errors reported at once (each after the statement of the last is set aside)
RECOVERY_BUDGET = 256 << 10  # characters parsed again after syntax errors, in all: a rule file of a few KiB is
# parsed again up to MAX_SYNTAX_ERRORS times; a file of over 256 KiB gives its first error only, as before (a
# hostile 1 MiB file takes seconds to parse once, and must not take minutes)


def _error_line(text: str, err: UnexpectedInput) -> int:
    tok = getattr(err, "token", None)
    if isinstance(err, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
        return text.count("\n") + 1
    line = getattr(err, "line", 0) or (getattr(tok, "line", 0) if tok is not None else 0)
    return max(int(line or 1), 1)


def _syntax_errors(file: str, text: str, err: UnexpectedInput) -> tuple[list[Diagnostic], str | None, frozenset[str]]:
    """Every syntax error of the file, one per mistake: after an error, the top-level statement that
    holds it (from the line that starts it to the next line that starts one; for a block left open,
    up to the statement that follows it) is set aside, blanked to keep lines and columns, and the
    rest is parsed again."""
    diags = [_syntax_diag(file, text, err)]
    lines = text.split("\n")
    original = list(lines)
    aside: set[int] = set()
    header_lost = clean = False
    done = 0  # lines before this index are set aside or parsed
    budget = RECOVERY_BUDGET  # characters parsed again at most: a hostile file cannot make recovery slow
    while len(diags) < MAX_SYNTAX_ERRORS and budget >= len(text):
        budget -= len(text)
        at = _error_line(text, err) - 1
        if at < done or at >= len(lines):
            break
        tok = getattr(err, "token", None)
        pos = getattr(tok, "start_pos", None) if tok is not None else None
        open_block = pos is not None and _brace_left_open_before(text, pos) is not None
        if open_block:  # the block left open: set aside from its statement to the line before this one
            first = brace_line = text.count("\n", 0, _unclosed_brace(text[:pos]) or 0)
            while first > 0 and not statement_line(lines[first]):
                first -= 1
            first, end = max(first, min(brace_line, done)), at
        else:
            first = at
            tok_text = str(tok) if tok is not None else ""
            if (tok is not None and getattr(tok, "column", 0) == 1 and tok_text in keywords() and first > done):
                first -= 1  # a statement that starts well: the one before it is unfinished (a `]` or `)` left out)
            while first > done and not statement_line(lines[first]):
                first -= 1
            end = at + 1
            while end < len(lines) and not statement_line(lines[end]):
                end += 1
        header = not any(statement_line(ln) for ln in lines[:first])
        for i in range(first, end):
            lines[i] = " " * len(lines[i])
            aside.add(i)
        if header:  # the file's first statement (its `module NAME` line): a stand-in, so the rest is read as a module
            lines[first] = "module _"
            header_lost = True
        done = end
        try:
            _parser().parse("\n".join(lines))
            clean = True
            break
        except UnexpectedInput as more:
            text, err = "\n".join(lines), more
            if _error_line(text, err) - 1 < done:
                break
            diags.append(_syntax_diag(file, text, err))
    words = frozenset(w for i in aside for w in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", original[i])
                      if w not in keywords())
    partial = clean and not header_lost and budget >= len(text)  # the rest parsed once more, into the module
    return diags, ("\n".join(lines) if partial else None), words


def parse(text: str, file: str = "<input>") -> A.Module:
    """Parse one rule file; raises ParseFailure with diagnostics on a syntax error.

    A file parsed before with the same text and name is not parsed again: the AST is immutable
    (frozen dataclasses over tuples), and `tessera verify` loads base, the river and the rest
    once for every rule set that builds on them (61 parses of 10 files in the bundled run)."""
    return _parse_cached(text, file)


@lru_cache(maxsize=32)
def _parse_cached(text: str, file: str) -> A.Module:
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        diags, rest, words = _syntax_errors(file, text, err)
        partial = None
        if rest is not None:  # the rest of the file, read as if the statements at fault were not there
            try:
                partial = parse(rest, file)
            except ParseFailure:
                partial = None
            if partial is not None and not any(isinstance(i, (A.Requires, A.Extends)) for i in partial.items) \
                    and any(is_bundled_module(w) for w in words):
                partial = None  # the statement set aside named the module it builds on: without it, all is unknown
        raise ParseFailure(diags, partial, words) from None
    except RecursionError:  # not expected (the LALR parser is iterative), but never a traceback
        raise _too_deep(file, 1, 1) from None
    _check_tree_depth(file, tree)
    try:
        module = _Build(file).transform(tree)
    except VisitError as err:  # a literal out of range, a bad escape in a string and the like
        obj = err.obj
        meta = obj if isinstance(obj, Token) else getattr(obj, "meta", None)
        line = getattr(meta, "line", None) or 1
        col = getattr(meta, "column", None) or 1
        end_line = getattr(meta, "end_line", None) or 0
        end_col = getattr(meta, "end_column", None) or 0
        raise ParseFailure([Diagnostic(A.Span(file, line, col, end_line, end_col),
                                       f"cannot read this: {err.orig_exc}", "syntax")]) from None
    except RecursionError:
        raise _too_deep(file, 1, 1) from None
    _check_expr_depth(file, module)
    return module


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write-tables"]:
        sys.exit("usage: python -m tessera.dsl.parser --write-tables")
    TABLES.write_text(tables_text(), encoding="utf-8")
    print(f"wrote {TABLES}")

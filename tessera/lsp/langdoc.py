"""The language reference, docs/language.md, as the editor shows it: one source for the
hover and completion texts of keywords, quantities, functions and operators.

- a statement's keywords: its section of chapter 2 (`### 2.4 \\`feature\\`: a kind of
  feature`): the syntax block and the first paragraph after it;
- quantities and functions: their rows of the tables in 3.3;
- operators and expression words (`if`, `and`, `not`, `true`): their rows of the table in 3.1.

Where the reference is not installed (a wheel carries no docs/), the built-in names fall
back on `dsl/builtins.py`'s one-line descriptions, which the checker's messages use.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..dsl.builtins import FUNCTIONS, QUANTITIES

# an installed wheel has it as tessera/docs/language.md (pyproject's package-data); a checkout, as docs/language.md
DOC = next((d / "docs" / "language.md" for d in Path(__file__).resolve().parents[1:3]
            if (d / "docs" / "language.md").is_file()), Path(__file__).resolve().parents[2] / "docs" / "language.md")


@dataclass(frozen=True)
class Section:
    number: str  # "2.4"
    title: str  # the heading, as written
    heads: tuple[str, ...]  # the statement keywords its heading names
    syntax: str  # the first code block (the syntax lines)
    summary: str  # the first paragraph after it

    def markdown(self) -> str:
        return f"```\n{self.syntax}\n```\n{self.summary}\n\n*language.md {self.number}*"

    def words(self) -> set[str]:
        return set(re.findall(r"\b[a-z][a-z_]*\b", self.syntax))


def _text() -> str:
    try:
        return DOC.read_text(encoding="utf-8")
    except OSError:
        return ""


@lru_cache(maxsize=1)
def sections() -> tuple[Section, ...]:
    """The statement sections of chapter 2 (and 1.2 `requires`/`extends`)."""
    out = []
    parts = re.split(r"^### ", _text(), flags=re.M)
    for part in parts[1:]:
        head, _, body = part.partition("\n")
        m = re.match(r"(\d+\.\d+)\s+(.*)", head)
        if not m or not (m.group(1).startswith("2.") or m.group(1) == "1.2"):
            continue
        number, title = m.groups()
        heads = tuple(re.findall(r"`([a-z][a-z_]*)(?: [a-z_ ]*)?`", title.split(":")[0]))  # `on round end`: on
        code = re.search(r"^```[a-z]*\n(.*?)^```", body, flags=re.S | re.M)
        syntax = code.group(1).rstrip("\n") if code else ""
        after = body[code.end():] if code else body
        paras = [p.strip() for p in re.split(r"\n\s*\n", after) if p.strip() and not p.lstrip().startswith(("```", "|", "#"))]
        out.append(Section(number, title.strip(), heads, syntax, " ".join(paras[0].split()) if paras else ""))
    return tuple(out)


def _rows(section: str) -> list[list[str]]:
    m = re.search(rf"^### {re.escape(section)} .*?(?=^### |^## |\Z)", _text(), flags=re.S | re.M)
    if not m:
        return []
    rows = []
    for line in m.group(0).splitlines():
        if line.startswith("| `"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))  # `\|` is a | inside a cell
            rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows


@lru_cache(maxsize=1)
def builtins() -> dict[str, str]:
    """name -> markdown for each quantity and function (3.3's rows; dsl/builtins.py where the
    reference is missing)."""
    out: dict[str, str] = {}
    for cells in _rows("3.3"):
        call = cells[0].strip("`")
        name = call.split("(")[0]
        what = "function" if "(" in call else "quantity"
        more = f"; contexts: {cells[2]}" if len(cells) > 2 else ""
        more += f"; {'range' if what == 'quantity' else 'result'}: {cells[3]}" if len(cells) > 3 else ""
        out[name] = f"**{call}** ({what}): {cells[1]}{more}\n\n*language.md 3.3*"
    for q in QUANTITIES.values():
        out.setdefault(q.name, f"**{q.name}** (quantity): {q.doc}; contexts: {', '.join(sorted(q.contexts))}")
    for f in FUNCTIONS.values():
        out.setdefault(f.name, f"**{f.name}({', '.join(a.upper() for a in f.args)})** (function): {f.doc}")
    return out


@lru_cache(maxsize=1)
def operators() -> dict[str, str]:
    """`if`, `then`, `else`, `and`, `or`, `not`, `true`, `false` -> their rows of 3.1."""
    out: dict[str, str] = {}
    for cells in _rows("3.1"):
        for word in re.findall(r"\b(if|then|else|and|or|not|true|false)\b", cells[0]):
            out.setdefault(word, f"`{cells[0].replace('`', '')}`: {cells[1]}" + (f" ({cells[2]})" if len(cells) > 2 else "")
                           + "\n\n*language.md 3.1*")
    return out


@lru_cache(maxsize=1)
def places() -> dict[str, str]:
    """A place name (`N`, `Nw`, `NE`, `C`) -> its row of the table in chapter 4."""
    m = re.search(r"^## 4\. .*?(?=^## 5)", _text(), flags=re.S | re.M)
    out: dict[str, str] = {}
    for line in (m.group(0) if m else "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and "`" in cells[1]:
            for name in re.findall(r"`([A-Za-z]+)`", cells[1]):
                out[name] = f"**{name}**: {cells[0].lower()} ({cells[1]}): {cells[2]}\n\n*language.md 4*"
    return out


def _section_rows(number: str) -> list[list[str]]:
    return _rows(number)


@lru_cache(maxsize=1)
def card_statements() -> dict[str, str]:
    """The card game's statements (language.md 7.2): keyword -> its row."""
    out: dict[str, str] = {}
    for cells in _section_rows("7.2"):
        syntax = cells[0]
        first = re.match(r"`([a-z]+)", syntax)
        if first:
            text = f"`{syntax.replace('`', '')}`: {cells[1] if len(cells) > 1 else ''}"
            out[first.group(1)] = (out[first.group(1)] + "\n\n" if first.group(1) in out else "") + text
    return {k: v + "\n\n*language.md 7.2*" for k, v in out.items()}


@lru_cache(maxsize=1)
def card_names() -> dict[str, str]:
    """The card game's names in expressions (language.md 7.3): name -> its row."""
    out: dict[str, str] = {}
    for cells in _section_rows("7.3"):
        name = re.match(r"`([a-z_]+)", cells[0])
        if name and name.group(1) not in ("min", "max"):
            out[name.group(1)] = f"**{cells[0].replace('`', '')}** ({cells[1]}): {cells[2]}\n\n*language.md 7.3*"
    return out


def keyword(word: str, head: str | None = None, family: str | None = None) -> str | None:
    """Markdown for a keyword: the section of the statement it is used in (`head`, the
    statement's first word) when that section's syntax has it, else its own section, else
    the first section whose syntax uses it; an expression word's row of 3.1.  In a card game
    (`family`, dsl/family.py's noun) a statement of both games (`score`, `end`) is the card game's."""
    if word in operators():
        return operators()[word]
    if head in card_statements() and (family == "card" or head not in {h for s in sections() for h in s.heads}):
        row = card_statements()[head]
        if word == head or re.search(rf"\b{re.escape(word)}\b", row):
            return row
    secs = sections()
    if head:
        for s in secs:
            if head in s.heads and (word == head or word in s.words()):
                return s.markdown()
    for s in secs:
        if word in s.heads:
            return s.markdown()
    for s in secs:
        if word in s.words():
            return s.markdown()
    return card_statements().get(word)

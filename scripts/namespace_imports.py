"""Rewrite imports and module names of the repository's top-level packages to the installed
namespace: `dsl`, `compiler`, `verifier`, `pictures` -> `tessera.dsl`, `tessera.compiler`, ...

    python scripts/namespace_imports.py [ROOT] [--check]

The folders stay where they are (dsl/, compiler/, ...); pyproject.toml's package-dir mapping
installs them under `tessera.`.  This script rewrites what names them as modules, in every
.py, .md, .json, .txt, .toml (but pyproject.toml), .cfg, .ini, .sh, .yml and .yaml file and
.ci/run under ROOT (not grammar.lark, whose hash keys the parser tables) (default: the repository holding this script), skipping .git, virtual
environments, node_modules, build output and caches:

- import statements (whatever module they name): `from dsl.loader import x`, `from dsl import parser`, `import compiler.build`,
  `import verifier.witness as W`, `import dsl, compiler` (at a line's start, after `>>>`, or
  inside a string or inline code: `"from dsl import parser"`, `"import compiler.build as b"`);
- dotted names: `compiler.build.load_engine` in code (after `import compiler.build`), in
  docstrings and docs, in strings such as `mock.patch("replay.tiles.replay")`,
  `python -m dsl.parser` or `f"verifier.{name}"`.  A dotted name is rewritten only when what
  follows the package's name is one of its modules or subpackages as they lie in ROOT now (so
  `verifier.md`, `pictures.md`, `self.compiler.x` and `dsl/parser.py` are left alone);
- a package's bare name in quotes where a module name is meant: on a line (or the line before
  one) that says `import_module`, `sys.modules`, `find_spec` or `__import__`
  (`importlib.import_module("verifier")`), and the one name right after `"-m",` (`"-m", "tessera",
  "replay"` names the module `tessera`; `replay` is its command); a folder named in quotes (`REPO /
  "dsl"`) is a path and stays.

Then, inside the packages themselves (every .py file of a folder that pyproject.toml's package-dir
maps under `tessera.`), an import of another module of the namespace is written relative to the
tree (issue 36), so a reader, or a tool that reads the tree, sees how the packages connect:

- `from tessera.dsl.ast import Span` in compiler/lower.py -> `from ..dsl.ast import Span`;
  `from tessera.dsl import ast as A` -> `from ..dsl import ast as A`; in tessera/cli.py
  `from tessera.dsl.loader import x` -> `from .dsl.loader import x`;
- `import tessera.verifier.cards as vc` -> `from ..verifier import cards as vc`.

A plain `import tessera.compiler.build` (no `as`), whose code names the module in full, stays, and
so does everything outside the packages (tests/, bench/, scripts/, docs: they are not inside the
namespace and spell it `tessera.`).  The copied engine runtimes (compiler/runtime, compiler/cardrt)
import only relatively already.

A relative import that names no module of the tree (one left behind when a module moved to another
package, as compiler/simulate.py did to play/) is listed, with its line, and makes the script exit 1:
which module was meant is the author's to say.

Idempotent: a name already under `tessera.` is never touched again, and a relative import is never
made absolute, so it can be re-run on a tree that has new code in either old spelling (after a merge).  `--check` changes nothing and exits 1 if anything
would change (listing the files).  The copied engine runtime (compiler/runtime, compiler/cardrt)
imports only relatively, so generated engines are unaffected.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

PACKAGES = ("dsl", "compiler", "verifier", "pictures", "play", "replay")
PREFIX = "tessera"
SUFFIXES = {".py", ".md", ".json", ".txt", ".toml", ".cfg", ".ini", ".sh", ".yml", ".yaml"}
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist", ".pytest_cache",
             ".hypothesis", ".mypy_cache", "out"}
SKIP_FILES = {"pyproject.toml", "constraints.txt"}
HERE = Path(__file__).resolve()
RUNTIMES = ("compiler/runtime", "compiler/cardrt")  # copied into every engine: standalone, left alone
PKG = "|".join(PACKAGES)
NOT_AFTER = r"(?<![\w.\-/\\])"  # not part of a longer dotted name, a path or an option
SPLIT = re.compile(r"\.split\(")  # m.split('.')[0] in ('dsl', ...): a first component, left as it is
MODULE_CONTEXT = re.compile(r"import_module|sys\.modules|find_spec|__import__")
# `"-m", "verifier"`: the one quoted name right after `-m` is a module (`"-m", "tessera", "replay"`: the
# command word `replay` after it is not)
AFTER_M = re.compile(r"([\"']-m[\"']\s*,\s*)([\"'])(" + PKG + r")\2")


def submodules(root: Path, package: str) -> set[str]:
    """The names directly under a package folder: its modules and subpackages."""
    folder = root / package
    names = set()
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.suffix == ".py" and entry.stem != "__init__":
                names.add(entry.stem)
            elif entry.is_dir() and (entry / "__init__.py").is_file():
                names.add(entry.name)
    return names


def rewriter(root: Path):
    subs = {p: submodules(root, p) for p in PACKAGES}
    dotted = re.compile(NOT_AFTER + r"(" + PKG + r")\.(?=([A-Za-z_]\w*|\{))")

    def dotted_sub(m: re.Match) -> str:
        pkg, nxt = m.group(1), m.group(2)
        if nxt == "{" or nxt in subs[pkg]:
            return f"{PREFIX}.{pkg}."
        return m.group(0)

    from_import = re.compile(r"(?:(?<=\\n)|" + NOT_AFTER + r")(from\s+)(" + PKG + r")(?=\s+import\b|\.)")
    import_line = re.compile(r"(?m)^(\s*(?:>>>\s*|\.\.\.\s*)?import\s+)([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
    import_inline = re.compile(r"((?:^|[;\"'(]|\\n)\s*import\s+)(" + PKG + r")(?=\s*(?:$|[;\"'\n\\)]|\s+as\s))",
                               re.M)
    bare_quoted = re.compile(r"(?<!/\s)(?<!/)([\"'])(" + PKG + r")\1(?!\s*/)")  # not a path: REPO / "dsl"

    def fix_import_list(m: re.Match) -> str:
        items = re.split(r"(\s*,\s*)", m.group(2))
        out = []
        for item in items:
            head = item.split(".")[0].split()[0] if item.strip() and not item.strip().startswith(",") else ""
            out.append(f"{PREFIX}.{item}" if head in PACKAGES else item)
        return m.group(1) + "".join(out)

    def rewrite(text: str, python: bool) -> str:
        text = import_line.sub(fix_import_list, text)
        text = from_import.sub(lambda m: f"{m.group(1)}{PREFIX}.{m.group(2)}", text)
        if python:
            text = import_inline.sub(lambda m: f"{m.group(1)}{PREFIX}.{m.group(2)}", text)
        text = dotted.sub(dotted_sub, text)
        if python:
            lines = text.split("\n")
            for i, line in enumerate(lines):
                window = line + (lines[i + 1] if i + 1 < len(lines) else "")
                if bare_quoted.search(line) and MODULE_CONTEXT.search(window) and not SPLIT.search(line):
                    lines[i] = line = bare_quoted.sub(lambda m: f"{m.group(1)}{PREFIX}.{m.group(2)}{m.group(1)}", line)
                lines[i] = AFTER_M.sub(lambda m: f"{m.group(1)}{m.group(2)}{PREFIX}.{m.group(3)}{m.group(2)}", line)
            text = "\n".join(lines)
        return text

    return rewrite


def package_dirs(root: Path) -> dict[str, Path]:
    """pyproject.toml's package-dir: each package of code under `tessera.` and its folder."""
    import tomllib

    dirs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    return {pkg: root / folder for pkg, folder in dirs.items() if (root / folder / "__init__.py").is_file()}


def _relative(package: str, target: str) -> str:
    """`target` (a dotted module name) as written relative to `package`: `..dsl.ast` from tessera.compiler."""
    here, there = package.split("."), target.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(there[common:])


FROM_HEAD = re.compile(r"from\s+" + PREFIX + r"((?:\.\w+)*)\s+import\b")
IMPORT_AS = re.compile(r"import\s+" + PREFIX + r"((?:\.\w+)+)\s+as\s+(\w+)\s*$")


def relative_imports(text: str, package: str) -> str:
    """Every `from tessera... import` (and `import tessera.x.y as z`) of a module of `package`, relative."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(line: int, col: int) -> int:  # ast's column is in UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))

    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None and \
                (node.module == PREFIX or node.module.startswith(PREFIX + ".")):
            m = FROM_HEAD.match(text, at(node.lineno, node.col_offset))
            if m:
                edits.append((m.start(), m.end(), f"from {_relative(package, node.module)} import"))
        elif isinstance(node, ast.Import) and len(node.names) == 1 and node.names[0].asname and \
                node.names[0].name.startswith(PREFIX + ".") and node.lineno == node.end_lineno:
            a, b = at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)
            m = IMPORT_AS.match(text[a:b])
            if m:
                parent, _, name = node.names[0].name.rpartition(".")
                edits.append((a, b, f"from {_relative(package, parent)} import {name} as {node.names[0].asname}"))
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def dangling(text: str, package: str, dirs: dict[str, Path]) -> list[str]:
    """Relative imports that name no module of the tree (`from .turns import x` left in a module that
    moved to another package): `line: the import` for each, for --check to list."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            pkg = max((p for p in dirs if target == p or target.startswith(p + ".")), key=len, default=None)
            if pkg is None:
                out.append(f"{node.lineno}: from {'.' * node.level}{node.module or ''} names no module of the tree")
                continue
            rest = target[len(pkg) + 1:].split(".") if target != pkg else []
            here = dirs[pkg].joinpath(*rest)
            if not (here.with_suffix(".py").is_file() or (here / "__init__.py").is_file()):
                out.append(f"{node.lineno}: from {'.' * node.level}{node.module or ''} names no module of the tree")
    return out


def package_files(root: Path):
    """(path, the package its imports are relative to) for every module inside the namespace's packages."""
    for pkg, folder in package_dirs(root).items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if any(rel.startswith(r + "/") for r in RUNTIMES) or any(part in SKIP_DIRS for part in path.parts):
                continue
            parts = path.relative_to(folder).parts[:-1]
            yield path, ".".join([pkg, *parts])


def files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")
                             and not (Path(dirpath) / d / "pyvenv.cfg").exists())
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name in SKIP_FILES or path.resolve() == HERE:
                continue
            if path.suffix in SUFFIXES or path.relative_to(root).as_posix() == ".ci/run":
                yield path


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    check = "--check" in argv
    root = Path(args[0]).resolve() if args else HERE.parent.parent
    if not all((root / pkg / "__init__.py").is_file() for pkg in PACKAGES):
        print(f"{root}: not the repository's root (no {', '.join(p + '/' for p in PACKAGES)} here)", file=sys.stderr)
        return 2
    rewrite = rewriter(root)
    changed = []
    for path in files(root):
        try:
            text = path.read_bytes().decode("utf-8")  # line ends kept as they are
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite(text, path.suffix == ".py")
        if new != text:
            changed.append(path.relative_to(root).as_posix())
            if not check:
                path.write_bytes(new.encode("utf-8"))
    lost = []
    if (root / "pyproject.toml").is_file():
        dirs = package_dirs(root)
        for path, package in package_files(root):
            text = path.read_bytes().decode("utf-8")
            lost += [f"{path.relative_to(root).as_posix()}:{d}" for d in dangling(text, package, dirs)]
            new = relative_imports(text, package)
            if new != text:
                name = path.relative_to(root).as_posix()
                if name not in changed:
                    changed.append(name)
                if not check:
                    path.write_bytes(new.encode("utf-8"))
    for name in changed:
        print(name)
    print(f"{len(changed)} file(s) {'to rewrite' if check else 'rewritten'}", file=sys.stderr)
    for line in lost:  # not rewritten: which module was meant is the author's to say
        print(f"{line} (a module moved? write it from the tree: `from ..replay.turns import ...`)", file=sys.stderr)
    return 1 if (check and changed) or lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

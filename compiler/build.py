"""Compile a rule set into an engine package, on disk or in memory."""
from __future__ import annotations

import importlib.util
import keyword
import shutil
import sys
import types
from pathlib import Path

from ..dsl.family import Family
from ..dsl.model import RuleSet
from .codegen import generate


INIT = '''"""A Carcassonne engine compiled by tessera from: {modules}.

Runs on the Python standard library alone.

    from {pkg} import new_game
    g = new_game(players=2, seed=1)
    while not g.is_terminal():
        g.apply_action(g.legal_actions()[0])
    print(g.returns())
"""
from . import rules
from .runtime import Game, IllegalAction, play_random as _play_random

MODULES = rules.MODULES


def new_game(players=2, seed=0, names=None, start=None):
    """A new game: 2..{high} players, a seed for the bag."""
    return Game(rules, players, seed, names, start)


def play_random(players=2, seed=0, names=None):
    return _play_random(rules, players, seed, names)
'''


CARD_INIT = '''"""A Carcassonne card-game engine (rulebook 001) compiled by tessera from: {modules}.

Runs on the Python standard library alone.

    from {pkg} import new_game
    g = new_game(players=2, seed=1)
    while not g.is_terminal():
        g.apply_action(g.legal_actions()[0])
    print(g.returns(), g.view(0))
"""
from . import rules
from .runtime import Game, IllegalAction, play_random as _play_random

MODULES = rules.MODULES


def new_game(players=2, seed=0, names=None, deck=None):
    """A new game: 2..{high} players, a seed for the shuffle (or a record's `deck`)."""
    return Game(rules, players, seed, names, deck)


def play_random(players=2, seed=0, names=None):
    return _play_random(rules, players, seed, names)
'''

MARKER = ".tessera-engine"  # in every package `tessera compile` writes; only such a folder is ever replaced
MARKER_TEXT = ("# This folder was written by `tessera compile`; the next compile into it replaces it whole, but only\n"
               "# when it holds nothing but the files listed below (and Python's caches of them): its manifest.\n")
WRITTEN = {"__init__.py", "runtime", "rules.py", MARKER, "__pycache__"}  # what a compile leaves in it (and Python adds)
MAX_LISTED = 10_000  # entries looked at in a package before it is called foreign (a compile writes about 30)


def _manifest(family: Family, native: list[Path] = ()) -> list[str]:
    """Every file a compile writes into its package, as paths relative to it (the marker's list);
    `native`: the native kernel's files a `compile --native` adds to runtime/ (compiler/native.py)."""
    return ["__init__.py", "rules.py", MARKER, *(f"runtime/{p.name}" for p in [*family.runtime_sources(), *native])]


def _listed(marker: str) -> set[str]:
    """The files a package's marker lists; a marker written before the list (issue 38): what a
    compile of either family writes."""
    lines = marker.splitlines()
    if not any(ln.startswith("#") for ln in lines):  # the old one-line marker: no list
        return set().union(*(_manifest(f) for f in Family.REGISTRY.values()))
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")} | {MARKER}


def _foreign(fd: int, listed: set[str]) -> list[str]:
    """What the package folder open at `fd` holds that its manifest does not list, nor Python's
    caches of the modules it lists (`runtime/__pycache__/ops.cpython-312.pyc`), as relative
    paths; links are not followed.  Everything, when there is too much to look at."""
    import os

    folders = {"runtime", "__pycache__", "runtime/__pycache__"}
    out: list[str] = []
    seen = 0
    for top, dirs, files, _ in os.fwalk(".", dir_fd=fd):
        rel = top[2:] if top.startswith("./") else ("" if top == "." else top)
        for d in list(dirs):
            seen += 1
            path = f"{rel}/{d}" if rel else d
            if path not in folders:
                out.append(path + "/")
                dirs.remove(d)  # a folder of the user's: not walked, it is foreign whole
        for f in files:
            seen += 1
            path = f"{rel}/{f}" if rel else f
            if path in listed:
                continue
            if rel.endswith("__pycache__") and f.endswith(".pyc"):
                owner = rel[: -len("__pycache__")] + f.split(".", 1)[0] + ".py"
                if owner in listed:
                    continue
            out.append(path)
        if seen > MAX_LISTED:
            out.append("...")
            break
    return sorted(out)


class CompileTargetError(Exception):
    """The engine cannot be written where asked; nothing was changed."""


def _refuse_target(pkg: Path) -> None:
    try:
        _check_target(pkg)
    except (FileNotFoundError, NotADirectoryError):  # a concurrent compile moved it away meanwhile: nothing there
        pass


def _check_target(pkg: Path) -> None:
    """Judge what stands at `pkg` as one object.

    A compile running beside this one renames folders into and out of that path,
    so two looks by name may see two different folders (CI-like load showed "is
    a file" for a folder renamed away between `exists()` and `is_dir()`).  After
    one `lstat`, every look goes through the folder's descriptor, and a verdict
    counts only if the folder is still the one at `pkg` once it was read: a
    folder moved away meanwhile may be half deleted by the compile that moved it."""
    import errno
    import os
    import stat

    try:
        st = os.lstat(pkg)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise CompileTargetError(f"{pkg} is a symbolic link; tessera writes its engine only into a folder of its own")
    if not stat.S_ISDIR(st.st_mode):
        raise CompileTargetError(f"{pkg} is a file, not a folder; remove it or choose another --package or -o")
    try:
        fd = os.open(pkg, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # replaced meanwhile by a link or a file: judge that next time
            return
        raise
    try:
        here = os.fstat(fd)
        names = os.listdir(fd)
        try:
            ours = stat.S_ISREG(os.stat(MARKER, dir_fd=fd, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            ours = False
        foreign = []
        if ours:  # every file, at every depth, must be one the marker lists (or Python's cache of one)
            mfd = os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            with os.fdopen(mfd, "rb") as fh:
                listed = _listed(fh.read(1 << 20).decode("utf-8", "replace"))
            foreign = _foreign(fd, listed)
        try:
            now = os.lstat(pkg)
        except FileNotFoundError:
            return
    finally:
        os.close(fd)
    if (now.st_dev, now.st_ino) != (here.st_dev, here.st_ino):
        return  # what was read is no longer at pkg: no verdict on it
    if not ours and names:
        raise CompileTargetError(f"{pkg} exists and was not written by tessera compile (it has no {MARKER} file); "
                                 f"it is left alone: choose another --package or -o, or remove it yourself")
    if ours and foreign:
        raise CompileTargetError(f"{pkg} holds files tessera did not write ({', '.join(foreign[:5])}"
                                 f"{', ...' if len(foreign) > 5 else ''}); "
                                 f"it is left alone: move them out, or choose another --package or -o")


def compile_to_dir(rs: RuleSet, out: Path, package: str = "engine", native: bool = False) -> Path:
    """Write an importable package `out/package` (runtime + generated rules).

    The package is written into a fresh temporary folder beside it and renamed
    into place, so a reader never sees half an engine and concurrent compiles
    into one folder each succeed.  A folder of that name is replaced only when
    tessera wrote it (it holds the MARKER file) or it is empty; anything else is
    refused with CompileTargetError and nothing is changed or left behind.

    `native`: runtime/ also gets the native kernel's extension modules (built first when the
    cache has none: compiler/native.py, KernelError when it cannot be) and their .pxd files; an
    interpreter of another version ignores the extension modules and runs the .py beside them.
    """
    import errno
    import os
    import tempfile

    if not package.isidentifier() or keyword.iskeyword(package):
        raise ValueError(f"not a Python package name: {package!r}")
    compiled = generate(rs)
    kernel: list[Path] = []
    if native:
        from .native import built_files

        kernel = built_files(rs.family, package, say=_say)
    out = Path(out)
    pkg = out / package
    if out.exists() and not out.is_dir():
        raise CompileTargetError(f"{out} is a file, not a folder")
    _refuse_target(pkg)
    made = [d for d in (out, *out.parents) if not d.exists()]  # folders this compile creates
    try:
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{package}.", suffix=".tmp", dir=out))
    except OSError as exc:
        _remove_empty(made)
        raise CompileTargetError(f"cannot write into {out}: {exc.strerror or exc}") from None
    done = False
    try:
        high = rs.player_range()[1]
        (tmp / "__init__.py").write_text(rs.family.init.format(modules=", ".join(rs.names), pkg=package, high=high), encoding="utf-8")
        _copy_runtime(tmp / "runtime", rs.family)
        for f in kernel:
            shutil.copyfile(f, tmp / "runtime" / f.name)
        (tmp / "rules.py").write_text(compiled.source, encoding="utf-8")
        (tmp / MARKER).write_text(MARKER_TEXT + "".join(f"{n}\n" for n in _manifest(rs.family, kernel)),
                                  encoding="utf-8")
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; a package folder is as readable as any other
        for _ in range(100):  # another compile may be renaming into the same place meanwhile
            try:
                os.rename(tmp, pkg)  # atomic; succeeds when nothing (or an empty folder) is there
                done = True
                return pkg
            except OSError as exc:
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            _refuse_target(pkg)  # what is there now must still be ours
            old = Path(tempfile.mkdtemp(prefix=f".{package}.", suffix=".old", dir=out))
            try:
                os.rename(pkg, old / package)  # move the previous engine aside, then delete it
            except FileNotFoundError:  # a concurrent compile moved it first
                pass
            shutil.rmtree(old, ignore_errors=True)
        raise CompileTargetError(f"{pkg} kept changing while tessera wrote it; try again")
    except OSError as exc:
        raise CompileTargetError(f"cannot write {pkg}: {exc.strerror or exc}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        if not done:
            _remove_empty(made)


def _remove_empty(folders: list[Path]) -> None:
    for d in folders:  # innermost first; only what is still empty
        try:
            d.rmdir()
        except OSError:
            break


def _copy_runtime(dest: Path, family: Family) -> None:
    """The runtime package's modules, verbatim (no caches): the tile runtime, or the card
    runtime with the modules it shares with the tile runtime."""
    dest.mkdir()
    for src in family.runtime_sources():
        (dest / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")


_counter = 0
_SHARED: dict[str, types.ModuleType] = {}  # the native runtime of each family, once imported


def _say(line: str) -> None:
    print(f"tessera: {line}", file=sys.stderr, flush=True)


def _import_runtime(name: str, family: Family, path: list[str]) -> types.ModuleType:
    """The runtime package `name`, its modules found on `path` (its __init__ the family's own)."""
    rt_spec = importlib.util.spec_from_file_location(name, Path(family.runtime_path()[0]) / "__init__.py",
                                                     submodule_search_locations=path)
    runtime = importlib.util.module_from_spec(rt_spec)
    sys.modules[name] = runtime
    rt_spec.loader.exec_module(runtime)
    return runtime


def _shared_runtime(family: Family, path: list[str]) -> types.ModuleType:
    """The native runtime of `family`, imported once in this process with every one of its modules,
    as the package its extension modules were compiled in (`_tessera_kernel.runtime`: native.py, Plan)."""
    from .native import PACKAGE

    if family.name not in _SHARED:
        if PACKAGE not in sys.modules:
            top = types.ModuleType(PACKAGE)
            top.__path__ = []
            sys.modules[PACKAGE] = top
        name = f"{PACKAGE}.{family.runtime[0]}"
        runtime = _import_runtime(name, family, path)
        for src in family.runtime_sources():
            if src.stem != "__init__":
                importlib.import_module(f"{name}.{src.stem}")
        _SHARED[family.name] = runtime
    return _SHARED[family.name]


def load_engine(rs: RuleSet) -> types.ModuleType:
    """Compile in memory and import: a package object with `new_game`, `rules`, `Game`."""
    return engine_from_source(generate(rs).source, "+".join(rs.names))


def engine_from_source(source: str, label: str) -> types.ModuleType:
    """Import a generated rules module (`load_engine(rs).source`) with this toolchain's runtime.

    `simulate` compiles once and sends the source to its worker processes (or a
    Dask cluster), which then need neither the rule files nor the loader.

    The runtime is the kernel `TESSERA_KERNEL` chooses (compiler/native.py; `engine.kernel` says
    which ran): the interpreted one is imported afresh for each engine; the native one once per
    process, and every engine shares it, because an extension module is initialised only once
    in a process (a second import under another name returns the first module, whose imports
    are the first engine's: its IllegalAction would not be the second engine's)."""
    from . import native

    global _counter
    _counter += 1
    name = f"_tessera_engine_{_counter}"
    pkg = types.ModuleType(name)
    pkg.__path__ = []  # a package, so `from . import runtime` works
    sys.modules[name] = pkg
    family = Family.of_source(source)
    path, kernel = native.runtime_path(family, say=_say)
    if kernel == "native":
        runtime = _shared_runtime(family, path)
        for mod in [m for m in sys.modules if m.startswith(runtime.__name__ + ".")]:  # `from .runtime.ops import`
            sys.modules[name + ".runtime" + mod[len(runtime.__name__):]] = sys.modules[mod]
        sys.modules[f"{name}.runtime"] = runtime
    else:
        runtime = _import_runtime(f"{name}.runtime", family, path)
    rules = types.ModuleType(f"{name}.rules")
    rules.__package__ = name
    sys.modules[f"{name}.rules"] = rules
    code = compile(source, f"<tessera rules: {label}>", "exec")
    exec(code, rules.__dict__)
    pkg.runtime = runtime
    pkg.rules = rules
    pkg.Game = runtime.Game
    pkg.IllegalAction = runtime.IllegalAction
    pkg.source = source
    pkg.family = family.name
    pkg.kernel = kernel
    pkg.new_game = lambda players=2, seed=0, names=None, start=None: runtime.Game(rules, players, seed, names, start)
    pkg.play_random = lambda players=2, seed=0, names=None: runtime.play_random(rules, players, seed, names)
    return pkg

"""The native kernel (issue 41): the hot runtime modules compiled with Cython, built once and cached.

Every module in `MODULES` is plain Python (compiler/runtime/*.py, valid without Cython); a `.pxd`
beside a `.py` (Cython's "augmenting" declarations) types it when it is compiled.  The build
compiles only these runtime sources, never anything a rule file says: the generated `rules.py` is
always interpreted, so no rule-file text ever reaches Cython or the C compiler.

The build is cached per user, in `$TESSERA_CACHE` or else `$XDG_CACHE_HOME/tessera`
(`~/.cache/tessera`), under `kernel/KEY/`: KEY hashes the compiled sources and every `.pxd` beside
them, Cython's version, the interpreter's extension suffix (its ABI) and the build's flags, so an
edited runtime, another Cython or another Python gets a new build and never a stale one.  A
build runs in a temporary folder beside the cache and is renamed into place whole (processes
building at once, pytest-xdist's workers say, each succeed; a lock spares the second one the work).

`TESSERA_KERNEL` chooses the kernel an engine made by `compiler/build.py`'s `engine_from_source`
runs on (simulate, verify, replay, tune ...):

    python   the interpreted runtime, always
    auto     (the default) the native kernel when it is already built for this exact runtime, else python
    native   the native kernel; built now if it is not (a clear error if it cannot be)

`tessera kernel` says which one runs and why; `tessera kernel build` builds it ahead of time.

With GCC a build is profile-guided (PGO_GENERATE, `_train`): the modules are compiled instrumented, the
package they make plays the family's training rule sets (`Family.training`: seeded random games of 2-4
players, then greedy ones), and they are compiled again from those counts.  Only the shipped rules are
played, and only to count branches: the C and the answers are those of a plain build, which another
compiler (or a training that fails, or `TESSERA_KERNEL_PGO=0`) gets instead; kernel.json's `pgo` says which.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple

COMPILER = Path(__file__).resolve().parent  # compiler/: the runtimes' folders (runtime/, cardrt/)

# The modules compiled, as FOLDER/MODULE under compiler/ (compiler/runtime/board.py ...).  Every
# other runtime module stays interpreted beside them.
MODULES = (
    "runtime/board", "runtime/listing", "runtime/scoring", "runtime/game", "runtime/figures", "runtime/corners",
    "runtime/events", "runtime/moves", "runtime/bag", "runtime/geometry", "runtime/placement", "runtime/rounds",
    "runtime/lookahead", "runtime/moments", "runtime/classes", "runtime/prisoners", "runtime/outposts",
    "runtime/nearby", "runtime/decisions", "runtime/outpost_moves", "runtime/placekeys", "runtime/core",
)
# binding=True: the runtime's functions are bound as methods on Game (a plain builtin function is not a descriptor)
DIRECTIVES = {"binding": True, "language_level": 3}
CFLAGS: tuple[str, ...] = ()  # extra flags for the C compiler (Python's own flags otherwise)
# Profile-guided optimisation (GCC): the modules are built instrumented, play the plan's training games (the
# family's `training` rule sets, TRAIN_GAMES: random games of 2-4 players, then greedy ones), and are built
# again from what those games counted (branches laid out, hot code kept together, cold code apart).  The same
# C and the same answers; about a twentieth less time a turn (bench/README.md, session 35).  Another compiler,
# or a training that fails, gives the plain build ({dir}: the build's own folder of counts).
PGO_GENERATE = ["-fprofile-generate={dir}", "-fprofile-update=single"]
PGO_USE = ["-fprofile-use={dir}", "-fprofile-correction", "-Wno-missing-profile"]
TRAIN_GAMES = [200, 2]  # random games, then greedy games, of each training rule set (the first rule set only: greedy)
PACKAGE = "_tessera_kernel"  # the package name the modules are compiled under (they import under any name)
CHOICES = ("auto", "python", "native")
FORMAT = "tessera-kernel/1"  # of kernel.json, and part of the key


class KernelError(Exception):
    """The native kernel cannot be had: one line that says why and what to do (tessera exits 2)."""


def choice() -> str:
    """`TESSERA_KERNEL`: auto (the default, also when empty), python or native."""
    value = os.environ.get("TESSERA_KERNEL", "").strip().lower() or "auto"
    if value not in CHOICES:
        raise KernelError(f"TESSERA_KERNEL={os.environ.get('TESSERA_KERNEL')!r} is not a kernel: "
                          f"use {', '.join(CHOICES)}")
    return value


def ext_suffix() -> str:
    """The file ending of this interpreter's extension modules (`.cpython-311-x86_64-linux-gnu.so`)."""
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


@functools.lru_cache(maxsize=None)
def cython_version() -> str | None:
    """The installed Cython's version, read from its metadata (Cython is not imported), or None; read
    once in a process (every engine made asks)."""
    from importlib import metadata

    try:
        return metadata.version("cython")
    except metadata.PackageNotFoundError:
        return None


def _folders() -> list[str]:
    return sorted({m.split("/")[0] for m in MODULES})


class Plan(NamedTuple):
    """One build: the package the modules are compiled under, the files laid out for it (path in the
    package, source) and the modules compiled (FOLDER/MODULE in the package).

    An extension module must be imported under the name it was compiled with: Cython writes that
    name into it (the `__module__` of its classes, which pickling and `replay/turns.py`'s `view_of`
    read) and looks its relative imports up by it first (`from .errors import X` takes
    `sys.modules["that.package.errors"]` when there is one).  So the toolchain's kernel is compiled
    as `_tessera_kernel.runtime...` and imported as that one package (compiler/build.py), and an
    exported engine's as `PACKAGE.runtime...`, one build per package name."""
    package: str
    files: tuple[tuple[str, Path], ...]
    modules: tuple[str, ...]
    training: tuple[tuple[str, ...], ...] = ()  # the shipped rule sets the built modules play to be profiled (PGO)


def toolchain_plan() -> Plan:
    """The toolchain's own kernel: every folder of MODULES, as the package `_tessera_kernel`."""
    files = tuple((f"{folder}/{p.name}", p) for folder in _folders()
                  for p in sorted([*(COMPILER / folder).glob("*.py"), *(COMPILER / folder).glob("*.pxd")]))
    from ..dsl.family import TILES

    return Plan(PACKAGE, files, tuple(MODULES), TILES.training)  # every module of MODULES is the tile game's


def export_plan(family, package: str) -> Plan:
    """An exported engine's kernel: its runtime/ folder as `tessera compile` lays it out (the family's
    runtime sources and the .pxd beside them), compiled as `package.runtime...`."""
    srcs = family.runtime_sources()
    pxd = [p.with_suffix(".pxd") for p in srcs if p.with_suffix(".pxd").is_file()]
    files = tuple((f"runtime/{p.name}", p) for p in [*srcs, *pxd])
    mods = tuple(f"runtime/{m.split('/')[1]}" for m in family_modules(family))
    return Plan(package, files, mods, family.training)


def sources(plan: Plan | None = None) -> list[Path]:
    """What a build's result depends on: each compiled module's .py, and every .pxd laid out beside them."""
    plan = plan or toolchain_plan()
    compiled = {f"{m}.py" for m in plan.modules}
    return [p for rel, p in plan.files if rel in compiled or p.suffix == ".pxd"]


_KEYS: dict[tuple, str] = {}


def key(plan: Plan | None = None) -> str:
    """The cache key of a build: its sources, package and modules, this Cython and this interpreter."""
    plan = plan or toolchain_plan()
    stamps = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in sources(plan))
    cython = cython_version()
    memo = (plan.package, plan.modules, stamps, cython, _pgo_on())
    if memo not in _KEYS:
        h = hashlib.sha256()
        for part in (FORMAT, cython or "no cython", ext_suffix(), sys.implementation.cache_tag or "",
                     json.dumps(DIRECTIVES, sort_keys=True), " ".join(CFLAGS), plan.package, " ".join(plan.modules),
                     json.dumps([PGO_GENERATE, PGO_USE, TRAIN_GAMES, list(plan.training), TRAIN, _pgo_on()])):
            h.update(part.encode() + b"\0")
        files = dict(plan.files)
        for rel in sorted(rel for rel, p in plan.files if p in sources(plan)):
            h.update(rel.encode() + b"\0" + files[rel].read_bytes() + b"\0")
        _KEYS[memo] = h.hexdigest()[:24]
    return _KEYS[memo]


def cache_root() -> Path:
    """The per-user cache: `$TESSERA_CACHE`, else `$XDG_CACHE_HOME/tessera`, else `~/.cache/tessera`."""
    if os.environ.get("TESSERA_CACHE"):
        return Path(os.environ["TESSERA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tessera"


def kernel_dir(plan: Plan | None = None) -> Path:
    """Where a build's result lives once built (`kernel/KEY`)."""
    return cache_root() / "kernel" / key(plan)


def built(plan: Plan | None = None) -> Path | None:
    """The folder of a built kernel, or None when it is not built (its kernel.json is written last)."""
    d = kernel_dir(plan)
    return d if (d / "kernel.json").is_file() else None


def family_modules(family) -> list[str]:
    """The compiled modules an engine of `family` imports: those of its runtime folder, and those it
    borrows from the next folders (`Family.shared`)."""
    first, *lent = family.runtime
    return [m for m in MODULES if m.split("/")[0] == first
            or (m.split("/")[0] in lent and f"{m.split('/')[1]}.py" in family.shared)]


def runtime_path(family, say: Callable[[str], None] | None = None) -> tuple[list[str], str]:
    """The runtime search path for an engine of `family`, and the kernel it gives ("native" or
    "python"): with the native kernel, each runtime folder is preceded by its built modules'
    folder (an extension module shadows the .py beside it: Python's finder tries them first).
    An engine on the native kernel must import its runtime as the package `_tessera_kernel.FOLDER`
    (compiler/build.py)."""
    pure = family.runtime_path()
    if not family_modules(family):  # nothing of this family's runtime is compiled
        return pure, "python"
    how = choice()
    if how == "python":
        return pure, "python"
    d = built() if how == "auto" else ensure_built(say=say)
    if d is None:
        return pure, "python"
    path: list[str] = []
    for folder, src in zip(family.runtime, pure):
        if (d / folder).is_dir():
            path.append(str(d / folder))
        path.append(src)
    return path, "native"


def status() -> dict:
    """What `tessera kernel` prints: the choice, what it gives, the cache, and what a build would need."""
    try:
        how = choice()
        problem = None
    except KernelError as exc:
        how, problem = os.environ.get("TESSERA_KERNEL", ""), str(exc)
    d = built()
    missing = None
    if d is None:
        try:
            check_tools(probe=False)
        except KernelError as exc:
            missing = str(exc)
    runs = ("python" if how == "python" or (how == "auto" and d is None)
            else "native" if d is not None or how == "native" else "?")
    pgo = None  # the built kernel's training rule sets (PGO), False for a plain build, None when not built
    if d is not None:
        try:
            pgo = json.loads((d / "kernel.json").read_text(encoding="utf-8")).get("pgo", False)
        except (OSError, ValueError):
            pgo = False
    return {"choice": how, "problem": problem, "runs": runs, "built": d is not None, "folder": str(kernel_dir()),
            "cython": cython_version(), "python": ext_suffix(), "modules": list(MODULES), "missing": missing,
            "pgo": pgo}


# -- building --------------------------------------------------------------------------------------

PROBE = "#include <Python.h>\nint tessera_probe(void) { return 0; }\n"


def _compiler() -> list[str]:
    import shlex

    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def check_tools(probe: bool = True, where: Path | None = None) -> None:
    """Cython, setuptools and a working C compiler with Python's headers, or KernelError naming the
    first that is missing.  `probe`: compile a two-line C file against Python.h (a fraction of a second)."""
    import importlib.util

    fallback = "or run the interpreted kernel: TESSERA_KERNEL=python"
    if importlib.util.find_spec("Cython") is None:
        raise KernelError(f"the native kernel needs Cython, which is not installed: "
                          f"pip install 'tessera-rules[fast]' ({fallback})")
    if importlib.util.find_spec("setuptools") is None:
        raise KernelError(f"the native kernel needs setuptools, which is not installed: "
                          f"pip install 'tessera-rules[fast]' ({fallback})")
    cc = _compiler()
    if not cc or shutil.which(cc[0]) is None:
        raise KernelError(f"the native kernel needs a C compiler, and `{cc[0] if cc else ''}` is not found "
                          f"(install gcc or clang, or set CC; {fallback})")
    if not probe:
        return
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory(prefix="tessera-probe-", dir=where) as tmp:
        (Path(tmp) / "probe.c").write_text(PROBE, encoding="ascii")
        try:
            res = subprocess.run([*cc, "-I", include, "-c", "probe.c", "-o", "probe.o"], cwd=tmp,
                                 capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KernelError(f"the C compiler `{' '.join(cc)}` cannot be run ({exc}; {fallback})") from None
    if res.returncode != 0:
        said = (res.stderr or res.stdout).strip().splitlines()
        why = f": {said[-1][:200]}" if said else ""
        if "Python.h" in (res.stderr + res.stdout):
            raise KernelError(f"the native kernel needs Python's C headers, and {include}/Python.h is missing "
                              f"(Debian: apt-get install python3-dev; {fallback})")
        raise KernelError(f"the C compiler `{' '.join(cc)}` fails on a two-line C file (exit {res.returncode}{why}; "
                          f"{fallback})")


BUILD = r'''
import json, sys
from setuptools import Extension, setup
from Cython.Build import cythonize
package, modules, directives, cflags, ldflags, jobs = json.loads(sys.argv[1])
exts = [Extension(f"{package}." + m.replace("/", "."), [f"{package}/{m}.py"], extra_compile_args=cflags,
                  extra_link_args=ldflags) for m in modules]
setup(name=package, ext_modules=cythonize(exts, compiler_directives=directives, nthreads=jobs, quiet=True),
      script_args=["build_ext", "--inplace", "--force", "-j", str(jobs)])
'''

# One training run (compiler/native.py's _train): the package laid out in the build's folder as `tessera compile`
# writes it (its __init__.py, rules.py and runtime/ with the instrumented modules) plays seeded games as
# `tessera simulate` plays them (play/simulate.py's play_one: random players, then greedy ones).
TRAIN = r'''
import importlib, json, sys
sys.path.insert(0, ".")
from tessera.play.simulate import play_one
package, games, greedy = json.loads(sys.argv[1])
eng = importlib.import_module(package)
for i in range(games):
    play_one(eng, 2 + i % 3, i + 1, record=False)
for i in range(greedy):
    play_one(eng, 2, i + 1, ["greedy", "greedy"], record=False)
'''


def _pgo_on() -> bool:
    """Whether builds are profile-guided where they can be: `TESSERA_KERNEL_PGO=0` asks for the plain build (a
    quicker one, for a test of the build's other parts); it is part of the key."""
    return os.environ.get("TESSERA_KERNEL_PGO", "").strip() != "0"


@functools.lru_cache(maxsize=None)
def _gcc() -> bool:
    """Whether the C compiler is GCC, whose counts PGO_GENERATE writes and PGO_USE reads."""
    try:
        said = subprocess.run([*_compiler(), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Free Software Foundation" in said and "clang" not in said.lower()


def _train(src: Path, plan: Plan, env: dict) -> bool:
    """The plan's training games (TRAIN) on the instrumented modules built in src, each rule set in a process of
    its own; False when one cannot be played (the plain build is made then)."""
    from ..dsl.loader import RuleSetError, require_rule_set
    from .codegen import generate

    pkg = src / plan.package
    for n, names in enumerate(plan.training):
        try:
            rs = require_rule_set(list(names))
            (pkg / "__init__.py").write_text(rs.family.init.format(modules=", ".join(rs.names), pkg=plan.package,
                                                                   high=rs.player_range()[1]), encoding="utf-8")
            (pkg / "rules.py").write_text(generate(rs).source, encoding="utf-8")
            args = json.dumps([plan.package, TRAIN_GAMES[0], TRAIN_GAMES[1] if n == 0 else 0])
            res = subprocess.run([sys.executable, "-c", TRAIN, args], cwd=src, capture_output=True, text=True,
                                 env=env, timeout=900)
        except (RuleSetError, OSError, subprocess.TimeoutExpired):
            return False
        if res.returncode != 0:
            return False
    return True


def _jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def ensure_built(plan: Plan | None = None, say: Callable[[str], None] | None = None) -> Path:
    """The built kernel's folder, building it first when needed (KernelError when it cannot be).
    `say` is told, in one line, that a build starts (it takes two or three minutes: two compiles and a training)."""
    plan = plan or toolchain_plan()
    d = built(plan)
    if d is not None:
        return d
    check_tools()  # before anything is made: a machine that cannot build is told so, and nothing is left
    root = cache_root() / "kernel"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KernelError(f"cannot make the kernel cache {root}: {exc.strerror or exc} (set TESSERA_CACHE)") from None
    with _lock(root / f".{key(plan)}.lock"):
        d = built(plan)  # another process may have built it while this one waited
        if d is not None:
            return d
        if say is not None:
            say(f"building the native kernel ({len(plan.modules)} runtime modules as {plan.package}, "
                f"Cython {cython_version()}) into {kernel_dir(plan)}; once for this runtime")
        return _build(root, plan)


class _lock:
    """An exclusive lock on a file (fcntl; none where fcntl is missing: the rename keeps builds whole)."""

    def __init__(self, path: Path):
        self.path, self.fd = path, None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # releases the lock


def _build(root: Path, plan: Plan) -> Path:
    final = kernel_dir(plan)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        src = tmp / "src"
        for rel, p in plan.files:  # every module and .pxd of the folders, so cimports between them resolve
            (src / plan.package / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, src / plan.package / rel)
        (src / plan.package / "__init__.py").write_text("", encoding="ascii")
        env = {k: v for k, v in os.environ.items() if v or k not in ("CC", "CFLAGS", "LDSHARED", "LDFLAGS")}
        env["PYTHONDONTWRITEBYTECODE"] = "1"

        def compile_with(flags: list[str], link: list[str]) -> subprocess.CompletedProcess:
            args = json.dumps([plan.package, list(plan.modules), DIRECTIVES, [*CFLAGS, *flags], link, _jobs()])
            return subprocess.run([sys.executable, "-c", BUILD, args], cwd=src, capture_output=True, text=True, env=env)

        counts = str(tmp / "counts")
        pgo = bool(plan.training) and _pgo_on() and _gcc()
        if pgo:  # instrumented, trained, then built from the counts (PGO_GENERATE)
            gen = [f.format(dir=counts) for f in PGO_GENERATE]
            pgo = compile_with(gen, gen).returncode == 0 and _train(src, plan, env)
        res = compile_with([f.format(dir=counts) for f in PGO_USE] if pgo else [], [])
        if pgo and res.returncode != 0:
            pgo = False
            res = compile_with([], [])
        log = root / f"{key(plan)}.log"
        if res.returncode != 0:
            log.write_text(res.stdout + res.stderr, encoding="utf-8")
            tail = (res.stderr or res.stdout).strip().splitlines()[-12:]
            raise KernelError("the native kernel's build failed (the whole output: " + str(log) + "):\n  "
                              + "\n  ".join(tail))
        kernel = tmp / "kernel"
        for m in plan.modules:
            folder, name = m.split("/")
            (kernel / folder).mkdir(parents=True, exist_ok=True)
            for suffix in (ext_suffix(), ".pxd"):  # the extension, and the declarations it was built with
                if (src / plan.package / folder / f"{name}{suffix}").is_file():
                    shutil.copyfile(src / plan.package / folder / f"{name}{suffix}", kernel / folder / f"{name}{suffix}")
        (kernel / "kernel.json").write_text(json.dumps({
            "format": FORMAT, "key": key(plan), "package": plan.package, "cython": cython_version(),
            "ext_suffix": ext_suffix(), "python": sys.version.split()[0], "modules": list(plan.modules),
            "directives": DIRECTIVES, "cflags": list(CFLAGS),
            "pgo": [list(t) for t in plan.training] if pgo else False}, indent=1) + "\n", encoding="utf-8")
        try:
            os.rename(kernel, final)  # atomic: a reader sees no kernel or a whole one
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY) or built(plan) is None:
                raise
        log.unlink(missing_ok=True)
        return final
    except OSError as exc:
        raise KernelError(f"cannot write the native kernel into {root}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def built_files(family, package: str, say: Callable[[str], None] | None = None) -> list[Path]:
    """The files an exported engine `package` of `family` adds to its runtime/ folder: the extension
    module of each compiled module it imports, compiled under its own name, and that module's .pxd
    (so the package holds what rebuilds it for another interpreter); built first when the cache
    has none (one build per package name)."""
    if not family_modules(family):
        return []
    d = ensure_built(export_plan(family, package), say=say)
    return sorted(p for p in (d / "runtime").iterdir())

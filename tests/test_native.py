"""The native kernel (issue 41): the hot runtime modules compiled with Cython (compiler/native.py).

- the same games: `simulate --json --record` byte for byte the same on the interpreted kernel
  (TESSERA_KERNEL=python) and the native one, for base, every module of rules/ on base, all of them
  together and the card game, random and greedy players;
- `tessera compile --native` writes a package whose runtime/ holds the extension modules compiled
  under its own name; it plays the same games as the pure package, and runs without them (an
  interpreter of another version, or the .so removed); recompiling into it is allowed;
- a build that cannot be made says so in one line and exits 2 (no Cython, no C compiler, a compiler
  that fails), in a terminal and piped; TESSERA_KERNEL of another value is refused;
- two processes building at once both succeed (one builds, the other waits and takes its build).

Tests that need Cython skip only when Cython is not installed; every other failure fails.  The
native kernel is built once (the README's test command builds it first: `tessera kernel build`);
the tests that build go to one xdist worker (`xdist_group("native")`).
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.compiler import native

ROOT = Path(__file__).resolve().parent.parent
TESSERA = str(Path(sys.executable).with_name("tessera"))
HAVE_CYTHON = importlib.util.find_spec("Cython") is not None
needs_cython = pytest.mark.skipif(not HAVE_CYTHON, reason="Cython is not installed (pip install 'tessera-rules[fast]')")
GROUP = pytest.mark.xdist_group("native")

# every module of rules/ alone on base, all of them together, and the card game (siege brings riverbed)
MODULE_SETS = ["base", "base,river", "base,abbot", "base,barn", "base,king_robber", "base,tower", "base,siege",
               "base,refcard", "base,river,abbot,barn,king_robber,tower,siege,refcard", "card"]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("TESSERA_KERNEL", "NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def _tessera(args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([TESSERA, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def kernel() -> Path:
    """The toolchain's native kernel, built if the cache has none."""
    return native.ensure_built()


# -- the same games ----------------------------------------------------------------------------------

def _simulate(monkeypatch, capsys, kernel_name: str, rules: str, games: int, agents: str | None, out: Path):
    """`tessera simulate --json --record OUT` in this process, on `kernel_name`: (stdout, {record: bytes})."""
    from tessera.cli import app

    monkeypatch.setenv("TESSERA_KERNEL", kernel_name)
    args = ["simulate", "--rules", rules, "--games", str(games), "--seed", "0", "--jobs", "1", "--json",
            "--record", str(out), "--players", "4" if rules == "card" else "2"]
    if agents:
        args += ["--agents", agents]
    capsys.readouterr()
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:  # pragma: no cover - a failure is shown below
        assert exc.code in (0, None)
    said = capsys.readouterr().out
    return said, {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@needs_cython
@pytest.mark.slow
@GROUP
@pytest.mark.parametrize("agents,games", [(None, 100), ("greedy", 4)], ids=["random", "greedy"])
def test_same_games_on_both_kernels(kernel, monkeypatch, capsys, tmp_path, agents, games):
    """Seeds 0..games-1 of every module set: the JSON summary and every record byte-identical between the
    interpreted and the native kernel (and the native one really ran: its engines' modules are extensions)."""
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    monkeypatch.setenv("TESSERA_KERNEL", "native")
    eng = load_engine(require_rule_set(["base"]))
    assert eng.kernel == "native" and eng.runtime.board.__file__.endswith(native.ext_suffix())
    for rules in MODULE_SETS:
        a = _simulate(monkeypatch, capsys, "python", rules, games, agents, tmp_path / f"{rules}-py")
        b = _simulate(monkeypatch, capsys, "native", rules, games, agents, tmp_path / f"{rules}-native")
        assert json.loads(a[0])["games"] == games, rules
        assert a[0] == b[0], f"{rules}: the summaries differ"
        assert a[1].keys() == b[1].keys() and len(a[1]) >= games, rules
        assert a[1] == b[1], f"{rules}: records differ: {[k for k in a[1] if a[1][k] != b[1].get(k)][:5]}"


@needs_cython
@pytest.mark.slow
@GROUP
def test_engines_share_one_native_runtime(kernel, monkeypatch):
    """Two engines in one process on the native kernel: one runtime (an extension module is initialised
    once), so a refusal the engine raises is the engine's own IllegalAction; on the interpreted kernel
    each engine has its own runtime, as before."""
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    rs = require_rule_set(["base"])
    monkeypatch.setenv("TESSERA_KERNEL", "native")
    e1, e2 = load_engine(rs), load_engine(rs)
    assert e1.runtime is e2.runtime and e2.Game.__module__ == f"{native.PACKAGE}.runtime.game"
    with pytest.raises(e2.IllegalAction):
        e2.new_game(2, 1).apply_action(10 ** 9)
    monkeypatch.setenv("TESSERA_KERNEL", "python")
    p1, p2 = load_engine(rs), load_engine(rs)
    assert p1.kernel == p2.kernel == "python" and p1.runtime is not p2.runtime
    assert p1.runtime.board.__file__.endswith("board.py")
    assert p1.play_random(2, 5).returns() == e1.play_random(2, 5).returns()


@needs_cython
@GROUP
@pytest.mark.parametrize("kernel_name", ["python", "native"])
def test_the_bags_shuffle_is_randoms_own(kernel, monkeypatch, kernel_name):
    """The bag's shuffle (runtime/bag.py `shuffle`, C integers on the native kernel) puts a list in the
    order random.Random.shuffle gives it with the same seed, and leaves the generator in the same state:
    a seed deals the same bag on both kernels and as before; another generator shuffles itself."""
    import random

    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    monkeypatch.setenv("TESSERA_KERNEL", kernel_name)
    shuffle = load_engine(require_rule_set(["base"])).runtime.bag.shuffle
    for seed in range(60):
        for n in (0, 1, 2, 3, 8, 9, 71, 72, 130):
            mine, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            shuffle(mine, a)
            theirs.shuffle(b)
            assert a == b and mine.getstate() == theirs.getstate(), (seed, n)

    class Fixed(random.Random):
        def shuffle(self, x):
            x.reverse()
    a = [1, 2, 3]
    shuffle(Fixed(0), a)
    assert a == [3, 2, 1]


@needs_cython
@GROUP
@pytest.mark.parametrize("rules", ["base", "base,river,abbot,barn,king_robber,tower,siege"])
def test_the_c_helpers_leave_what_python_leaves(kernel, monkeypatch, rules):
    """The C of board.pxd and listing.pxd (a move's named tuple, a turn's blocks without figures, the masks of
    occupied parts, a centre tile's entries): on seeded games, after every move, each move read by its index
    (type and value), the masks of every frontier cell, the union-find's parents (find's path halving
    included) and the entries around centre tiles are the same on both kernels."""
    import random

    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    rs = require_rule_set(rules.split(","))

    def trace(kernel_name: str) -> list:
        monkeypatch.setenv("TESSERA_KERNEL", kernel_name)
        eng = load_engine(rs)
        assert eng.kernel == kernel_name
        seen = []
        for seed in range(5):
            g, rng = eng.new_game(2 + seed % 2, seed), random.Random(seed)
            while not g.is_terminal():
                acts = g.legal_actions()
                if not acts:
                    g.finish()
                    break
                b = g.board
                moves = [acts[i] for i in range(len(acts))]
                assert moves == list(acts) and [type(m) for m in moves] == [type(m) for m in acts]
                seen.append((repr(moves), [b.occupied_parts(k) for k, c in zip(b.fkeys, b.fcodes) if c],
                             list(b.parent),
                             sorted((c, [(k, base) for k, _, base in v]) for c, v in b.around_centres.items())))
                g.apply_action(acts[rng.randrange(len(acts))])
        assert len(seen) > 100 and any(s[3] for s in seen)  # (centre tiles were laid)
        return seen

    assert trace("python") == trace("native")


# -- compile --native --------------------------------------------------------------------------------

def _play(python: str, folder: Path, package: str = "engine") -> tuple[str, str]:
    """A few random games of the package in `folder` under `python`: (what they gave, runtime/board's file)."""
    code = (f"import sys, json; sys.path.insert(0, {str(folder)!r}); import {package} as e, {package}.runtime.board as b\n"
            "print(json.dumps([e.play_random(2, s).returns() for s in range(5)]), b.__file__)")
    p = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    games, _, where = p.stdout.strip().rpartition(" ")
    return games, where


def _other_python() -> str | None:
    """An installed interpreter of another version (its extension modules end otherwise), if any."""
    here = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    names = [f"python3.{n}" for n in range(10, 16)]
    found = [shutil.which(n) for n in names if n != here]
    found += [str(p) for p in Path.home().glob(".pyenv/versions/3.*/bin/python3.*") if p.name in names and p.name != here]
    for exe in filter(None, found):
        p = subprocess.run([exe, "-c", "import sys; print(sys.version_info >= (3, 11))"], capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip() == "True":
            return exe
    return None


@needs_cython
@pytest.mark.slow
@GROUP
def test_compile_native_package(tmp_path):
    """`compile --native` (its kernel built once per package name and cached): the package's runtime/ holds
    the extension modules and their .pxd, the marker lists them; it plays the games of the pure package;
    without the .so, and on an interpreter of another version, it runs its .py."""
    pure = _tessera(["compile", "base", "-o", str(tmp_path / "pure")], tmp_path)
    assert pure.returncode == 0, pure.stderr
    p = _tessera(["compile", "base", "-o", str(tmp_path / "fast"), "--native"], tmp_path)
    assert p.returncode == 0 and f"native kernel: {len(native.MODULES)} runtime modules compiled" in p.stdout, p.stdout + p.stderr
    pkg = tmp_path / "fast" / "engine"
    so = sorted(x.name for x in (pkg / "runtime").glob(f"*{native.ext_suffix()}"))
    assert so == sorted(f"{m.split('/')[1]}{native.ext_suffix()}" for m in native.MODULES)
    listed = (pkg / ".tessera-engine").read_text().splitlines()
    assert all(f"runtime/{n}" in listed for n in so)
    assert sorted((tmp_path / "pure" / "engine").rglob("*")) and not list((tmp_path / "pure" / "engine").rglob("*.so"))
    games, where = _play(sys.executable, tmp_path / "pure")
    fast_games, fast_where = _play(sys.executable, tmp_path / "fast")
    assert where.endswith("board.py") and fast_where.endswith(native.ext_suffix())
    assert fast_games == games
    code = "import sys; sys.path.insert(0, sys.argv[1]); import engine.runtime.game as g; print(g.Game.__module__)"
    p = subprocess.run([sys.executable, "-I", "-c", code, str(tmp_path / "fast")], capture_output=True, text=True)
    assert p.stdout.strip() == "engine.runtime.game", p.stderr  # compiled under its own name
    other = _other_python()
    if other is not None:  # the .so is not this interpreter's: the .py beside it runs
        assert _play(other, tmp_path / "fast") == (games, str(pkg / "runtime" / "board.py"))
    again = _tessera(["compile", "base", "-o", str(tmp_path / "fast")], tmp_path)  # the marker lists the .so files
    assert again.returncode == 0, again.stderr
    assert not list(pkg.rglob("*.so")) and _play(sys.executable, tmp_path / "fast")[0] == games
    p = _tessera(["compile", "base", "-o", str(tmp_path / "fast"), "--native"], tmp_path)  # cached now
    assert p.returncode == 0 and "building" not in p.stderr, p.stderr
    for f in pkg.rglob(f"*{native.ext_suffix()}"):  # removed by hand: the pure modules run
        f.unlink()
    assert _play(sys.executable, tmp_path / "fast") == (games, str(pkg / "runtime" / "board.py"))
    (pkg / "runtime" / "mine.so").write_bytes(b"")  # what tessera did not write is still refused
    p = _tessera(["compile", "base", "-o", str(tmp_path / "fast")], tmp_path)
    assert p.returncode == 2 and "runtime/mine.so" in p.stderr


# -- when the kernel cannot be built -------------------------------------------------------------------

def _no_traceback_one_line(p: subprocess.CompletedProcess, says: str) -> None:
    text = p.stdout + p.stderr
    assert p.returncode == 2, text
    assert "Traceback" not in text and "internal error" not in text, text
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0], text


@pytest.mark.slow
def test_no_cython_is_one_line(tmp_path):
    """Cython not importable (blocked here): `tessera kernel build` and a command run with
    TESSERA_KERNEL=native say so in one line, exit 2; `auto` runs the interpreted kernel."""
    block = ("import sys; sys.modules['Cython'] = None; sys.argv[0] = 'tessera'; "
             "from tessera.main import main; main()")
    env = _env(TESSERA_CACHE=str(tmp_path / "cache"))
    for args, kernel in ((["kernel", "build"], None), (["simulate", "--games", "2"], "native")):
        p = subprocess.run([sys.executable, "-c", block, *args], cwd=tmp_path, capture_output=True, text=True,
                           env={**env, **({"TESSERA_KERNEL": kernel} if kernel else {})}, timeout=300)
        _no_traceback_one_line(p, "the native kernel needs Cython, which is not installed: "
                                  "pip install 'tessera-rules[fast]'")
    p = subprocess.run([sys.executable, "-c", block, "simulate", "--games", "2"], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0 and "python kernel" in p.stdout, p.stdout + p.stderr
    assert not (tmp_path / "cache" / "kernel").exists()  # nothing built, nothing left


@needs_cython
@pytest.mark.slow
def test_no_compiler_is_one_line(tmp_path):
    """No C compiler on PATH, or one that fails (CC=false): one line, exit 2, nothing left in the cache."""
    cache = tmp_path / "cache"
    p = _tessera(["kernel", "build"], tmp_path, TESSERA_CACHE=str(cache), PATH=str(tmp_path / "nothing"))
    _no_traceback_one_line(p, "the native kernel needs a C compiler, and `")
    p = _tessera(["simulate", "--games", "2"], tmp_path, TESSERA_CACHE=str(cache), CC="false", TESSERA_KERNEL="native")
    _no_traceback_one_line(p, "the C compiler `false` fails on a two-line C file")
    p = _tessera(["compile", "base", "-o", "out", "--native"], tmp_path, TESSERA_CACHE=str(cache), CC="false")
    _no_traceback_one_line(p, "tessera compile: --native: the C compiler `false` fails")
    assert not (tmp_path / "out").exists()
    p = _tessera(["simulate", "--games", "2", "--json"], tmp_path, TESSERA_CACHE=str(cache), CC="false",
                 TESSERA_KERNEL="native")
    assert p.returncode == 2 and json.loads(p.stdout)["error"]["kind"] == "kernel", p.stdout + p.stderr
    assert not cache.exists() or [x for x in cache.rglob("*") if not x.name.startswith(".")] == []


@pytest.mark.slow
def test_kernel_choice_refused_and_reported(tmp_path):
    """TESSERA_KERNEL names no kernel: refused in one line (exit 2); `python` is what runs when asked."""
    p = _tessera(["simulate", "--games", "2"], tmp_path, TESSERA_KERNEL="fast")
    _no_traceback_one_line(p, "TESSERA_KERNEL='fast' is not a kernel: use auto, python, native")
    p = _tessera(["kernel"], tmp_path, TESSERA_KERNEL="python")
    assert p.returncode == 0 and p.stdout.startswith("kernel: python (TESSERA_KERNEL=python)"), p.stdout + p.stderr


@needs_cython
@pytest.mark.slow
@GROUP
def test_kernel_commands_in_a_terminal_and_piped(kernel, tmp_path):
    """`tessera kernel`, `tessera kernel build` (built: at once) and `simulate`'s header, in a terminal and
    piped: which kernel runs is said; no traceback, no escape sequence when piped."""
    from test_terminal import assert_sane, in_terminal, piped, visible

    cases = [(["kernel"], "kernel: native (TESSERA_KERNEL=auto: built for this runtime)"),
             (["kernel", "build"], f"native kernel already built: {kernel}"),
             (["simulate", "--games", "5", "--jobs", "1"], "games/s, native kernel)")]
    for args, says in cases:
        code, raw = in_terminal(args, tmp_path)
        assert_sane(code, raw, 0)
        assert says in " ".join(visible(raw).split()), visible(raw)
        p = piped(args, tmp_path)
        text = (p.stdout + p.stderr).decode()
        assert p.returncode == 0 and says in text and b"\x1b" not in p.stdout + p.stderr, text


@needs_cython
@pytest.mark.slow
def test_two_builds_at_once_both_succeed(tmp_path):
    """Two processes build the same (small) kernel into an empty cache at once: both succeed with the same
    folder, which is whole; no temporary folder is left."""
    code = ("import sys; from tessera.compiler import native; native.MODULES = ('runtime/errors',); "
            "print(native.ensure_built())")
    env = _env(TESSERA_CACHE=str(tmp_path / "cache"), TESSERA_KERNEL_PGO="0")  # (the lock is tested, not PGO)
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    folders = {o.strip() for o, _ in outs}
    assert len(folders) == 1
    d = Path(folders.pop())
    assert (d / "kernel.json").is_file() and (d / "runtime" / f"errors{native.ext_suffix()}").is_file()
    assert json.loads((d / "kernel.json").read_text())["modules"] == ["runtime/errors"]
    assert not [x for x in d.parent.iterdir() if x.name.startswith(".build-")]


def test_cache_key_follows_what_the_build_reads(tmp_path, monkeypatch):
    """The kernel's key changes with the sources, a .pxd beside them, the package compiled and Cython's
    version; TESSERA_CACHE moves the cache.  (No build: the key is read from the files.)"""
    monkeypatch.setenv("TESSERA_CACHE", str(tmp_path / "c"))
    monkeypatch.delenv("TESSERA_KERNEL_PGO", raising=False)  # (CI's lowest-versions run sets it)
    folder = tmp_path / "compiler" / "runtime"
    folder.mkdir(parents=True)
    for m in native.MODULES:
        (folder / f"{m.split('/')[1]}.py").write_text(f"# {m}\n")
    monkeypatch.setattr(native, "COMPILER", tmp_path / "compiler")
    k0 = native.key()
    assert native.kernel_dir() == tmp_path / "c" / "kernel" / k0 and native.built() is None
    (folder / "board.pxd").write_text("cdef class Board:\n    pass\n")
    k1 = native.key()
    (folder / "board.py").write_text("# changed\n")
    k2 = native.key()
    monkeypatch.setattr(native, "cython_version", lambda: "9.9.9")
    k3 = native.key()
    plan = native.toolchain_plan()
    k4 = native.key(native.Plan("engine", plan.files, plan.modules))
    monkeypatch.setenv("TESSERA_KERNEL_PGO", "0")  # the plain build is another build
    k5 = native.key()
    assert len({k0, k1, k2, k3, k4, k5}) == 6


# -- profile-guided optimisation ----------------------------------------------------------------------

@needs_cython
def test_the_kernel_is_built_from_the_counts_of_its_training_games(kernel, tmp_path):
    """With GCC (this machine's compiler) the toolchain's kernel is built instrumented, plays the tile family's
    training rule sets (base, then every module; random games, then greedy ones) and is built again from what
    they counted: its kernel.json names them.  Another compiler gives the plain build, said as `"pgo": false`."""
    from tessera.dsl.family import TILES

    info = json.loads((kernel / "kernel.json").read_text(encoding="utf-8"))
    assert TILES.training[0] == ("base",) and len(TILES.training[1]) == 7
    pgo = native._gcc() and native._pgo_on()  # (CI's run with the lowest versions asks for plain builds)
    assert info["pgo"] == ([list(t) for t in TILES.training] if pgo else False)
    p = _tessera(["kernel"], tmp_path)  # and `tessera kernel` says which build it is
    said = ("built profile-guided (GCC): trained on games of base; base+river+abbot+barn+king_robber+tower+siege"
            if pgo else "built plain (no profile-guided optimisation")
    assert p.returncode == 0 and said in p.stdout, p.stdout + p.stderr


def test_pgo_only_with_gcc_and_a_training_that_plays(tmp_path, monkeypatch):
    """PGO's counts are GCC's own: a compiler that says it is clang gets the plain build.  A training that
    cannot be played (a rule set that is not there; a folder without the built package) says so, and the
    build is then the plain one: nothing is written outside the build's folder."""
    monkeypatch.setenv("CC", "sh -c 'echo clang version 16.0.6'")
    assert native._gcc.__wrapped__() is False
    if shutil.which("gcc"):
        monkeypatch.setenv("CC", "gcc")
        assert native._gcc.__wrapped__() is True
    missing = native.Plan("engine", (), ("runtime/errors",), (("no_such_rules",),))
    assert native._train(tmp_path, missing, dict(os.environ)) is False
    unbuilt = native.Plan("engine", (), ("runtime/errors",), (("base",),))
    assert native._train(tmp_path / "src", unbuilt, dict(os.environ)) is False
    assert [p.name for p in tmp_path.iterdir()] == []

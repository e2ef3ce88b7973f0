"""The installed distribution: one import namespace, compatible ranges.

tessera installs as the package `tessera` alone: the repository's dsl/, compiler/, verifier/ and
pictures/ folders become tessera.dsl, tessera.compiler, tessera.verifier and tessera.pictures
(pyproject.toml's package-dir), so nothing named `compiler` or `dsl` lands beside a researcher's
own packages.  The slow test builds a wheel from the sources and installs it into a fresh virtual
environment beside a numpy other than constraints.txt's (still in pyproject's range), then plays
games, compiles an engine and runs it on the standard library alone.  pip's cache is shared with
the README's install, so only the other numpy is fetched on a fresh machine.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "compiler", "verifier", "pictures", "play", "replay")
OTHER_NUMPY = "2.2.6"  # constraints.txt has 2.4.6; pyproject allows numpy>=1.26 (the stack below has 1.26)
DIST = "tessera-rules"  # the distribution's name on the package index (`tessera` there is another project)
# a researcher's stack, older than constraints.txt: installing tessera-rules beside it changes none of it
STACK = {"numpy": "1.26.4", "scipy": "1.13.1", "typer": "0.29.2"}


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _setup_packages() -> list[str]:
    spec = importlib.util.spec_from_file_location("tessera_setup", REPO / "setup.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not run as __main__: setup() is not called
    return mod.packages()


def test_pyproject_maps_the_folders_under_tessera():
    tool = _pyproject()["tool"]["setuptools"]
    for pkg in PACKAGES:
        assert tool["package-dir"][f"tessera.{pkg}"] == pkg
    packages = _setup_packages()
    assert all(p == "tessera" or p.startswith("tessera.") for p in packages), packages
    # every folder of Python code under the mapped folders is a package of the build, and so is each folder of rules
    for pkg in PACKAGES:
        for init in (REPO / pkg).rglob("__init__.py"):
            dotted = "tessera." + ".".join(init.parent.relative_to(REPO).parts)
            assert dotted in packages, dotted
    assert {"tessera", "tessera.adapters", "tessera.lsp", "tessera.compiler.runtime", "tessera.docs"} <= set(packages)
    for folder in [REPO / "rules", *(d for d in (REPO / "rules").rglob("*") if d.is_dir())]:
        dotted = "tessera." + ".".join(folder.relative_to(REPO).parts)
        assert dotted in packages, f"{dotted}: its rule files and records would be left out of a wheel"


def test_no_import_names_the_old_top_level_packages():
    # scripts/namespace_imports.py --check: exit 1 and the files if an old spelling is left anywhere
    res = subprocess.run([sys.executable, str(REPO / "scripts" / "namespace_imports.py"), str(REPO), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 file(s) to rewrite" in res.stderr


def test_the_rewrite_script_rewrites_the_old_spellings_and_only_those(tmp_path):
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "compiler" / "build.py").write_text("", encoding="utf-8")
    (tmp_path / "verifier" / "witness.py").write_text("", encoding="utf-8")
    (tmp_path / "dsl" / "parser.py").write_text("", encoding="utf-8")
    src = tmp_path / "tool.py"
    # the old spellings, each package name behind a "-" that the script leaves alone (so that running the
    # script on this repository does not rewrite this test's input); the "-" goes before the file is written
    src.write_text((
        "from -dsl.parser import parse\n"
        "from -dsl import parser\n"
        "import -compiler.build\n"
        "import -verifier.witness as W, os\n"
        "    import -compiler\n"
        "x = -compiler.build.load_engine(rs)\n"
        "patch('-verifier.witness.Search')\n"
        "importlib.import_module('-verifier')\n"
        "importlib.import_module(f'-verifier.{name}')\n"
        "code = \"import -compiler.build as b\\nfrom -dsl import parser\\n\"\n"
        "path = REPO / '-dsl' / 'grammar.lark'\n"
        "doc = 'see -dsl/parser.py, -verifier.md and self.-compiler.build'\n").replace("-", "")
        + "run([python, '-m', '#verifier'])\nrun([python, '-m', 'tessera', 'replay', '--json'])\n".replace("#", ""),
        encoding="utf-8")
    (tmp_path / "notes.md").write_text("`python -m -dsl.parser`, [verifier](verifier.md), pictures.md\n".replace("-dsl", "dsl"),
                                       encoding="utf-8")
    script = [sys.executable, str(REPO / "scripts" / "namespace_imports.py"), str(tmp_path)]
    assert subprocess.run([*script, "--check"], capture_output=True, timeout=60).returncode == 1
    assert subprocess.run(script, capture_output=True, timeout=60).returncode == 0
    assert src.read_text(encoding="utf-8") == (
        "from tessera.dsl.parser import parse\n"
        "from tessera.dsl import parser\n"
        "import tessera.compiler.build\n"
        "import tessera.verifier.witness as W, os\n"
        "    import tessera.compiler\n"
        "x = tessera.compiler.build.load_engine(rs)\n"
        "patch('tessera.verifier.witness.Search')\n"
        "importlib.import_module('tessera.verifier')\n"
        "importlib.import_module(f'tessera.verifier.{name}')\n"
        "code = \"import tessera.compiler.build as b\\nfrom tessera.dsl import parser\\n\"\n"
        "path = REPO / 'dsl' / 'grammar.lark'\n"
        "doc = 'see dsl/parser.py, verifier.md and self.compiler.build'\n"
        "run([python, '-m', 'tessera.verifier'])\nrun([python, '-m', 'tessera', 'replay', '--json'])\n")
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == (
        "`python -m tessera.dsl.parser`, [verifier](verifier.md), pictures.md\n")
    res = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=60)  # idempotent
    assert res.returncode == 0, res.stdout


def test_the_numpy_range_admits_the_other_numpy():
    deps = _pyproject()["project"]["dependencies"]
    spec = next(d for d in deps if re.match(r"numpy\b", d))
    low = re.search(r">=\s*([\d.]+)", spec).group(1)
    key = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    assert key(low) <= key(OTHER_NUMPY) < (3,), spec
    pinned = re.search(r"^numpy==(\S+)$", (REPO / "constraints.txt").read_text(encoding="utf-8"), re.M).group(1)
    assert pinned != OTHER_NUMPY


def _copy_sources(dest: Path) -> Path:
    src = dest / "src"
    keep = ("pyproject.toml", "setup.py", "README.md", "tessera", "rules", "docs", *PACKAGES)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in keep:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / name)
    return src


def _wheel_is_whole_and_its_engines_stand_alone(bindir: Path, work: Path) -> None:
    """The installed wheel: every module of the sources under tessera/ (no top-level dsl, compiler ...
    of its own), and an engine it compiles runs on a bare interpreter (-I: no site-packages at all)."""
    run = dict(capture_output=True, text=True, timeout=300, cwd=work)  # not the checkout: the wheel alone
    res = subprocess.run([str(bindir / "python"), "-m", "pip", "show", "-f", DIST], **run)
    assert res.returncode == 0, res.stderr
    files = [line.strip() for line in res.stdout.split("Files:", 1)[1].splitlines() if line.strip()]
    tops = {f.split("/")[0] for f in files}
    assert not tops & set(PACKAGES), sorted(tops)
    assert {"tessera/dsl/parser.py", "tessera/dsl/grammar.lark", "tessera/dsl/parser_tables.json",
            "tessera/compiler/runtime/game.py", "tessera/compiler/cardrt/game.py", "tessera/verifier/checks.py",
            "tessera/pictures/viewer.py", "tessera/rules/base.tess", "tessera/docs/language.md"} <= set(files)
    for top in ("tessera", *PACKAGES):  # every module of the sources is in the wheel, under tessera/
        for py in (REPO / top).rglob("*.py"):
            rel = py.relative_to(REPO / top if top == "tessera" else REPO).as_posix()
            assert f"tessera/{rel}" in files, rel
    for pkg in PACKAGES:
        gone = subprocess.run([str(bindir / "python"), "-c", f"import {pkg}"], **run)
        assert "ModuleNotFoundError" in gone.stderr, (pkg, gone.stdout, gone.stderr)
    engine = next(p.parent for p in (work / "out").rglob("rules.py"))
    code = (f"import sys; sys.path.insert(0, {str(engine.parent)!r})\n"
            f"import {engine.name} as e\n"
            "g = e.play_random(2, 3)\n"
            "assert g.is_terminal()\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'tessera', 'numpy', 'lark', 'z3'}))\n")
    res = subprocess.run([str(bindir / "python"), "-I", "-c", code], **run)
    assert res.returncode == 0 and res.stdout.strip() == "[]", res.stdout + res.stderr


def test_the_distribution_is_named_tessera_rules_and_imports_as_tessera():
    project = _pyproject()["project"]
    assert project["name"] == DIST
    assert project["scripts"] == {"tessera": "tessera.main:main"}
    # the extras name the distribution itself
    assert {"tessera-rules[rl]", "tessera-rules[cluster]"} <= {d.split(" ")[0] for d in project["optional-dependencies"]["test"]}
    assert project["readme"] == "README.md" and project["license"]


def test_no_cap_without_a_named_break():
    """An upper bound in the dependencies is there only with the break it avoids named beside it."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    deps = _pyproject()["project"]["dependencies"]
    for d in deps:
        if "<" in d:
            line = next(ln for ln in text.splitlines() if f'"{d}"' in ln)
            assert "#" in line, f"{d}: a cap with no reason given"
    for name, version in STACK.items():
        spec = next(d for d in deps if re.match(rf"{name}\b", d))
        low = re.search(r">=\s*([\d.]+)", spec).group(1)
        key = lambda v: tuple(int(x) for x in v.split(".") if x.isdigit())  # noqa: E731
        assert key(low) <= key(version), spec
        assert "<" not in spec, spec


@pytest.mark.slow
def test_installed_beside_a_researchers_stack_changes_none_of_it(tmp_path):
    """numpy 1.26, scipy 1.13 and typer 0.29 already installed: `pip install tessera-rules` (a wheel built
    from the sources) keeps them, ships its documents, licence and readme, and runs the README's main
    job (fewer games) from a folder that is not the checkout."""
    src = _copy_sources(tmp_path)
    # the native kernel's Cython declarations ship beside the runtime (pyproject's package data, issue 41)
    (src / "compiler" / "runtime" / "zz_shipped.pxd").write_text("# a declaration file\n", encoding="utf-8")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    py = str(venv / "bin" / "python")
    pip = [py, "-m", "pip"]
    # the researcher's stack, set up before the test proper: not byte-compiled (--no-compile), which
    # halves this step's CPU and changes nothing pip resolves next
    res = subprocess.run([*pip, "install", "-q", "--no-compile", *(f"{k}=={v}" for k, v in STACK.items())],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    dist = tmp_path / "dist"
    res = subprocess.run([*pip, "wheel", "-q", "--no-deps", "-w", str(dist), str(src)], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    wheel = next(dist.glob("tessera_rules-*.whl"))
    res = subprocess.run([*pip, "install", "-q", str(wheel)], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    res = subprocess.run([*pip, "list", "--format=json"], capture_output=True, text=True, timeout=120)
    have = {d["name"].lower(): d["version"] for d in __import__("json").loads(res.stdout)}
    assert {k: have[k] for k in STACK} == STACK, have
    assert have[DIST] == _pyproject()["project"]["version"]

    import zipfile

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode("utf-8")
    assert "Name: tessera-rules" in meta and "License" in meta and "Description-Content-Type: text/markdown" in meta
    assert "tessera/py.typed" in names
    assert "tessera/compiler/runtime/zz_shipped.pxd" in names
    for pxd in (REPO / "compiler").rglob("*.pxd"):
        assert f"tessera/{pxd.relative_to(REPO).as_posix()}" in names, pxd
    for doc in ("simulate.md", "verifier.md", "engine.md", "language.md", "records.md"):
        assert f"tessera/docs/{doc}" in names, doc

    work = tmp_path / "elsewhere"
    work.mkdir()
    tessera = str(venv / "bin" / "tessera")
    run = dict(capture_output=True, text=True, timeout=600, cwd=work)
    for args in (["check", "base", "river"], ["verify", "base", "base+river", "--games", "4"],
                 ["compile", "base", "-o", "out"], ["simulate", "--games", "20", "--plot", "out/simulate.svg"],
                 ["draw", "base", "river", "abbot", "king_robber", "-o", "out/tiles.svg"],
                 ["simulate", "--games", "1", "--rules", "base,abbot", "--record", "out/sample"],
                 ["view", "out/sample/game-000000.json", "-o", "out/game.html"], ["compile", "card", "-o", "out/cards"],
                 ["simulate", "--rules", "card", "--games", "20", "--players", "4", "--agents", "greedy,random,random,random"]):
        res = subprocess.run([tessera, *args], **run)
        assert res.returncode == 0, (args, res.stdout[-3000:], res.stderr[-3000:])
        assert "Traceback" not in res.stderr
        if args[0] == "verify":  # records named by their bundled rule set, not by a checkout's path
            assert "base:records/" in res.stdout and "rules/records/" not in res.stdout, res.stdout
            assert "CLAUSES.md" not in res.stdout
    res = subprocess.run([py, str(REPO / "docs" / "examples" / "greedy_vs_random.py")], **run)
    assert res.returncode == 0, res.stdout + res.stderr
    # with another numpy than constraints.txt's (1.26 here): the wheel is whole, its engines stand alone
    _wheel_is_whole_and_its_engines_stand_alone(venv / "bin", work)


def test_the_rewrite_script_writes_imports_inside_the_packages_relative_to_the_tree(tmp_path):
    """Issue 36: inside the namespace's packages an import of another of its modules is relative
    (`from ..dsl.ast import Span` in compiler/), so the tree shows how the packages connect; one
    left naming no module (a module moved) is listed and the script exits 1."""
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"tessera" = "tessera"\n'
                                             + "".join(f'"tessera.{p}" = "{p}"\n' for p in PACKAGES), encoding="utf-8")
    for pkg in ("tessera", *PACKAGES):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "dsl" / "ast.py").write_text("", encoding="utf-8")
    (tmp_path / "verifier" / "cards.py").write_text("", encoding="utf-8")
    lower = tmp_path / "compiler" / "lower.py"
    lower.write_text("from tessera.dsl.ast import Span\nfrom tessera.dsl import ast as A\n\n\ndef f():\n"
                     "    import tessera.verifier.cards as vc\n    import tessera.dsl.ast\n", encoding="utf-8")
    cli = tmp_path / "tessera" / "cli.py"
    cli.write_text("from tessera.dsl.ast import (\n    Span)\n", encoding="utf-8")
    script = [sys.executable, str(REPO / "scripts" / "namespace_imports.py"), str(tmp_path)]
    assert subprocess.run([*script, "--check"], capture_output=True, timeout=60).returncode == 1
    assert subprocess.run(script, capture_output=True, timeout=60).returncode == 0
    assert lower.read_text(encoding="utf-8") == ("from ..dsl.ast import Span\nfrom ..dsl import ast as A\n\n\ndef f():\n"
                                                 "    from ..verifier import cards as vc\n    import tessera.dsl.ast\n")
    assert cli.read_text(encoding="utf-8") == "from .dsl.ast import (\n    Span)\n"
    assert subprocess.run([*script, "--check"], capture_output=True, timeout=60).returncode == 0  # idempotent
    (tmp_path / "play" / "sim.py").write_text("from .turns import Recorder\n", encoding="utf-8")
    res = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "play/sim.py:1: from .turns names no module of the tree" in res.stderr

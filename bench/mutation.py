"""A mutation campaign over the bundled rule files (issue 22); a benchmark, not a unit test.

    python bench/mutation.py --sample 80 --seed 0 --no-engine --jobs 2
    python bench/mutation.py --module barn --sample 20 --no-engine
    python bench/mutation.py --list --module tower          # the mutants, nothing run
    python bench/mutation.py --only 'barn:21:40:compare'    # one mutant (id prefix), run

Makes single-point mutants of rules/*.tess, each one change a designer could mistype:

  number      an integer in a rule (not in an `example` block, a comment, a string or a
              clause list) becomes n+1, n-1 or 0
  compare     a comparison is negated (== and !=, < and >=, > and <=)
  andor       `and` becomes `or`, or `or` becomes `and`
  delete      one `allow`, `forbid`, `score` or `on` statement is deleted (its whole text:
              continuation lines, a `{ ... }` block), or an `override` of one
  tilecount   a tile's (or a tile variant's) count `xN` becomes N+1 or N-1
  edges       two different letters of a tile's `edges` line are swapped

The worked examples (`example` blocks) are never mutated: they are what should catch
the mutants.  Sampling is deterministic: all mutants of a module are listed in file
order and `--sample N` takes N of them spread evenly over the modules (the remainder to
the first), each module drawn with random.Random(f"{seed}:{module}").

Each mutant runs in its own copy of the toolchain and the rules folder (the bundled
modules are found next to the code, tessera.dsl.model.BUNDLED_RULES), so nothing in the checkout
changes: `tessera check rules/` first (a mutant it refuses is *rejected*: the designer is
told at once, it is not a verifier question), then `tessera verify` on the default rule
sets that load the mutated module (the others cannot change; `tessera verify` with no
argument would run them too) -- *caught* if verify exits 1, *survived* if it exits 0,
*error* for exit 2 or a bound reached.  Every command runs under `nice`, with a CPU-time
and memory limit (setrlimit) and a wall-clock timeout.  `--no-engine` passes --no-engine
to verify (z3 and topology checks, the worked examples and records, no random games);
without it the engine check plays `--games` games in all (500 by default, as verify).

Survivors that no game can tell apart from the original are listed, with the reason, in
bench/mutation_equivalent.json; they are reported as *equivalent* and left out of the score.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CODE = ("dsl", "compiler", "verifier", "tessera", "pictures")
EQUIVALENT = Path(__file__).resolve().parent / "mutation_equivalent.json"
# tessera verify's default rule sets (tessera/cli.py VERIFY_DEFAULT, read from there at run time)
KINDS = ("number", "compare", "andor", "delete", "tilecount", "edges")
STATEMENTS = ("allow", "forbid", "score", "on")
NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


@dataclass(frozen=True)
class Mutant:
    module: str  # the rule file's stem
    path: str  # relative to the repository, e.g. rules/barn.tess
    line: int  # 1-based
    col: int  # 1-based
    kind: str
    old: str
    new: str
    text: str  # the whole mutated file

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.kind}:{_short(self.old)}->{_short(self.new)}"

    def describe(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.kind}: {_short(self.old)!s} -> {_short(self.new)!s}"


def _short(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= 48 else s[:45] + "..."


# ------------------------------------------------------------------ the mutator
def code_mask(text: str) -> list[bool]:
    """True for each character that is rule code a mutant may touch: False in comments,
    strings, clause lists `[...]` and `example NAME [..] { ... }` blocks."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    in_str = False
    depth_br = 0
    while i < n:
        c = text[i]
        if in_str:
            mask[i] = False
            if c == "\\" and i + 1 < n:
                mask[i + 1] = False
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == "#":
            while i < n and text[i] != "\n":
                mask[i] = False
                i += 1
            continue
        elif c == '"':
            in_str = True
            mask[i] = False
        elif c == "[":
            depth_br += 1
            mask[i] = False
        elif c == "]":
            depth_br = max(0, depth_br - 1)
            mask[i] = False
        elif depth_br:
            mask[i] = False
        i += 1
    for m in re.finditer(r"(?m)^[ \t]*example\b", text):
        end = _block_end(text, mask, m.start())
        for k in range(m.start(), end):
            mask[k] = False
    return mask


def _block_end(text: str, mask: list[bool], start: int) -> int:
    """The end (exclusive, after its newline) of the `{ ... }` block opened after `start`."""
    depth = 0
    opened = False
    for k in range(start, len(text)):
        if not mask[k]:
            continue
        if text[k] == "{":
            depth += 1
            opened = True
        elif text[k] == "}":
            depth -= 1
            if opened and depth == 0:
                nl = text.find("\n", k)
                return len(text) if nl < 0 else nl + 1
    return len(text)


def _lines(text: str) -> list[int]:
    """Offsets of each line's start."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _pos(starts: list[int], off: int) -> tuple[int, int]:
    import bisect

    ln = bisect.bisect_right(starts, off) - 1
    return ln + 1, off - starts[ln] + 1


def _code(text: str, mask: list[bool], a: int, b: int) -> bool:
    return all(mask[a:b])


def mutants_of(text: str, path: str) -> list[Mutant]:
    """Every single-point mutant of one rule file, in file order and a fixed kind order."""
    module = Path(path).stem
    mask = code_mask(text)
    starts = _lines(text)
    out: list[Mutant] = []

    def add(kind: str, a: int, b: int, new: str) -> None:
        old = text[a:b]
        if old == new:
            return
        line, col = _pos(starts, a)
        out.append(Mutant(module, path, line, col, kind, old, new, text[:a] + new + text[b:]))

    header = re.compile(r"^[ \t]*(tile|variant)\b")
    for ln, s in enumerate(starts):
        e = starts[ln + 1] if ln + 1 < len(starts) else len(text)
        line = text[s:e]
        if header.match(line):  # tile counts: `tile A x2 [..] {`, `variant garden x1 { .. }`
            for m in re.finditer(r"\bx(\d+)\b", line):
                a, b = s + m.start(1), s + m.end(1)
                if _code(text, mask, a, b):
                    n = int(m.group(1))
                    for v in dict.fromkeys([n + 1, n - 1]):
                        if v >= 0:
                            add("tilecount", a, b, str(v))
        m = re.match(r"^([ \t]*edges[ \t]+)([A-Za-z]+(?:[ \t]+[A-Za-z]+)*)", line)
        if m and _code(text, mask, s, s + m.end()):
            letters = [(s + m.start(2) + t.start(), t.group()) for t in re.finditer(r"[A-Za-z]+", m.group(2))]
            seen = set()
            for i in range(len(letters)):
                for j in range(i + 1, len(letters)):
                    if letters[i][1] == letters[j][1]:
                        continue
                    words = [w for _, w in letters]
                    words[i], words[j] = words[j], words[i]
                    new = " ".join(words)
                    if new in seen:
                        continue
                    seen.add(new)
                    a = letters[0][0]
                    b = letters[-1][0] + len(letters[-1][1])
                    add("edges", a, b, new)
    for m in re.finditer(r"(?<![\w.])\d+(?![\w])", text):
        a, b = m.span()
        if not _code(text, mask, a, b):
            continue
        ls = text.rfind("\n", 0, a) + 1
        if header.match(text[ls:a + 1]) and re.search(r"x$", text[ls:a]):
            continue  # a tile count: tilecount's
        n = int(m.group())
        for v in dict.fromkeys([n + 1, n - 1, 0]):
            if v >= 0:
                add("number", a, b, str(v))
    for m in re.finditer(r"==|!=|<=|>=|(?<!-)>|<", text):
        a, b = m.span()
        if _code(text, mask, a, b):
            add("compare", a, b, NEGATE[m.group()])
    for m in re.finditer(r"\b(and|or)\b", text):
        a, b = m.span()
        if _code(text, mask, a, b):
            add("andor", a, b, "or" if m.group() == "and" else "and")
    for a, b in statements(text, mask):
        add("delete", a, b, "")
    order = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda mu: (mu.line, mu.col, order[mu.kind], mu.new))
    return out


def statements(text: str, mask: list[bool]) -> list[tuple[int, int]]:
    """The spans of `allow`, `forbid`, `score`, `on` statements (and overrides of them): from
    the start of their first line to the end of their last (continuation lines indented
    deeper, or the `{ ... }` block the line opens).  An indented `on` that continues a
    `figure` (`    on city, road`) is part of that statement, not one of its own."""
    starts = _lines(text)
    spans = []
    depth = 0  # brace depth at the start of each line
    for ln, s in enumerate(starts):
        e = starts[ln + 1] if ln + 1 < len(starts) else len(text)
        line = text[s:e]
        d0 = depth
        for k in range(s, e):
            if mask[k] and text[k] == "{":
                depth += 1
            elif mask[k] and text[k] == "}":
                depth -= 1
        m = re.match(r"^([ \t]*)(override[ \t]+)?(\w+)\b", line)
        if not m or m.group(3) not in STATEMENTS or not mask[s + m.start(3)]:
            continue
        indent = len(m.group(1).expandtabs(2))
        if indent != 2 * d0:  # a continuation line of another statement
            continue
        if depth > d0:  # opens a block: to its closing brace
            end = _block_end(text, mask, s)
        else:
            end = e
            k = ln + 1
            while k < len(starts):
                ks = starts[k]
                ke = starts[k + 1] if k + 1 < len(starts) else len(text)
                nxt = text[ks:ke]
                if not nxt.strip() or len(nxt) - len(nxt.lstrip(" \t")) <= indent or nxt.lstrip().startswith("#"):
                    break
                end = ke
                k += 1
        spans.append((s, end))
    return spans


def all_mutants(modules: list[str] | None = None, rules: Path | None = None) -> dict[str, list[Mutant]]:
    rules = rules or REPO / "rules"
    out = {}
    for p in sorted(rules.glob("*.tess")):
        if modules and p.stem not in modules:
            continue
        out[p.stem] = mutants_of(p.read_text(encoding="utf-8"), f"rules/{p.name}")
    return out


def sample(by_module: dict[str, list[Mutant]], n: int | None, seed: int) -> list[Mutant]:
    mods = [m for m in by_module if by_module[m]]
    if n is None:
        return [mu for m in mods for mu in by_module[m]]
    out = []
    for i, m in enumerate(mods):
        k = n // len(mods) + (1 if i < n % len(mods) else 0)
        pool = by_module[m]
        picked = random.Random(f"{seed}:{m}").sample(range(len(pool)), min(k, len(pool)))
        out.extend(pool[j] for j in sorted(picked))
    return out


# ------------------------------------------------------------------ running them
def default_sets() -> list[str]:
    sys.path.insert(0, str(REPO))
    from tessera.cli import VERIFY_DEFAULT

    return list(VERIFY_DEFAULT)


def closure(module: str, rules: Path) -> set[str]:
    """The module and every module it requires (`requires NAME` lines)."""
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        p = rules / f"{m}.tess"
        if p.is_file():
            todo.extend(re.findall(r"(?m)^requires[ \t]+(\w+)", p.read_text(encoding="utf-8")))
    return seen


def sets_for(module: str, rules: Path) -> list[str]:
    """The default rule sets that load `module` (a module no default set loads: base+module)."""
    sets = [s for s in default_sets() if any(module in closure(m, rules) for m in s.split("+"))]
    return sets or [f"base+{module}"]


def _limits(cpu: int, mem_mb: int):
    def pre():
        os.nice(10)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))

    return pre


def make_tree(where: Path, repo: Path = REPO) -> Path:
    """A copy of the toolchain and the rules folder (compiled bytecode kept: same mtimes)."""
    tree = where / "tree"
    ign = shutil.ignore_patterns("*.egg-info", ".venv")
    # installed as one namespace (pyproject's package-dir: dsl/ is tessera.dsl, ...): the copy is laid out
    # as installed, tessera/dsl/..., with tessera/rules leading to the rules folder the mutants change
    # (bundled modules are read from dsl/../rules); a tree from before the namespace keeps its layout
    nested = '"tessera.dsl"' in (repo / "pyproject.toml").read_text(encoding="utf-8")
    for d in CODE:
        shutil.copytree(repo / d, tree / "tessera" / d if nested and d != "tessera" else tree / d, ignore=ign,
                        dirs_exist_ok=True)
    shutil.copytree(repo / "rules", tree / "rules", ignore=ign)
    if nested:
        (tree / "tessera" / "rules").symlink_to(Path("..") / "rules", target_is_directory=True)
    return tree


RUNNING: set[subprocess.Popen] = set()  # the commands under way, ended with the campaign (SIGTERM)
STOPPING: list[bool] = []  # set on SIGTERM: no command starts any more


def run(cmd: list[str], tree: Path, args) -> tuple[int | str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1", COLUMNS="200")
    if STOPPING:
        return "stopped", ""
    p = subprocess.Popen([sys.executable, "-m", "tessera", *cmd], cwd=tree, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=_limits(args.cpu_limit, args.memory_mb))
    RUNNING.add(p)
    try:
        out, err = p.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "timeout", ""
    finally:
        RUNNING.discard(p)
    if p.returncode < 0:  # killed by a signal: the CPU limit (SIGXCPU/SIGKILL) or memory
        return f"signal {-p.returncode}", out[-2000:] + err[-2000:]
    return p.returncode, out + err


def verify_cmd(sets: list[str], args) -> list[str]:
    cmd = ["verify", *sets]
    if args.no_engine:
        cmd.append("--no-engine")
    else:
        cmd += ["--games", str(args.games)]
    return cmd


def judge(mu: Mutant, pristine: Path, args) -> dict:
    work = Path(tempfile.mkdtemp(prefix="tessera-mutant-"))
    try:
        tree = work / "tree"
        shutil.copytree(pristine, tree, symlinks=True)
        (tree / mu.path).write_text(mu.text, encoding="utf-8")
        t0 = time.monotonic()
        rc, out = run(["check", "rules/"], tree, args)
        if rc == 1:
            return {"outcome": "rejected", "seconds": time.monotonic() - t0, "why": _failed_lines(out)}
        if rc != 0:
            return {"outcome": "error", "seconds": time.monotonic() - t0, "why": f"check: {rc}: {out[-600:]}"}
        if args.check_only:
            return {"outcome": "accepted", "seconds": time.monotonic() - t0, "why": ""}
        rc, out = run(verify_cmd(sets_for(mu.module, tree / "rules"), args), tree, args)
        secs = time.monotonic() - t0
        if rc == 1:
            return {"outcome": "caught", "seconds": secs, "why": _failed_lines(out)}
        if rc == 0:
            return {"outcome": "survived", "seconds": secs, "why": ""}
        return {"outcome": "error", "seconds": secs, "why": f"verify: {rc}: {out[-600:]}"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _failed_lines(out: str) -> str:
    bad = [ln.strip() for ln in out.splitlines() if "✗" in ln or ": error:" in ln]
    return "; ".join(bad[:4])[:400]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", type=int, default=None, help="mutants in all, spread evenly over the modules (default: every one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--module", action="append", help="only this module (repeatable); default: those tessera verify's default sets load")
    ap.add_argument("--kind", action="append", choices=KINDS, help="only this kind of mutation (repeatable)")
    ap.add_argument("--only", action="append", help="only the mutants whose id starts with this (repeatable)")
    ap.add_argument("--list", action="store_true", help="print the sampled mutants and stop")
    ap.add_argument("--check-only", action="store_true", help="run `tessera check` alone: which mutants it accepts")
    ap.add_argument("--no-engine", action="store_true", help="tessera verify --no-engine (no random games)")
    ap.add_argument("--games", type=int, default=500, help="engine-check games in all, per verify run (default 500)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (each under nice)")
    ap.add_argument("--timeout", type=float, default=900, help="wall-clock seconds per command (default 900)")
    ap.add_argument("--cpu-limit", type=int, default=600, help="CPU seconds per command (default 600)")
    ap.add_argument("--memory-mb", type=int, default=4096, help="address space per command (default 4096 MB)")
    ap.add_argument("--json", type=Path, help="also write every result to this file")
    ap.add_argument("--report", type=Path, help="print the report of a --json file again, with today's list of "
                                                "equivalent mutants; nothing run")
    ap.add_argument("--repo", type=Path, default=REPO, help="the checkout whose toolchain and rules are mutated and "
                                                          "run (default: this one; another checkout, e.g. a `git "
                                                          "worktree` of main, measures it with the same mutants)")
    args = ap.parse_args(argv)
    import signal

    def stop(*_):  # kill PID: its commands end too, and the temporary copies are removed
        STOPPING.append(True)
        for p in list(RUNNING):
            p.kill()
        sys.exit(143)

    signal.signal(signal.SIGTERM, stop)

    if args.report:
        return rereport(args)
    rules = args.repo / "rules"
    modules = args.module or sorted({m for s in default_sets() for part in s.split("+") for m in closure(part, rules)})
    by_module = all_mutants(modules, rules)
    if args.kind:
        by_module = {m: [mu for mu in ms if mu.kind in args.kind] for m, ms in by_module.items()}
    if args.only:
        by_module = {m: [mu for mu in ms if any(mu.id.startswith(o) for o in args.only)] for m, ms in by_module.items()}
    todo = sample(by_module, args.sample, args.seed)
    if args.list:
        for mu in todo:
            print(f"{mu.id}\t{mu.describe()}")
        print(f"{len(todo)} mutants (of {sum(len(v) for v in by_module.values())})")
        return 0
    equivalent = json.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.is_file() else {}
    mode = "--no-engine" if args.no_engine else f"--games {args.games}"
    print(f"{len(todo)} mutants of {', '.join(m for m in by_module if by_module[m])}; "
          f"tessera verify {mode}; jobs {args.jobs}", flush=True)
    base = Path(tempfile.mkdtemp(prefix="tessera-mutation-"))
    results: list[tuple[Mutant, dict]] = []
    try:
        pristine = make_tree(base, args.repo)
        done = 0

        def one(mu: Mutant) -> tuple[Mutant, dict]:
            return mu, judge(mu, pristine, args)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for mu, r in pool.map(one, todo):
                if r["outcome"] == "survived" and mu.id in equivalent:
                    r["outcome"] = "equivalent"
                    r["why"] = equivalent[mu.id]
                results.append((mu, r))
                done += 1
                print(f"[{done}/{len(todo)}] {r['outcome']:<10} {r['seconds']:6.1f}s  {mu.describe()}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return report(results, args, mode)


def rereport(args) -> int:
    equivalent = json.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.is_file() else {}
    results = []
    for row in json.loads(args.report.read_text(encoding="utf-8")):
        mu = Mutant(row["module"], row["path"], row["line"], row["col"], row["kind"], row["old"], row["new"], "")
        r = {k: row[k] for k in ("outcome", "seconds", "why")}
        if r["outcome"] == "survived" and mu.id in equivalent:
            r["outcome"], r["why"] = "equivalent", equivalent[mu.id]
        results.append((mu, r))
    args.json = None
    return report(results, args, f"(from {args.report})")


def report(results: list[tuple[Mutant, dict]], args, mode: str) -> int:
    print(f"\nper module (tessera verify {mode}; score = caught / (caught + survived), "
          f"rejected by check and equivalent left out)")
    print(f"{'module':<12} {'mutants':>7} {'rejected':>8} {'caught':>6} {'survived':>8} {'equiv':>5} {'error':>5}  score")
    mods = list(dict.fromkeys(mu.module for mu, _ in results))
    tot = {k: 0 for k in ("n", "rejected", "caught", "survived", "equivalent", "error")}
    for m in mods + ["ALL"]:
        rs = [r for mu, r in results if m == "ALL" or mu.module == m]
        c = {k: sum(1 for r in rs if r["outcome"] == k) for k in ("rejected", "caught", "survived", "equivalent", "error", "accepted")}
        judged = c["caught"] + c["survived"]
        score = f"{c['caught']}/{judged} = {100 * c['caught'] / judged:.0f}%" if judged else "-"
        print(f"{m:<12} {len(rs):>7} {c['rejected']:>8} {c['caught']:>6} {c['survived']:>8} {c['equivalent']:>5} {c['error']:>5}  {score}")
    surv = [(mu, r) for mu, r in results if r["outcome"] in ("survived", "equivalent", "error", "accepted")]
    if surv:
        print("\nsurvivors (and errors; with --check-only, the mutants check accepts):")
        for mu, r in surv:
            extra = f"  ({r['why']})" if r["why"] else ""
            print(f"  {r['outcome']:<10} {mu.describe()}  [{mu.id}]{extra[:300]}")
    if args.json:
        args.json.write_text(json.dumps([{**{k: v for k, v in asdict(mu).items() if k != "text"}, "id": mu.id, **r}
                                         for mu, r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

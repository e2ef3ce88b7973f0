"""Rule files and records from strangers, round 3 (issue 28): each item's reproduction.

Every command that could run away runs in a subprocess whose address space and CPU time
are capped inside the test (`resource.setrlimit` before the command starts), so a
regression ends in that subprocess as MemoryError or SIGXCPU, never takes the machine
down, and fails the test by its exit code and message.  Nothing here reads a clock.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ADV = REPO / "tests" / "adversarial"
MiB = 1 << 20


def capped(*args: str, cwd: Path = ADV, mem: int = 1024 * MiB, cpu: int = 120, stdin: str | None = None,
           extra_env: dict | None = None) -> subprocess.CompletedProcess:
    """`tessera ARGS` with at most `mem` bytes of address space and `cpu` seconds of CPU."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200", **(extra_env or {})}
    res = subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, capture_output=True, text=True,
                         preexec_fn=limit, env=env, input=stdin)
    assert res.returncode >= 0, f"killed by signal {-res.returncode} (a resource cap): {res.stderr[-2000:]}"
    assert "Traceback" not in res.stdout + res.stderr, res.stderr[-3000:]
    assert "MemoryError" not in res.stdout + res.stderr, res.stderr[-3000:]
    return res


# ------------------------------------------------------------------ item 1: bounded values

BOUND_WORDS = "BoundExceeded: state `s` would be 4294967296, beyond the bound of 1,000,000"


@pytest.mark.slow
def test_a_squaring_state_stops_simulate_at_its_rule_line() -> None:
    """`state s = 2` with `on place of road { set s = s * s }`: the game stops at line 5 with the
    bound, instead of squaring until memory runs out (MemoryError at 3 GB before)."""
    res = capped("simulate", "--rules", "rules/square.tess", "--games", "1", "--seed", "1")
    assert res.returncode == 1, res.stdout + res.stderr
    out = res.stdout + res.stderr
    assert "square.tess:5: error: this rule failed in game 0" in out
    assert BOUND_WORDS in out


@pytest.mark.slow
def test_a_base_record_naming_the_squaring_rules_stops_replay_at_its_rule_line() -> None:
    """A stranger's ordinary base-game record whose rules are square.tess (beside the record)."""
    res = capped("replay", "records/square_game.json")
    assert res.returncode == 1, res.stdout + res.stderr
    out = res.stdout + res.stderr
    assert "records/square.tess:5: error: this rule failed while turn" in out
    assert BOUND_WORDS in out
    res = capped("replay", "--json", "records/square_game.json")
    assert res.returncode == 1
    answer = json.loads(res.stdout)
    assert "square.tess:5" in json.dumps(answer) and "BoundExceeded" in json.dumps(answer)


@pytest.mark.slow
def test_a_squaring_state_fails_the_engine_check_at_its_rule_line() -> None:
    res = capped("verify", "--only", "engine", "--engine", "--games", "2", "rules/square.tess", mem=2048 * MiB)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "square.tess:5: error: this rule failed in game seed" in res.stdout + res.stderr
    assert BOUND_WORDS in res.stdout + res.stderr


@pytest.mark.slow
def test_points_beyond_the_bound_stop_the_game(tmp_path: Path) -> None:
    """A number a rule may write (1,000,000) times a quantity: one scoring beyond the bound."""
    (tmp_path / "rich.tess").write_text("module rich\nextends base\n"
                                        "override score road complete = 1000000 * tiles [BASE-ROAD-2]\n")
    res = capped("simulate", "--rules", "rich.tess", "--games", "1", "--seed", "1", cwd=tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "rich.tess:3: error: this rule failed in game 0" in res.stdout + res.stderr
    assert "BoundExceeded: points would be 2000000" in res.stdout + res.stderr


@pytest.mark.slow
def test_a_state_at_the_bound_is_kept(tmp_path: Path) -> None:
    """The bound is inclusive: a state may hold 1,000,000 and -1,000,000 (BASE-SCORE-3: scores
    themselves, the sums, have no upper limit)."""
    (tmp_path / "edge.tess").write_text("module edge\nextends base\nstate hi = 1000000\nstate lo = -1000000\n"
                                        "on place of road {\n  set hi = hi\n  set lo = -hi\n}\n")
    res = capped("simulate", "--rules", "edge.tess", "--games", "1", "--seed", "1", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.slow
def test_check_sees_growth_and_huge_expressions() -> None:
    res = capped("check", "rules/square.tess", "rules/doubling.tess", "rules/balanced_product.tess")
    out = res.stdout
    assert res.returncode == 1  # the balanced product is an error; growth only warns
    assert "square.tess:5:3: warning: `set s` can be a product of states" in out
    assert "doubling.tess:7:3: warning: `set s` can be more than one times a state" in out
    assert "doubling.tess:8" not in out and "doubling.tess:9" not in out  # a counter, a max: no growth
    assert "balanced_product.tess:3:32: error: this expression's value could have about 6,144 digits; " \
           "the limit is 1,000" in out
    res = capped("check", "rules/square.tess")
    assert res.returncode == 0 and "[growth]" in res.stdout  # a warning alone: exit 0


# ------------------------------------------------------------------ item 4: record limits first

def _base_turns() -> list:
    return json.loads((ADV / "records" / "square_game.json").read_text())["turns"]


@pytest.mark.slow
def test_a_record_of_300000_turns_is_refused_before_the_schema(tmp_path: Path) -> None:
    """14 MB, 300,000 turns: refused for its length (the schema took 53 s of CPU to say so)."""
    turns = _base_turns()
    doc = {"format": "tessera-game/1", "rules": ["base"], "players": ["a", "b"],
           "turns": (turns * (300_000 // len(turns) + 1))[:300_000]}
    (tmp_path / "long.json").write_text(json.dumps(doc, separators=(",", ":")))
    assert (tmp_path / "long.json").stat().st_size > 12 * MiB
    res = capped("replay", "long.json", cwd=tmp_path, mem=768 * MiB, cpu=15)
    assert res.returncode == 2
    assert "long.json: turns: the list has 300,000 items (at most 10000)" in res.stderr


@pytest.mark.slow
def test_a_record_of_millions_of_objects_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """15 MB of `{}`: five million objects took 4 GB (and a SystemError) before; now counted first."""
    (tmp_path / "objects.json").write_text('{"players": ["a"], "turns": [' + ",".join(["{}"] * 5_000_000) + "]}")
    res = capped("replay", "--json", "objects.json", cwd=tmp_path, mem=512 * MiB, cpu=15)
    assert res.returncode == 2
    assert "holds more than 880,064 lists and objects, the most a record of at most 10,000 turns holds" in res.stdout


@pytest.mark.slow
def test_brackets_and_escapes_inside_strings_do_not_count(tmp_path: Path) -> None:
    """A player named with brackets, quotes and backslashes: its record replays as any other."""
    doc = json.loads((ADV / "records" / "square_game.json").read_text())
    doc["rules"], doc["players"] = ["base"], ['[[{"\\', "b]]}}"]
    (tmp_path / "names.json").write_text(json.dumps(doc))
    res = capped("replay", "names.json", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr


# ------------------------------------------------------------------ item 5: a record's rule files

def _record_naming(folder: Path, rule: str) -> Path:
    doc = json.loads((ADV / "records" / "square_game.json").read_text())
    doc["rules"] = [rule]
    (folder / "game.json").write_text(json.dumps(doc))
    return folder / "game.json"


@pytest.mark.slow
@pytest.mark.parametrize("command", [["replay"], ["view", "-o", "out.html"], ["draw", "-o", "out.svg"]])
def test_a_symlinked_tess_leading_out_of_the_record_is_not_read(tmp_path: Path, command: list) -> None:
    """`rules.tess -> /etc/passwd` shipped with a record: replay, view and draw printed its first line."""
    (tmp_path / "rules.tess").symlink_to("/etc/passwd")
    _record_naming(tmp_path, "rules.tess")
    res = capped(command[0], "game.json", *command[1:], cwd=tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "root:" not in res.stdout + res.stderr
    assert "rules[0]: rules.tess is outside the record's folder" in res.stdout + res.stderr  # resolved, not read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "rules.tess"]  # no page, no picture


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["/etc/passwd.tess", "../house.tess", "sub/../../house.tess", "link/house.tess"])
def test_a_record_naming_a_rule_file_outside_its_folder_is_refused(tmp_path: Path, rule: str) -> None:
    (tmp_path / "house.tess").write_text("module house\nextends base\n")
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "link").symlink_to(tmp_path)  # a folder link leading out
    _record_naming(tmp_path / "rec", rule)
    for command in (["replay"], ["view", "-o", "out.html"], ["draw", "-o", "out.svg"]):
        res = capped(command[0], "game.json", *command[1:], cwd=tmp_path / "rec")
        assert res.returncode == 2, res.stdout + res.stderr
        assert "is outside the record's folder" in res.stdout + res.stderr


def test_a_module_the_record_extends_through_a_symlink_out_is_not_read(tmp_path: Path) -> None:
    """`extends house` finds house.tess in the record's folder: a symlink out of it is refused too."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "house.tess").write_text("module house\nextends base\n")
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "house.tess").symlink_to(tmp_path / "outside" / "house.tess")
    (tmp_path / "rec" / "mine.tess").write_text("module mine\nextends house\n")
    _record_naming(tmp_path / "rec", "mine.tess")
    res = capped("replay", "game.json", cwd=tmp_path / "rec")
    assert res.returncode == 1 and "leads outside it" in res.stdout  # a rule set that does not load: its diagnostics
    assert "house.tess:0:0: error: a record's rule files lie in the record's folder or below" in res.stdout


@pytest.mark.slow
def test_rule_files_in_the_records_folder_or_below_replay(tmp_path: Path) -> None:
    """Below the folder, a symlink that stays inside it, and an absolute path or `..` that stay
    inside it are the record's own."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "house.tess").write_text("module house\nextends base\n")
    (tmp_path / "link.tess").symlink_to("rules/house.tess")
    for rule in ("rules/house.tess", "link.tess", str(tmp_path / "rules" / "house.tess"), "rules/../link.tess"):
        _record_naming(tmp_path, rule)
        res = capped("replay", "game.json", cwd=tmp_path)
        assert res.returncode == 0, res.stdout + res.stderr


# ------------------------------------------------------------------ item 6: simulate --games 1000000000

def _popen_capped(code: str, cwd: Path, mem: int) -> subprocess.Popen:
    def limit() -> None:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background job ignores SIGINT
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (300, 300))

    return subprocess.Popen([sys.executable, "-c", code], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.slow
def test_a_billion_games_start_at_once_in_flat_memory_and_ctrl_c_summarises(tmp_path: Path) -> None:
    """Under a 768 MiB cap (the run took 3 GB and 45 s before its first game): the first record
    appears, Ctrl-C stops the run, the finished games are summarised and the exit is 130."""
    import signal

    proc = _popen_capped("import sys; sys.argv = ['tessera', 'simulate', '--games', '1000000000', '--jobs', '1', "
                         "'--record', 'g', '--json']; from tessera.main import main; main()", tmp_path, 768 * MiB)
    try:
        import time

        while proc.poll() is None and not (tmp_path / "g" / "game-000025.json").exists():  # the first chunk of 25 is in
            time.sleep(0.05)  # waits for a file, asserts nothing about time
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate()
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-3000:]
    assert "MemoryError" not in err and "Traceback" not in err
    assert "interrupted; the summary is of the" in err and "of 1000000000 games finished" in err
    assert json.loads(out)["games"] >= 25


def test_ctrl_c_while_simulate_is_starting_exits_130_with_a_message(tmp_path: Path) -> None:
    """Before any game, while the engine compiles: exit 130 and say so (it was silent).  The
    process sends itself the Ctrl-C from inside the compile step, so the phase is certain."""
    proc = _popen_capped(
        "import os, signal, sys\n"
        "import tessera.compiler.build as build\n"
        "real = build.load_engine\n"
        "def load(*args, **kw):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(*args, **kw)\n"
        "build.load_engine = load\n"
        "from tessera.main import main\n"
        "sys.argv = ['tessera', 'simulate', '--games', '1000000000', '--jobs', '1']\n"
        "main()\n", tmp_path, 768 * MiB)
    out, err = proc.communicate()
    assert proc.returncode == 130, err[-3000:]
    assert err.strip().endswith("interrupted") and "Traceback" not in err


# ------------------------------------------------------------------ item 7: whom a Dask run trusts

@pytest.mark.slow
def test_a_scheduler_on_another_machine_is_refused_without_the_flag(tmp_path: Path) -> None:
    """It would receive the generated engine and send back pickles this process loads."""
    for address in ("tcp://10.1.2.3:8786", "scheduler.example.org:8786", "tls://[2001:db8::1]:8786",
                    "tcp://127.0.0.1.example.org:8786"):
        res = capped("simulate", "--games", "1", "--backend", "dask", "--scheduler", address, cwd=tmp_path)
        assert res.returncode == 2, res.stdout + res.stderr
        assert "is not on this machine" in res.stderr and "--trust-scheduler" in res.stderr


def test_which_scheduler_addresses_are_this_machine() -> None:
    from tessera.engine_cmds import loopback_address

    for address in ("tcp://127.0.0.1:8786", "127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786",
                    "inproc://10.0.0.1/1234/1", "tls://127.3.4.5:1"):
        assert loopback_address(address), address
    for address in ("tcp://10.1.2.3:8786", "example.org:8786", "tcp://[2001:db8::1]:8786", "tcp://:8786",
                    "tcp://localhost.evil.org:8786", "tcp://0.0.0.0:8786", "tcp://[::1"):
        assert not loopback_address(address), address


# ------------------------------------------------------------------ item 3: the language server

class _RawLsp:
    """`tessera lsp` under a memory and CPU cap, spoken to in raw JSON-RPC (a negative position
    cannot even be built with lsprotocol's types)."""

    def __init__(self, mem: int = 768 * MiB) -> None:
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_CPU, (120, 120))

        self.proc = subprocess.Popen([sys.executable, "-m", "tessera", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=limit, cwd="/",
                                     env={**os.environ, "PYTHONPATH": str(REPO)})
        self.buf = b""
        self.seen: list[dict] = []

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _more(self) -> None:
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        assert chunk, f"the server ended (exit {self.proc.wait()}): a resource cap?"
        self.buf += chunk

    def read(self) -> dict:
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        n = int(next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1])
        while len(self.buf) < n:
            self._more()
        body, self.buf = self.buf[:n], self.buf[n:]
        self.seen.append(json.loads(body))
        return self.seen[-1]

    def until(self, pred) -> dict:
        while True:
            m = self.read()
            if pred(m):
                return m

    def request(self, rid: int, method: str, params) -> dict:
        self.send({"id": rid, "method": method, "params": params})
        return self.until(lambda m: m.get("id") == rid and "method" not in m)

    def open(self, uri: str, text: str) -> dict:
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "tessera", "version": 1, "text": text}}})
        return self.until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)

    def close(self) -> None:
        try:
            self.request(999, "shutdown", None)
            self.send({"method": "exit"})
            self.proc.wait()
        finally:
            self.proc.kill()


def _hover(uri: str, line: int, character: int) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


@pytest.mark.slow
def test_the_language_server_reads_only_what_it_is_given(tmp_path: Path) -> None:
    """Hover on a never-opened /dev/zero read without end (MemoryError under a 1.5 GB cap)."""
    lsp = _RawLsp()
    try:
        lsp.request(1, "initialize", {"processId": None, "capabilities": {}, "rootUri": None})
        lsp.send({"method": "initialized", "params": {}})
        mine = (tmp_path / "mine.tess").as_uri()
        assert lsp.open(mine, "module mine\nextends base\n")["params"]["diagnostics"] == []
        for uri in ("file:///dev/zero", "file:///etc/passwd", (tmp_path / "never_opened.tess").as_uri()):
            (tmp_path / "never_opened.tess").write_text("module never_opened\nextends base\n")
            assert lsp.request(2, "textDocument/hover", _hover(uri, 0, 0))["result"] is None
            assert lsp.request(3, "textDocument/definition", _hover(uri, 0, 0))["result"] is None
            assert lsp.request(4, "textDocument/formatting", {"textDocument": {"uri": uri},
                                                              "options": {"tabSize": 2, "insertSpaces": True}})["result"] is None
        # the rule set's own files: base.tess, which mine.tess extends, is answered for
        base = (REPO / "rules" / "base.tess").as_uri()
        line = next(i for i, t in enumerate((REPO / "rules" / "base.tess").read_text().splitlines()) if t.startswith("module"))
        hover = lsp.request(5, "textDocument/hover", _hover(base, line, 8))["result"]
        assert "module `base`" in hover["contents"]["value"]
        assert "module `base`" in lsp.request(6, "textDocument/hover", _hover(mine, 1, 9))["result"]["contents"]["value"]
    finally:
        lsp.close()


@pytest.mark.slow
def test_the_language_server_answers_every_request_and_bounds_document_size(tmp_path: Path) -> None:
    """A negative position got no reply at all; a 20 MB document was analysed (check refuses > 1 MiB)."""
    lsp = _RawLsp()
    try:
        lsp.request(1, "initialize", {"processId": None, "capabilities": {}, "rootUri": None})
        lsp.send({"method": "initialized", "params": {}})
        mine = (tmp_path / "mine.tess").as_uri()
        lsp.open(mine, "module mine\nextends base\n")
        lsp.send({"id": 2, "method": "textDocument/hover", "params": _hover(mine, -1, -5)})
        lsp.request(3, "textDocument/hover", _hover(mine, 1, 9))  # answered in order: 2 must be answered by now
        reply = next(m for m in lsp.seen if m.get("id") == 2)
        assert reply["error"]["code"] == -32602  # invalid params
        big = (tmp_path / "big.tess").as_uri()
        diags = lsp.open(big, "module big\nextends base\n" + "# a comment line\n" * 1_250_000)["params"]["diagnostics"]
        assert [d["code"] for d in diags] == ["io"]
        assert "larger than 1 MiB, the limit of a rule file" in diags[0]["message"]
        assert lsp.request(4, "textDocument/hover", _hover(big, 0, 8))["result"] is None
        assert lsp.request(5, "textDocument/completion", _hover(big, 0, 0))["result"] is not None
    finally:
        lsp.close()


@pytest.mark.slow
def test_simulate_records_keep_their_rule_files_beside_them(tmp_path: Path) -> None:
    """Item 5's other side: `simulate --record` copies the rule files it read (a house rule and
    the module it extends) into the folder, names a bundled file by its module, and the
    records replay from anywhere, under the record-folder confinement."""
    (tmp_path / "house_base.tess").write_text("module house_base\nextends base\n")
    (tmp_path / "house.tess").write_text("module house\nextends house_base\n"
                                         "override score city complete = tiles [BASE-CITY-2]\n")
    variant = str(REPO / "rules" / "variants" / "big_cities.tess")
    res = capped("simulate", "--games", "2", "--rules", f"house.tess,{variant}", "--record", "out/recs", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    recs = tmp_path / "out" / "recs"
    assert sorted(p.name for p in recs.iterdir()) == [".tessera-records", "game-000000.json", "game-000001.json", "house.tess",
                                                     "house_base.tess"]
    assert json.loads((recs / "game-000001.json").read_text())["rules"] == ["house.tess", "big_cities"]
    res = capped("replay", str(recs / "game-000001.json"), cwd=REPO)
    assert res.returncode == 0 and "winners" in res.stdout, res.stdout + res.stderr

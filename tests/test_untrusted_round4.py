"""Rule files, records and machines shared with strangers, round 4 (issue 38): each item's
reproduction, as a hostile stranger or another local user would try it.

Commands run as a person runs them (the CLI in-process through typer's runner, or
`python -m tessera` where a real process matters).  CI runs as root: the tests that need a
folder of another user make one with `chown` when they can, and otherwise ask the code about
another user id; both hold either way.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tessera.engine_cmds  # noqa: F401  (registers compile, replay, simulate)
import tessera.picture_cmds  # noqa: F401  (registers draw, view)
from tessera.cli import app

REPO = Path(__file__).resolve().parent.parent
VARIANTS = REPO / "rules" / "variants"
runner = CliRunner()


def run(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(cwd or REPO)
    try:
        res = runner.invoke(app, list(args))
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    text = res.stdout + res.stderr
    assert "Traceback" not in text and "internal error" not in text, text
    return res.exit_code, text


def process(*args: str, cwd: Path = REPO, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200", **(env or {})}, timeout=timeout)
    assert "Traceback" not in res.stdout + res.stderr, res.stderr[-3000:]
    return res


def tree(folder: Path) -> dict:
    """Every file under `folder` with its bytes and mode: what must not change."""
    return {str(p.relative_to(folder)): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------ item 2: witnesses in a private place

def _private(path: Path) -> None:
    st = os.lstat(path)
    assert stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode)
    assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)


def test_the_witness_folder_is_per_user_private_and_reused(tmp_path: Path) -> None:
    from tessera.verifier.witness_dir import witness_folder

    a = witness_folder(tmp_path)
    assert a.reason is None and a.path == tmp_path / f"tessera-witnesses-{os.geteuid()}"
    _private(a.path)
    assert witness_folder(tmp_path).path == a.path  # the same folder next time


@pytest.mark.parametrize("dangling", [False, True])
def test_a_planted_symlink_is_never_followed(tmp_path: Path, dangling: bool) -> None:
    from tessera.verifier.witness_dir import witness_folder

    chosen = tmp_path / "chosen-by-the-other-user"
    if not dangling:
        chosen.mkdir(mode=0o777)
    (tmp_path / f"tessera-witnesses-{os.geteuid()}").symlink_to(chosen)
    got = witness_folder(tmp_path)
    assert "symbolic link" in got.reason
    _private(got.path)
    assert got.path.parent == tmp_path and got.path.resolve() != chosen.resolve()
    assert not dangling or not chosen.exists()  # a dangling link is not made real
    assert dangling or list(chosen.iterdir()) == []


def test_a_world_writable_folder_of_ones_own_is_not_used(tmp_path: Path) -> None:
    from tessera.verifier.witness_dir import witness_folder

    loose = tmp_path / f"tessera-witnesses-{os.geteuid()}"
    loose.mkdir()
    loose.chmod(0o777)
    got = witness_folder(tmp_path)
    assert "may be entered by other users (mode 0777)" in got.reason
    _private(got.path)
    assert got.path != loose


def test_a_folder_of_another_user_is_not_used(tmp_path: Path) -> None:
    from tessera.verifier.witness_dir import witness_folder

    me = os.geteuid()
    if me == 0:  # as root (CI): a real folder of another user, 0700 as a careful user would make it
        theirs = tmp_path / "tessera-witnesses-0"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        got = witness_folder(tmp_path)
        assert "belongs to another user (uid 65534)" in got.reason
    else:  # not root: our own folder, asked about as another user would be
        other = me + 1
        (tmp_path / f"tessera-witnesses-{other}").mkdir(mode=0o700)
        got = witness_folder(tmp_path, uid=other)
        assert f"belongs to another user (uid {me})" in got.reason
        me = other
    assert got.path.name.startswith("tessera-witnesses-run-") and got.path.parent == tmp_path
    assert os.lstat(got.path).st_uid == os.geteuid() and stat.S_IMODE(os.lstat(got.path).st_mode) == 0o700


@pytest.mark.slow
def test_verify_never_writes_a_witness_through_a_planted_symlink(tmp_path: Path) -> None:
    """The other user plants links at the old shared name and at this user's: the refutation's
    record lands in a private folder of this user's, and nothing in the folder they chose."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    for name in ("tessera-witnesses", f"tessera-witnesses-{os.geteuid()}"):
        (tmp / name).symlink_to(chosen)
    res = process("verify", str(VARIANTS / "tower_free_ransom.tess"), "--no-engine", "--only", "invariants",
                  "--witness-games", "20", env={"TMPDIR": str(tmp)})
    assert res.returncode == 1, res.stdout + res.stderr
    assert "is refuted for" in res.stdout
    assert list(chosen.iterdir()) == []
    [line] = [ln for ln in res.stdout.splitlines() if "replay it: tessera replay" in ln]
    rec = Path(line.split("tessera replay", 1)[1].split()[0])
    assert rec.is_file() and rec.parent.parent == tmp and rec.parent.name.startswith("tessera-witnesses-run-")
    _private(rec.parent)


# --------------------------------------------- item 3: output folders never replace the user's files

def test_simulate_record_refuses_a_folder_of_the_users(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "game-000000.json").write_text("my own notes\n")
    (mine / "house.tess").write_text("module house\nextends base\n# my version\n")
    (mine / "house.tess").chmod(0o664)
    (tmp_path / "house.tess").write_text("module house\nextends base\n")
    before = tree(mine)
    got, text = run("simulate", "--games", "1", "--rules", "house.tess", "--record", "mine", cwd=tmp_path)
    assert got == 2 and "mine is not empty" in text and "tessera did not make it" in text, text
    assert tree(mine) == before


def test_simulate_record_names_a_file_given_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    got, text = run("simulate", "--games", "1", "--record", "notes.txt", cwd=tmp_path)
    assert got == 2 and "notes.txt is a file, not a folder" in text, text
    got, text = run("simulate", "--games", "1", "--record", "notes.txt/sub", cwd=tmp_path)
    assert got == 2 and "a file stands where a folder is needed" in text, text
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_simulate_record_writes_again_into_its_own_folder(tmp_path: Path) -> None:
    for _ in range(2):  # the README's command, run twice: the second run replaces its own records
        got, text = run("simulate", "--games", "1", "--record", "out/sample", cwd=tmp_path)
        assert got == 0, text
    assert sorted(p.name for p in (tmp_path / "out" / "sample").iterdir()) == [".tessera-records", "game-000000.json"]
    empty = tmp_path / "empty"
    empty.mkdir()  # an empty folder may be given too
    got, text = run("simulate", "--games", "1", "--record", "empty", cwd=tmp_path)
    assert got == 0 and (empty / "game-000000.json").is_file(), text


def test_the_simulate_api_refuses_a_folder_of_the_users(tmp_path: Path) -> None:
    from tessera.compiler.build import load_engine
    from tessera.compiler.outdir import RecordFolderError
    from tessera.play.simulate import simulate
    from tessera.dsl.loader import require_rule_set

    (tmp_path / "thesis.txt").write_text("precious")
    with pytest.raises(RecordFolderError, match="not empty"):
        simulate(load_engine(require_rule_set(["base"])), 1, 2, 0, ["base"], record_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.txt"]


def test_verify_record_a_file_or_a_users_folder_is_a_clear_refusal_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "witness.json").write_text("mine\n")
    got, text = run("verify", str(VARIANTS / "tower_free_ransom.tess"), "--no-engine", "--only", "invariants",
                    "--record", str(tmp_path / "witness.json"))
    assert got == 2 and "witness.json is a file, not a folder" in text and "engine" not in text, text
    got, text = run("verify", str(VARIANTS / "tower_free_ransom.tess"), "--no-engine", "--only", "invariants",
                    "--record", str(tmp_path))
    assert got == 2 and "is not empty (witness.json)" in text, text
    assert [p.name for p in tmp_path.iterdir()] == ["witness.json"]


def test_compile_keeps_a_users_files_inside_the_package(tmp_path: Path) -> None:
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 0, text
    eng = tmp_path / "engine"
    marker = (eng / ".tessera-engine").read_text()
    assert "runtime/ops.py" in marker.splitlines() and "rules.py" in marker.splitlines()
    # Python's own caches of the listed modules are the package's: a compile replaces them
    for cache in (eng / "__pycache__", eng / "runtime" / "__pycache__"):
        cache.mkdir()
    (eng / "__pycache__" / "rules.cpython-312.pyc").write_bytes(b"cache")
    (eng / "runtime" / "__pycache__" / "ops.cpython-312.opt-1.pyc").write_bytes(b"cache")
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 0, text
    (eng / "runtime" / "my_agent.py").write_text("# mine\n")
    (eng / "__pycache__").mkdir()
    (eng / "__pycache__" / "notes.txt").write_text("mine\n")
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 2 and "holds files tessera did not write (__pycache__/notes.txt, runtime/my_agent.py)" in text, text
    assert (eng / "runtime" / "my_agent.py").read_text() == "# mine\n"
    assert (eng / "__pycache__" / "notes.txt").read_text() == "mine\n"
    (eng / "__pycache__" / "notes.txt").unlink()
    (eng / "runtime" / "my_agent.py").unlink()
    (eng / "runtime" / "mine").mkdir()  # a folder of the user's, even empty, is theirs
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 2 and "runtime/mine/" in text, text


def test_a_package_from_before_the_manifest_is_still_replaced_but_keeps_a_users_file(tmp_path: Path) -> None:
    got, _ = run("compile", "card", "-o", str(tmp_path))
    eng = tmp_path / "engine"
    (eng / ".tessera-engine").write_text("This folder was written by `tessera compile`; "
                                        "the next compile into it replaces it whole.\n")
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 0, text
    (eng / ".tessera-engine").write_text("This folder was written by `tessera compile`; "
                                        "the next compile into it replaces it whole.\n")
    (eng / "runtime" / "my_agent.py").write_text("# mine\n")
    got, text = run("compile", "base", "-o", str(tmp_path))
    assert got == 2 and "runtime/my_agent.py" in text, text
    assert (eng / "runtime" / "my_agent.py").read_text() == "# mine\n"


# ------------------------------------------------- item 1: no script runs from any record in any page

# player names that close an attribute (double or single quote), a tag, or the page's JSON script, each
# setting top.PWN when it runs (at most 64 characters, the records' limit)
HOSTILE = ['"/><script>top.PWN=1</script><g a="',
           "'><img src=x onerror=top.PWN=2><b a='",
           '" onload="top.PWN=3" x="',
           "</script><script>top.PWN=4</script>&amp;<!--"]


def _hostile(tmp_path: Path, rules: str, players: int) -> Path:
    """A record of a real game (simulate), its players renamed to HOSTILE."""
    got, text = run("simulate", "--games", "1", "--players", str(players), "--rules", rules, "--record", "games",
                    cwd=tmp_path)
    assert got == 0, text
    path = tmp_path / "games" / "game-000000.json"
    doc = json.loads(path.read_text())
    names = dict(zip(doc["players"], HOSTILE))
    doc["players"] = [names[p] for p in doc["players"]]

    def rename(v, key=None):  # a turn names players (`player`, a tile game's captures and ransoms)
        if isinstance(v, dict):
            return {k: rename(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [rename(x, key) for x in v]
        # a card game's players are named like its rows (red, blue): there only `player` names one
        return names.get(v, v) if isinstance(v, str) and (key == "player" or rules != "card") else v

    doc["turns"] = rename(doc["turns"])
    path.write_text(json.dumps(doc))
    return path


def _no_script_ran(page, path: Path, own_scripts: int, steps: bool) -> None:
    page.goto(path.as_uri())
    if steps:  # every step shown, as a person steps through it
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        page.keyboard.press("Home")
    found = page.evaluate("""() => ({
        pwn: window.PWN === undefined ? null : window.PWN,
        scripts: document.querySelectorAll('script').length,
        handlers: Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes)
                    .filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name)),
        imgs: document.querySelectorAll('img').length,
        players: Array.from(document.querySelectorAll('[data-player]')).map(e => e.getAttribute('data-player')),
    })""")
    assert found["pwn"] is None, f"{path.name}: a record's name ran as script ({found['pwn']})"
    assert found["scripts"] == own_scripts and found["handlers"] == [] and found["imgs"] == 0, found
    assert set(found["players"]) & set(HOSTILE), "the names are shown, whole, as attribute values"
    assert set(found["players"]) <= set(HOSTILE) | {""} | {f"feudal:{h}" for h in HOSTILE}, found["players"]


@pytest.mark.slow
@pytest.mark.parametrize("rules, players", [("card", 4), ("base,tower", 4)])
def test_no_script_runs_from_hostile_names_in_any_page_or_picture(tmp_path: Path, rules: str, players: int) -> None:
    from browser import chromium_page

    rec = _hostile(tmp_path, rules, players)
    turns = len(json.loads(rec.read_text())["turns"])
    outputs = []
    for args, name in [(["view", str(rec)], "game.html"), (["draw", str(rec), "--turn", "3"], "t3.svg"),
                       (["draw", str(rec), "--turn", str(turns)], "end.svg"), (["draw", str(rec)], "last.svg")]:
        got, text = run(*args, "-o", str(tmp_path / name), cwd=tmp_path)
        assert got == 0, text
        outputs.append(tmp_path / name)
    if rules == "card":
        got, text = run("view", str(rec), "--seat", HOSTILE[1], "-o", str(tmp_path / "seat.html"), cwd=tmp_path)
        assert got == 0, text
        outputs.append(tmp_path / "seat.html")
    with chromium_page() as page:
        for out in outputs:
            html_page = out.suffix == ".html"
            # the page's own scripts: its data and code (the card viewer's step pictures add two)
            own = (4 if rules == "card" else 2) if html_page else 0
            _no_script_ran(page, out, own, html_page)
        assert page.errors == []


def test_every_attribute_drawsvg_writes_is_escaped_whatever_the_call_site() -> None:
    """Escaping by construction: an attribute given raw (no call site's escaping) comes out
    escaped, once; numbers and the drawing's own values as they were."""
    import drawsvg as dw

    import tessera.pictures  # noqa: F401  (installs the escaping)
    from tessera.pictures.tile import attr

    d = dw.Drawing(10, 10)
    d.append(dw.Rectangle(0, 0, 5, 5, fill="#fff", data_player=HOSTILE[2], class_=attr(HOSTILE[0])))
    d.append(dw.Text(HOSTILE[3], 9, 1, 1, data_who="a&b"))
    svg = d.as_svg()
    assert 'data-player="&quot; onload=&quot;top.PWN=3&quot; x=&quot;"' in svg
    assert 'class="&quot;/&gt;&lt;script&gt;' in svg and 'data-who="a&amp;b"' in svg
    assert "<script" not in svg and 'width="5"' in svg and 'fill="#fff"' in svg


# ------------------------------------------------------------- item 6: every family mix-up said clearly

@pytest.fixture(scope="module")
def tile_record(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("tiles")
    got, text = run("simulate", "--games", "1", "--record", "games", cwd=where)
    assert got == 0, text
    return where / "games" / "game-000000.json"


@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"], ["view", "-o", "x.html"],
                                     ["draw", "--turn", "2", "-o", "x.svg"]])
def test_a_tile_record_naming_the_card_rules_is_a_clear_message(tmp_path: Path, tile_record: Path, command) -> None:
    doc = json.loads(tile_record.read_text())
    doc["rules"] = ["card"]
    (tmp_path / "mixed.json").write_text(json.dumps(doc))
    got, text = run(command[0], "mixed.json", *command[1:], cwd=tmp_path)
    assert got == 2, text
    assert "a tessera-game/1 record (a tile game) names the rules of the card game (card)" in text, text
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "x.svg").exists()


def test_the_card_game_has_no_tile_sheet_and_is_not_compared_with_a_tile_game(tmp_path: Path) -> None:
    got, text = run("draw", "card", "-o", "sheet.svg", cwd=tmp_path)
    assert got == 2 and "card is a card game, which has no tiles to draw" in text, text
    got, text = run("simulate", "--rules", "base", "--against", "card", "--games", "1", cwd=tmp_path)
    assert got == 2 and "base is a tile game and card a card game" in text, text
    assert list(tmp_path.iterdir()) == []


def test_verify_says_the_player_range_as_simulate_does() -> None:
    got, text = run("verify", "base", "--players", "6")
    assert got == 2 and "tessera verify: base is for 2 to 5 players, not 6" in text, text
    got, text = run("simulate", "--rules", "base", "--players", "6")
    assert got == 2 and "base is for 2 to 5 players, not 6" in text, text


# ----------------------------------------------------------- item 7: fmt --write edits a shared file in place

UNFORMATTED = "module  house\nextends base\noverride score city complete = 3*tiles [BASE-CITY-2]\n"


def test_fmt_write_keeps_a_hard_links_text_in_step(tmp_path: Path) -> None:
    (tmp_path / "house.tess").write_text(UNFORMATTED)
    os.link(tmp_path / "house.tess", tmp_path / "also.tess.bak")
    ino = (tmp_path / "house.tess").stat().st_ino
    got, text = run("fmt", "--write", "house.tess", cwd=tmp_path)
    assert got == 0 and "reformatted house.tess" in text, text
    new = (tmp_path / "house.tess").read_text()
    assert new != UNFORMATTED and "module house\n" in new
    assert (tmp_path / "also.tess.bak").read_text() == new  # the other name sees the edit: one file
    assert (tmp_path / "house.tess").stat().st_ino == ino and (tmp_path / "house.tess").stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["also.tess.bak", "house.tess"]


def test_fmt_write_keeps_another_owners_file_theirs(tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "house.tess"
    f.write_text(UNFORMATTED)
    f.chmod(0o664)
    me = os.geteuid()
    if me == 0:  # as root (CI): really another user's file
        os.chown(f, 65534, 65534)
        owner = 65534
    else:  # not root: this user's file, written by what fmt takes for another user
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)
        owner = me
    ino = f.stat().st_ino
    got, text = run("fmt", "--write", "house.tess", cwd=tmp_path)
    assert got == 0, text
    st = f.stat()
    assert "module house\n" in f.read_text() and st.st_uid == owner and st.st_ino == ino
    assert stat.S_IMODE(st.st_mode) == 0o664


def test_fmt_write_replaces_a_sole_own_file_whole(tmp_path: Path) -> None:
    """The usual case keeps the atomic rename (a reader never sees half a file)."""
    f = tmp_path / "house.tess"
    f.write_text(UNFORMATTED)
    ino = f.stat().st_ino
    got, text = run("fmt", "--write", "house.tess", cwd=tmp_path)
    assert got == 0 and "module house\n" in f.read_text(), text
    assert f.stat().st_ino != ino


def test_fmt_write_in_place_leaves_a_file_changed_meanwhile_alone(tmp_path: Path) -> None:
    from tessera.dsl.fmt import write_formatted

    f = tmp_path / "house.tess"
    f.write_text("someone's newer text\n")
    os.link(f, tmp_path / "other")
    why = write_formatted(f, UNFORMATTED.encode(), "module house\n")
    assert why == "the file changed while fmt read it; left alone"
    assert f.read_text() == "someone's newer text\n"


# ------------------------------------------------ item 4: a local Dask cluster only its user can reach

def _listening_ports(pids: set[int]) -> set[int]:
    """TCP ports in LISTEN state held by these processes (from /proc: no extra package)."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in list(fh)[1:]:
                f = line.split()
                if f[3] == "0A" and f[9] in inodes:
                    ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


def _family(pid: int) -> set[int]:
    kids = {pid}
    for _ in range(3):  # the nannies' worker processes too
        for p in os.listdir("/proc"):
            if p.isdigit():
                try:
                    ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    continue
                if ppid in kids:
                    kids.add(int(p))
    return kids


@pytest.mark.slow
def test_the_local_dask_cluster_takes_only_its_own_certificate_and_serves_no_http() -> None:
    import socket

    distributed = pytest.importorskip("distributed")
    from distributed.security import Security

    from tessera.play.dask_local import private_cluster

    cluster, security = private_cluster(1)
    try:
        assert cluster.scheduler_address.startswith("tls://127.0.0.1:")
        with distributed.Client(cluster, security=security) as client:
            assert client.submit(pow, 2, 10).result() == 1024  # this run's own client works
        with pytest.raises(Exception, match="TLS|certificate|SSL"):  # another user's, with its own certificate
            distributed.Client(cluster.scheduler_address, security=Security.temporary(), timeout=10)
        ports = _listening_ports(_family(os.getpid()))
        assert ports, "the cluster listens somewhere"
        for port in ports:  # every port speaks TLS: none answers HTTP (no dashboard, no 8787)
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
                s.settimeout(5)
                try:
                    head = s.recv(16)
                except (socket.timeout, ConnectionError):
                    head = b""
            assert not head.startswith(b"HTTP/"), f"port {port} serves HTTP"
    finally:
        cluster.close()


@pytest.mark.slow
def test_simulate_on_the_local_dask_cluster_gives_what_one_process_gives() -> None:
    pytest.importorskip("distributed")
    args = ["simulate", "--games", "4", "--json", "--seed", "3"]
    one, text = run(*args, "--jobs", "1")
    assert one == 0, text
    got, dask_text = run(*args, "--backend", "dask", "--jobs", "2")
    assert got == 0 and dask_text == text


# ------------------------------------------------------- item 5: output proportional to the input

def test_a_house_rule_of_a_million_player_counts_is_one_error_at_its_own_line(tmp_path: Path) -> None:
    """`override players 2..1000000` on the card game (whose deal gives 2 to 5, CARD-DEAL-1) is one
    mistake: one error, at the house rule's line, not 999,995 at the bundled card.tess."""
    (tmp_path / "crowd.tess").write_text("module crowd\nextends card\noverride players 2..1000000\n")
    got, text = run("check", "crowd.tess", cwd=tmp_path)
    assert got == 1, text
    errors = [ln for ln in text.splitlines() if ": error: " in ln]
    assert errors == [errors[0]] and errors[0].startswith("crowd.tess:3:10: error: 999,995 player counts have no "
                                                          "deal: 6..1000000 (`players 2..1000000` here, but the deal at ")
    assert errors[0].endswith("gives 2, 3, 4, 5)  [missing]")
    assert len(text) < 5000


def test_a_deal_with_gaps_names_each_gap_at_the_deal(tmp_path: Path) -> None:
    """A deal of the module's own that skips counts is blamed at the deal (its `players` is no later)."""
    card = (REPO / "rules" / "card.tess").read_text()
    start = card.index("\ndeal ") + 1
    end = card.index("\n", card.index("rounds", card.index("5 players", start)))
    mine = card[:start] + "deal 2 players 6 cards 10 rounds, 4 players 4 cards 5 rounds" + card[end:]
    mine = mine.replace("module card ", "module gappy ", 1)
    (tmp_path / "gappy.tess").write_text(mine)
    got, text = run("check", "gappy.tess", cwd=tmp_path)
    errors = [ln for ln in text.splitlines() if ": error: " in ln]
    deal_line = card[:start].count("\n") + 1  # the line the deal starts on (1-based)
    assert got == 1 and errors == [f"gappy.tess:{deal_line}:1: error: 2 player counts have no deal: 3, 5 "
                                   f"(these rules are for 2 to 5)  [missing]"], text


def _card_game(tmp_path: Path, rounds: int) -> Path:
    """A card game of 2,000 cards (the most a rule file may print) that lasts `rounds` rounds."""
    card = (REPO / "rules" / "card.tess").read_text()
    big = (card.replace("module card ", "module bigcard ", 1)
           .replace("card animal x9 per colour ", "card animal x474 per colour ", 1)  # 4 x 474 + 104 = 2,000
           .replace("\ncards 140 ", "\ncards 2000 ", 1)
           .replace("deal 2 players 6 cards 10 rounds,", f"deal 2 players 6 cards {rounds} rounds,", 1)
           .replace("end when best >= 100 ", "end when best >= 1000000 ", 1))
    (tmp_path / "bigcard.tess").write_text(big)
    return tmp_path / "bigcard.tess"


@pytest.mark.slow
def test_a_card_games_page_grows_with_its_moves_not_moves_times_table(tmp_path: Path) -> None:
    rules = _card_game(tmp_path, 12)
    got, text = run("simulate", "--rules", str(rules), "--games", "1", "--players", "2", "--record", "rec", cwd=tmp_path)
    assert got == 0, text
    doc = json.loads((tmp_path / "rec" / "game-000000.json").read_text())
    sizes, tables = {}, {}
    for n in (100, 200):  # the same game's first 100 and 200 moves
        part = {**doc, "turns": doc["turns"][:n], "end": "none"}
        (tmp_path / "rec" / f"first-{n}.json").write_text(json.dumps(part))
        got, text = run("view", f"rec/first-{n}.json", "-o", f"first-{n}.html", cwd=tmp_path)
        assert got == 0, text
        sizes[n] = (tmp_path / f"first-{n}.html").stat().st_size
        got, text = run("draw", f"rec/first-{n}.json", "-o", f"table-{n}.svg", cwd=tmp_path)
        tables[n] = (tmp_path / f"table-{n}.svg").stat().st_size
    per_move = (sizes[200] - sizes[100]) / 100
    assert per_move < tables[200] / 5, (per_move, tables)  # a move costs its changes, not a whole table
    assert sizes[200] < 3 * tables[200] + 2000 * 200, sizes


@pytest.mark.slow
def test_the_card_viewer_shows_each_steps_own_table(tmp_path: Path) -> None:
    """Every step rebuilt from the differences is the table `draw --turn N` draws, forward and back."""
    import xml.etree.ElementTree as ET

    from browser import chromium_page

    got, text = run("simulate", "--rules", "card", "--games", "1", "--players", "3", "--record", "rec", cwd=tmp_path)
    assert got == 0, text
    got, text = run("view", "rec/game-000000.json", "-o", "game.html", cwd=tmp_path)
    assert got == 0, text
    n = len(json.loads((tmp_path / "rec" / "game-000000.json").read_text())["turns"])

    def signature(svg_root) -> tuple:
        els = list(svg_root.iter())
        return (len(els), [e.get("data-card") for e in els if e.get("data-card")], "".join(svg_root.itertext()))

    wanted = {}
    for k in sorted({0, 1, 2, n // 2, n - 1, n}):
        run("draw", "rec/game-000000.json", "--turn", str(k), "-o", f"t{k}.svg", cwd=tmp_path)
        wanted[k] = signature(ET.parse(tmp_path / f"t{k}.svg").getroot())
    with chromium_page() as page:
        page.goto((tmp_path / "game.html").as_uri())
        at = 0
        for k in [*sorted(wanted), *sorted(wanted, reverse=True)]:
            while at < k:
                page.keyboard.press("ArrowRight")
                at += 1
            while at > k:
                page.keyboard.press("ArrowLeft")
                at -= 1
            got_sig = page.evaluate("""() => {
                const shown = document.querySelectorAll('#table .step:not(.hidden)');
                const svg = shown[0].querySelector('svg');
                const els = [svg, ...svg.querySelectorAll('*')];
                return [shown.length, els.length, els.map(e => e.getAttribute('data-card')).filter(Boolean),
                        svg.textContent, document.querySelectorAll('#table .step svg').length];
            }""")
            assert got_sig[0] == 1 and got_sig[4] == 1, got_sig  # one step shown, one table in the page
            assert tuple(got_sig[1:4]) == wanted[k], k
        assert page.errors == []


def test_a_run_that_cannot_use_the_usual_folder_keeps_to_one_fresh_one(tmp_path: Path) -> None:
    from tessera.verifier.witness_dir import witness_folder

    (tmp_path / f"tessera-witnesses-{os.geteuid()}").symlink_to(tmp_path)
    a, b = witness_folder(tmp_path), witness_folder(tmp_path)
    assert a.path == b.path and a.path.name.startswith("tessera-witnesses-run-")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("tessera-witnesses-run-")] == [a.path.name]

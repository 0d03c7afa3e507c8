"""The store file itself: permissions, schema version and migrations, and every way it can fail.

Real SQLite files; the read-only and full-disk cases use a real tmpfs mounted for the test (root
is needed to mount one: the test fails, loudly, where it cannot). A store problem is a typed
error where the store is asked for directly (``agent.threads()``) and one ``StoreWarning`` during
runs, which go on without it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import threading
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agui_notebook import Agent, edit, policies
from agui_notebook._errors import (
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    StoreVersionError,
    StoreWarning,
)
from agui_notebook._store import sqlite as store_module
from agui_notebook._store.backend import open_store
from agui_notebook._store.sqlite import APPLICATION_ID, SCHEMA_VERSION, Store
from tests.store._db import rows
from tests.thread._streams import (
    interrupt,
    interrupted,
    run_finished,
    run_started,
    sse,
    sse_response,
    state_snapshot,
    text_message,
    tool_call,
)

pytestmark = pytest.mark.timeout(60)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


async def _commit_one(path: Path | None, **options: object) -> Agent:
    """A demo agent on ``path`` that ran one transfer to its end (policy approve)."""
    agent = Agent.demo(text_delay=0, store=path, **options)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    result = await chat.send(TRANSFER)
    assert result.outcome == "success"
    return agent


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- the file ----------------------------------------------------------------------------------


async def test_files_and_new_directories_are_for_the_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "store.sqlite3"
    agent = await _commit_one(path)
    assert _mode(path) == 0o600
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        assert side.exists() and _mode(side) == 0o600, suffix
    assert _mode(tmp_path / "new") == 0o700
    assert _mode(tmp_path / "new" / "deeper") == 0o700
    assert agent.store_path == path


async def test_an_existing_file_readable_by_others_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    await _commit_one(path)
    path.chmod(0o644)
    await _commit_one(path)
    assert _mode(path) == 0o600


async def test_the_file_carries_its_schema_version_and_marks_itself(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    await _commit_one(path)
    assert rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert rows(path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert rows(path, "PRAGMA journal_mode") == [("wal",)]


def test_the_store_path_comes_from_the_argument_or_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The default without either (the data dir in a notebook, none elsewhere):
    # tests/store/test_default_store.py.
    assert Agent("http://127.0.0.1:1/", store=tmp_path / "x.db").store_path == tmp_path / "x.db"
    assert Agent("http://127.0.0.1:1/", store=None).store_path is None
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", str(tmp_path / "env.db"))
    assert Agent("http://127.0.0.1:1/").store_path == tmp_path / "env.db"
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", "off")
    assert Agent("http://127.0.0.1:1/").store_path is None


# -- schema versions ---------------------------------------------------------------------------


async def test_an_older_schema_migrates_forward_and_keeps_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.sqlite3"
    agent = await _commit_one(path)
    (thread_id,) = [t.id for t in agent.threads()]
    del agent
    monkeypatch.setattr(
        store_module,
        "MIGRATIONS",
        [
            *store_module.MIGRATIONS,
            (
                SCHEMA_VERSION + 1,
                "ALTER TABLE threads ADD COLUMN note TEXT; CREATE TABLE extra (x)",
            ),
        ],
    )
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    again = Agent.demo(store=path)
    assert [t.id for t in again.threads()] == [thread_id]
    assert rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION + 1,)]
    assert rows(path, "SELECT count(*) FROM extra") == [(0,)]
    assert len(again.thread(thread_id).messages) == 4


def test_an_empty_sqlite_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    sqlite3.connect(path).close()  # version 0, no tables
    with Store(path) as store:
        assert store.threads() == []
    assert rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]


async def test_a_newer_schema_is_a_typed_error_and_runs_go_on(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    await _commit_one(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreVersionError) as raised:
        Store(path)
    assert raised.value.found == SCHEMA_VERSION + 1 and raised.value.supported == SCHEMA_VERSION

    agent = Agent.demo(text_delay=0, store=path)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    with pytest.warns(StoreWarning, match="newer agui_notebook") as caught:
        result = await chat.send(TRANSFER)
    assert result.outcome == "success"
    assert len([w for w in caught if issubclass(w.category, StoreWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once: the next run is quiet
        assert (await chat.send(TRANSFER)).outcome == "success"
    with pytest.raises(StoreVersionError):
        agent.threads()
    assert rows(path, "SELECT count(*) FROM threads") == [(1,)]  # untouched


# -- damaged files -----------------------------------------------------------------------------


async def test_a_file_that_is_not_sqlite_is_a_typed_error_and_runs_go_on(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"this is not a database\n" * 500)
    with pytest.raises(StoreCorrupt):
        Store(path)
    with pytest.warns(StoreWarning, match="damaged"):
        agent = await _commit_one(path)
    with pytest.raises(StoreCorrupt):
        agent.threads()
    assert path.read_bytes().startswith(b"this is not a database")  # never overwritten


def test_another_applications_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreCorrupt, match="another application"):
        Store(path)
    assert rows(path, "SELECT name FROM sqlite_master") == [("customers",)]


async def test_damaged_pages_are_a_warning_on_restore(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    agent = await _commit_one(path)
    (thread_id,) = [t.id for t in agent.threads()]
    agent._journal.store().close()  # type: ignore[union-attr]  # checkpoint into the file
    del agent
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = path.stat().st_size
    assert size > 4 * 4096
    with path.open("r+b") as f:  # keep the header page, scribble over the rest
        f.seek(4096)
        f.write(os.urandom(size - 4096))
    with pytest.warns(StoreWarning, match="damaged"):
        thread = Agent.demo(store=path).thread(thread_id)
    assert thread.id == thread_id and thread.messages == [] and thread.pending == []
    result = await thread.run("What is my balance?")  # the thread works, unstored
    assert result.outcome == "success"


# -- unwritable places: a real tmpfs -----------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs mounted for this test."""
    where = tmp_path / "mnt"
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(f"cannot mount a tmpfs for this test (run as root): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _remount(where: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True)


async def test_a_read_only_place_is_a_warning_and_runs_go_on(tmpfs: Path) -> None:
    _remount(tmpfs, "ro")
    path = tmpfs / "agui" / "store.sqlite3"
    with pytest.raises(StoreUnavailable, match="cannot create"):
        Store(path)
    with pytest.warns(StoreWarning, match="Read-only file system"):
        agent = await _commit_one(path)
    with pytest.raises(StoreUnavailable):
        agent.threads()


async def test_a_store_on_a_filesystem_turned_read_only(tmpfs: Path) -> None:
    path = tmpfs / "store.sqlite3"
    first = await _commit_one(path)
    first._journal.store().close()  # type: ignore[union-attr]
    _remount(tmpfs, "ro")
    with pytest.warns(StoreWarning):
        await _commit_one(path)


async def test_a_full_disk_is_a_warning_and_leaves_the_last_committed_run(tmpfs: Path) -> None:
    path = tmpfs / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=path)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    assert (await chat.send(TRANSFER)).outcome == "success"
    committed = rows(path, "SELECT count(*) FROM runs")
    filler = tmpfs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with pytest.raises(OSError):  # fill the disk to the last byte
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    big = "x" * 200_000  # a run whose row cannot fit any more
    with pytest.warns(StoreWarning, match="disk is full"):
        for _ in range(3):
            result = await chat.send(f"{TRANSFER} {big}")
            assert result.outcome == "success"
    filler.unlink()
    assert rows(path, "PRAGMA integrity_check") == [("ok",)]
    assert rows(path, "SELECT count(*) FROM runs") == committed
    with Store(path, readonly=True) as store:
        assert store.verify_audit() == (1, None)


async def test_a_page_limit_reached_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=path)
    thread = agent.thread()
    await thread.run("What is my balance?")
    # SQLite's own ceiling (per connection): the same SQLITE_FULL a full disk gives.
    store = agent._journal.store()  # type: ignore[union-attr]
    store._conn.execute("PRAGMA max_page_count=1")
    with pytest.warns(StoreWarning, match="full"):
        assert (await thread.run("What is my balance? " + "x" * 100_000)).outcome == "success"
    assert rows(path, "SELECT count(*) FROM runs") == [(1,)]


async def test_a_lock_held_too_long_is_said_once_and_the_next_commit_catches_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 100)
    path = tmp_path / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=path)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    await chat.send("What is my balance?")  # opens the store (with the short timeout)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another process writing, for longer than the timeout
    try:
        with pytest.warns(StoreWarning, match="locked by another process for 0.1 s"):
            assert (await chat.send(TRANSFER)).outcome == "success"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert rows(path, "SELECT count(*) FROM audit") == [(0,)]
    await chat.send("What is my balance?")  # the lock is gone: this commit writes the backlog
    assert rows(path, "SELECT count(*) FROM audit") == [(1,)]
    assert rows(path, "SELECT count(*) FROM runs") == [(2,)]  # the locked-out runs are not
    with Store(path, readonly=True) as store:
        assert store.verify_audit() == (1, None)


def _lock_exclusively(path: Path) -> sqlite3.Connection:
    """Another process holding the whole file (rollback journal, EXCLUSIVE): reads wait too."""
    Store(path).close()
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    other = sqlite3.connect(path, isolation_level=None, timeout=0, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    return other


def test_an_open_that_meets_a_lock_waits_for_it_past_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "store.sqlite3"
    other = _lock_exclusively(path)
    released = threading.Timer(0.5, lambda: (other.execute("ROLLBACK"), other.close()))
    released.start()
    try:
        with Store(path) as store:  # ten busy timeouts later, the lock is gone
            assert store.threads() == []
    finally:
        released.join()


def test_an_open_locked_out_for_good_is_a_typed_error_saying_how_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 20)
    monkeypatch.setattr(store_module, "OPEN_WAIT_S", 0.3)
    path = tmp_path / "store.sqlite3"
    other = _lock_exclusively(path)
    try:
        with pytest.raises(StoreUnavailable, match=r"stayed locked by another process for 0.3 s"):
            Store(path)
    finally:
        other.execute("ROLLBACK")
        other.close()


# -- secrets -----------------------------------------------------------------------------------

TOKEN = "sk-live-" + uuid.uuid4().hex
CLIENT_KEY = "ck-" + uuid.uuid4().hex
BASIC_PASSWORD = "pw-" + uuid.uuid4().hex
QUERY_TOKEN = "qt-" + uuid.uuid4().hex


def _echoing_server() -> httpx.MockTransport:
    """A server that repeats every credential it was sent into text, state and an interrupt."""

    def handler(request: httpx.Request) -> httpx.Response:
        heard = " ".join(
            [request.headers.get("authorization", ""), request.headers.get("x-api-key", "")]
        )
        heard += " " + str(request.url)
        body = request.read().decode()
        if '"resume"' in body:
            return sse_response(
                sse(
                    run_started(run_id="r2"),
                    text_message("a2", f"Done. You sent {heard}"),
                    run_finished(run_id="r2"),
                )
            )
        return sse_response(
            sse(
                run_started(),
                state_snapshot({"echo": heard, "nested": {"auth": f"Bearer {TOKEN}"}}),
                text_message("a1", f"I heard {heard}"),
                tool_call("c1", "transfer", {"amount": 500, "note": heard}, "a1"),
                run_finished(
                    outcome=interrupted(
                        interrupt("i1", toolCallId="c1", message=f"Send with {TOKEN}?")
                    )
                ),
            )
        )

    return httpx.MockTransport(handler)


async def test_no_credential_reaches_the_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    client = httpx.AsyncClient(
        transport=_echoing_server(),
        headers={"X-Api-Key": CLIENT_KEY},
        auth=httpx.BasicAuth("me", BASIC_PASSWORD),
    )
    agent = Agent(
        f"http://agent.invalid/run?token={QUERY_TOKEN}",
        headers={"Authorization": f"Bearer {TOKEN}"},
        http_client=client,
        store=path,
    )
    thread = agent.thread()
    await thread.run(f"please use {TOKEN}")
    # The server's echoes are scrubbed where they enter the client; the store scrubs again what
    # the client itself holds: the user's own message and the edited arguments carry the token.
    assert "<redacted>" in thread.messages[1].content
    assert TOKEN in thread.messages[0].content
    await thread.resume(edit(note=f"with {TOKEN}"))
    agent._journal.store().close()  # type: ignore[union-attr]

    stored = b"".join(
        p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("store.sqlite3")
    )
    import base64

    for secret in (TOKEN, CLIENT_KEY, BASIC_PASSWORD, QUERY_TOKEN):
        assert secret.encode() not in stored, secret
    basic = base64.b64encode(f"me:{BASIC_PASSWORD}".encode())
    assert basic not in stored
    assert b"<redacted>" in stored

    restored = Agent("http://agent.invalid/run?token=x", store=path).thread(thread.id)
    assert restored.messages and "<redacted>" in restored.messages[1].content
    assert "<redacted>" in restored.state["nested"]["auth"]
    ((url,),) = rows(path, "SELECT DISTINCT agent_url FROM threads")
    assert url == "http://agent.invalid/run?token=%3Credacted%3E"


def test_a_store_error_is_an_agui_error() -> None:
    from agui_notebook import AGUIError

    assert issubclass(StoreError, AGUIError)
    for cls in (StoreCorrupt, StoreUnavailable, StoreVersionError):
        assert issubclass(cls, StoreError)
    assert issubclass(StoreWarning, UserWarning)


async def test_aclose_closes_the_store_and_a_later_commit_opens_it_again(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    agent = Agent.demo(text_delay=0, store=path)
    thread = agent.thread()
    await thread.run("What is my balance?")
    first = agent._journal.store()  # type: ignore[union-attr]
    await agent.aclose()
    with pytest.raises(sqlite3.ProgrammingError):
        first._conn.execute("SELECT 1")  # closed
    await thread.run("What is my balance?")
    assert agent._journal.store() is not first  # type: ignore[union-attr]
    assert rows(path, "SELECT count(*) FROM runs") == [(2,)]


@pytest.mark.parametrize("folded", ["postgresql:/ada:s3cret@127.0.0.1:1/db", "postgres:/ada@h/db"])
def test_a_url_made_a_path_is_refused_not_a_file_named_for_it(
    folded: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Path("postgresql://...") is "postgresql:/...": opened as a path, it would be a SQLite file
    # in a directory named for the URL, password and all, where the notebook runs.
    monkeypatch.chdir(tmp_path)
    agent = Agent("http://agent.invalid/run", store=Path(folded))
    with pytest.raises(StoreError, match=r"URL that was made a path.*pass the URL as a str") as err:
        agent.threads()
    assert "s3cret" not in str(err.value)
    assert list(tmp_path.iterdir()) == []
    # A one-letter "scheme" is a Windows drive: still a path.
    open_store("C:/store.sqlite3").close()
    assert (tmp_path / "C:" / "store.sqlite3").is_file()

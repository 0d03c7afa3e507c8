"""The PostgreSQL store's own promises, on a real server: an append-only audit log (a trigger and
grants made by ``store init``), schema versions, typed errors, and no password anywhere."""

from __future__ import annotations

import subprocess
import sys
import uuid
import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import psycopg
import pytest

from agui_notebook import Agent, edit, policies
from agui_notebook._errors import StoreError, StoreUnavailable, StoreVersionError, StoreWarning
from agui_notebook._store import postgres as pg_module
from agui_notebook._store.backend import open_store
from agui_notebook._store.postgres import SCHEMA_VERSION, PostgresStore
from tests.store import _postgres
from tests.store._db import rows
from tests.store.test_cli import leaked
from tests.store.test_store_file import _echoing_server

pytestmark = pytest.mark.timeout(120)

TRANSFER = "Transfer $500 from 1234567890 to 0987654321"


_AGENTS: list[Agent] = []


@pytest.fixture(autouse=True)
async def _close_agents() -> AsyncIterator[None]:
    yield
    while _AGENTS:
        await _AGENTS.pop().aclose()  # their connections are closed, not left to the GC


async def _commit_one(location: str, **options: object) -> Agent:
    agent = Agent.demo(text_delay=0, store=location, **options)
    _AGENTS.append(agent)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    assert (await chat.send(TRANSFER)).outcome == "success"
    return agent


@pytest.fixture
def owned_by_admin(postgres_server: _postgres.Server) -> tuple[str, str]:
    """A database whose store the superuser set up (``store init --app-role``): (admin URL, the
    application role's URL)."""
    db = postgres_server.new_database(owner="postgres")
    admin = postgres_server.admin_url(db)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("agui-notebook")), "store", "init", admin,
         "--app-role", _postgres.APP_ROLE],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"role {_postgres.APP_ROLE} may append to the audit log, never change it" in done.stdout
    return admin, postgres_server.url(db)


# -- the audit log is append-only ---------------------------------------------------------------


async def test_the_application_role_appends_but_cannot_change_or_remove_audit_records(
    owned_by_admin: tuple[str, str],
) -> None:
    _, url = owned_by_admin
    await _commit_one(url)
    await _commit_one(url)
    assert rows(url, "SELECT count(*) FROM audit") == [(2,)]
    with psycopg.connect(url, autocommit=True) as app:
        app.execute("SET search_path TO agui_notebook")
        for statement in (
            "UPDATE audit SET record = '{}' WHERE seq = 1",
            "DELETE FROM audit WHERE seq = 2",
            "TRUNCATE audit",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                app.execute(statement.encode())
        app.execute("UPDATE threads SET title = 'x'")  # the rest is the application's
    with open_store(url, readonly=True) as store:
        assert store.verify_audit() == (2, None)


async def test_the_trigger_refuses_even_the_tables_owner(postgres_url: str) -> None:
    await _commit_one(postgres_url)  # the application role migrated: it owns the tables
    with psycopg.connect(postgres_url, autocommit=True) as owner:
        owner.execute("SET search_path TO agui_notebook")
        for statement in ("UPDATE audit SET hash = 'x'", "DELETE FROM audit", "TRUNCATE audit"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                owner.execute(statement.encode())


async def test_verify_catches_a_superuser_who_disabled_the_trigger(
    owned_by_admin: tuple[str, str],
) -> None:
    admin, url = owned_by_admin
    await _commit_one(url)
    await _commit_one(url)
    with psycopg.connect(admin, autocommit=True) as su:
        su.execute("SET search_path TO agui_notebook")
        su.execute("SET session_replication_role = replica")  # triggers off for this session
        su.execute("UPDATE audit SET record = replace(record, 'approve', 'reject') WHERE seq = 1")
    with open_store(url, readonly=True) as store:
        _, problem = store.verify_audit()
    assert problem is not None and (problem.seq, problem.problem) == (1, "altered")


# -- schema versions ----------------------------------------------------------------------------


async def test_a_newer_schema_is_a_typed_error_and_runs_go_on(
    postgres_server: _postgres.Server,
) -> None:
    db = postgres_server.new_database()
    url = postgres_server.url(db)
    await _commit_one(url)
    with postgres_server.admin(db) as su:
        su.execute(b"UPDATE agui_notebook.meta SET value = '7' WHERE key = 'schema_version'")
    with pytest.raises(StoreVersionError) as raised:
        PostgresStore(url)
    assert (raised.value.found, raised.value.supported) == (7, SCHEMA_VERSION)
    with pytest.warns(StoreWarning, match="newer agui_notebook") as caught:
        agent = await _commit_one(url)
    assert len([w for w in caught if issubclass(w.category, StoreWarning)]) == 1
    with pytest.raises(StoreVersionError):
        agent.threads()
    assert rows(url, "SELECT count(*) FROM runs") == [(2,)]  # untouched


async def test_an_older_schema_migrates_forward_and_keeps_its_data(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = await _commit_one(postgres_url)
    (thread_id,) = [t.id for t in agent.threads()]
    await agent.aclose()
    monkeypatch.setattr(
        pg_module,
        "MIGRATIONS",
        [
            *pg_module.MIGRATIONS,
            (
                SCHEMA_VERSION + 1,
                "ALTER TABLE agui_notebook.threads ADD COLUMN note TEXT;\n"
                "CREATE TABLE agui_notebook.extra (x INTEGER);",
            ),
        ],
    )
    monkeypatch.setattr(pg_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    again = Agent.demo(store=postgres_url)
    _AGENTS.append(again)
    assert [t.id for t in again.threads()] == [thread_id]
    assert rows(postgres_url, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION + 1),)
    ]
    assert rows(postgres_url, "SELECT count(*) FROM extra") == [(0,)]
    assert len(again.thread(thread_id).messages) == 4


# -- bad input and secrets ----------------------------------------------------------------------


async def test_a_wrong_password_is_one_warning_without_the_password(
    postgres_server: _postgres.Server,
) -> None:
    db = postgres_server.new_database()
    wrong = "wrong-" + uuid.uuid4().hex
    url = postgres_server.url(db, password=wrong)
    with pytest.raises(StoreUnavailable) as raised:
        PostgresStore(url)
    assert not leaked(wrong, str(raised.value)) and "agui_app@127.0.0.1" in str(raised.value)
    with pytest.warns(StoreWarning, match="cannot sign in") as caught:
        agent = await _commit_one(url)
    for w in caught:
        assert not leaked(wrong, str(w.message))
    assert not leaked(wrong, repr(agent) + repr(agent._journal) + str(agent.store_path))
    assert str(agent.store_path).startswith("postgresql://agui_app@127.0.0.1:")


def test_a_missing_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.delitem(sys.modules, "agui_notebook._store.postgres")
    with pytest.raises(StoreError, match=r'pip install "agui_notebook\[postgres\]"') as raised:
        open_store("postgresql://ada:hunter2@db.invalid/agui")
    assert "hunter2" not in str(raised.value)


async def test_no_credential_reaches_the_database(
    postgres_server: _postgres.Server, tmp_path: Path
) -> None:
    from tests.store.test_store_file import BASIC_PASSWORD, CLIENT_KEY, QUERY_TOKEN, TOKEN

    db = postgres_server.new_database()
    url = postgres_server.url(db)
    client = httpx.AsyncClient(
        transport=_echoing_server(),
        headers={"X-Api-Key": CLIENT_KEY},
        auth=httpx.BasicAuth("me", BASIC_PASSWORD),
    )
    agent = Agent(
        f"http://agent.invalid/run?token={QUERY_TOKEN}",
        headers={"Authorization": f"Bearer {TOKEN}"},
        http_client=client,
        store=url,
    )
    thread = agent.thread()
    await thread.run(f"please use {TOKEN} and {postgres_server.app_password}")
    await thread.resume(edit(note=f"with {TOKEN}"))
    await agent.aclose()
    with postgres_server.admin(db) as su:
        dump = "\n".join(
            str(row)
            for table in ("threads", "runs", "audit", "meta")
            for row in su.execute(f"SELECT * FROM agui_notebook.{table}".encode())
        )
    for n, secret in enumerate(
        (TOKEN, CLIENT_KEY, BASIC_PASSWORD, QUERY_TOKEN, postgres_server.app_password)
    ):
        assert not leaked(secret, dump), f"secret #{n} was stored"  # never print the value
    assert "<redacted>" in dump


def test_the_environment_variable_takes_a_url(
    monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    monkeypatch.setenv("AGUI_NOTEBOOK_STORE", postgres_url)
    agent = Agent("http://127.0.0.1:1/")
    _AGENTS.append(agent)
    assert isinstance(agent.store_path, str) and agent.store_path.startswith("postgresql://")
    assert ":" not in agent.store_path.split("//", 1)[1].split("@", 1)[0]  # no password
    assert agent.threads() == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agent._journal is not None and agent._journal.store() is not None


async def test_a_server_restart_is_one_warning_and_the_next_commit_connects_again(
    postgres_server: _postgres.Server,
) -> None:
    url = postgres_server.url(postgres_server.new_database())
    agent = Agent.demo(text_delay=0, store=url)
    chat = agent.chat(policy=policies.approve_all(), display=False)
    assert (await chat.send(TRANSFER)).outcome == "success"
    postgres_server._run(
        str(postgres_server.bin / "pg_ctl"), "restart", "-D", str(postgres_server.data),
        "-m", "fast", "-w", "-l", str(postgres_server.root / "log"),
    )  # fmt: skip
    with pytest.warns(StoreWarning, match="unreachable"):
        assert (await chat.send(TRANSFER)).outcome == "success"  # the old connection is gone
    assert (await chat.send("What is my balance?")).outcome == "success"
    # Both decisions are there (the lost commit was the run to the interrupt); the chain is whole.
    assert rows(url, "SELECT count(*) FROM audit") == [(2,)]
    with open_store(url, readonly=True) as store:
        assert store.verify_audit() == (2, None)
    await agent.aclose()


def test_missing_postgresql_binaries_fail_loudly_naming_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_postgres.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(_postgres.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install Debian's 'postgresql' package"):
        _postgres.pg_bin()  # the fixture raises this: an error, never a skip

"""A real PostgreSQL server for the store tests: Debian's ``postgresql`` package, never a mock.

:func:`start` runs ``initdb`` into a temp dir and ``pg_ctl start`` on a free loopback port with a
socket dir of its own, creates an application role with a password, and returns a
:class:`Server`; :meth:`Server.stop` runs ``pg_ctl stop -m fast`` (also registered with
``atexit``, so a test run stopped early leaves no server behind). When running as root, the
binaries run as the ``postgres`` OS user (``initdb`` refuses root). Missing binaries are an
error that names the package, never a skip (``scripts/test`` installs it).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

APP_ROLE = "agui_app"


def pg_bin() -> Path:
    """The directory of ``initdb`` and ``pg_ctl`` (the newest /usr/lib/postgresql/*/bin)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise RuntimeError(
        "PostgreSQL's initdb/pg_ctl are missing (no /usr/lib/postgresql/*/bin/initdb): install "
        "Debian's 'postgresql' package (scripts/test does: apt-get install postgresql)"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    bin: Path
    root: Path
    port: int
    socket_dir: Path
    app_password: str
    as_user: list[str]
    databases: list[str] = field(default_factory=list)
    stopped: bool = False
    watcher: subprocess.Popen[bytes] | None = None

    @property
    def data(self) -> Path:
        return self.root / "data"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *args], capture_output=True, text=True, check=check, timeout=120
        )

    def admin_url(self, dbname: str = "postgres") -> str:
        """The superuser, over the socket dir (peer/trust: no password)."""
        return (
            f"postgresql://postgres@/{dbname}?host={quote(str(self.socket_dir))}&port={self.port}"
        )

    def url(self, dbname: str, *, user: str = APP_ROLE, password: str | None = None) -> str:
        """The application role over TCP on loopback, with its password in the URL."""
        secret = self.app_password if password is None else password
        return f"postgresql://{user}:{quote(secret, safe='')}@127.0.0.1:{self.port}/{dbname}"

    def admin(self, dbname: str = "postgres") -> Any:
        import psycopg

        return psycopg.connect(self.admin_url(dbname), autocommit=True)

    def new_database(self, *, owner: str = APP_ROLE) -> str:
        """A fresh database owned by ``owner`` (one per test keeps tests apart)."""
        name = "t_" + secrets.token_hex(6)
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" OWNER "{owner}"')
        self.databases.append(name)
        return name

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        if self.watcher is not None and self.watcher.poll() is None:
            self.watcher.kill()
            self.watcher.wait(timeout=10)
        self._run(str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast", "-w",
                  check=False)  # fmt: skip
        shutil.rmtree(self.root, ignore_errors=True)


def start() -> Server:
    """initdb, start on a free port, create the application role. Raises when anything fails."""
    bin_dir = pg_bin()
    root = Path(tempfile.mkdtemp(prefix="agui-pg-"))
    as_user: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        import pwd

        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    root.chmod(0o700)
    sock = root / "sock"
    server = Server(bin_dir, root, _free_port(), sock, secrets.token_urlsafe(18), as_user)
    try:
        server._run("mkdir", "-m", "0700", str(sock))
        # The superuser signs in over the socket only (trust); TCP needs a password.
        server._run(
            str(bin_dir / "initdb"), "-D", str(server.data), "-U", "postgres",
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -p {server.port} -k {sock} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        server._run(
            str(bin_dir / "pg_ctl"), "start", "-D", str(server.data), "-w", "-t", "60",
            "-l", str(root / "log"), "-o", options,
        )  # fmt: skip
        atexit.register(server.stop)
        server.watcher = _watch(server)
        deadline = time.monotonic() + 30
        while True:
            try:
                from psycopg import sql

                with server.admin() as conn:
                    conn.execute(
                        sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                            sql.Identifier(APP_ROLE), sql.Literal(server.app_password)
                        )
                    )
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    except BaseException as exc:
        log = root / "log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        if isinstance(exc, subprocess.CalledProcessError):
            detail = f"{exc.stderr}\n{detail}"
        server.stop()
        raise RuntimeError(
            f"cannot start a PostgreSQL server for the tests: {exc}\n{detail}"
        ) from exc
    return server


def _watch(server: Server) -> subprocess.Popen[bytes]:
    """A watcher in a session of its own that stops the server when this process is gone, even
    by SIGKILL (where neither the fixture's finalizer nor atexit runs)."""
    stop = " ".join(
        shlex.quote(a)
        for a in [*server.as_user, str(server.bin / "pg_ctl"), "stop", "-D", str(server.data),
                  "-m", "fast"]
    )  # fmt: skip
    script = (
        f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; "
        f"{stop} >/dev/null 2>&1; rm -rf {shlex.quote(str(server.root))}"
    )
    return subprocess.Popen(
        ["sh", "-c", script],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@contextlib.contextmanager
def running() -> Any:
    server = start()
    try:
        yield server
    finally:
        server.stop()

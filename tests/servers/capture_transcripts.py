"""Regenerate ``tests/fixtures/transcripts/*.sse``: raw response bytes of the real test servers.

Run from the repository root: ``python -m tests.servers.capture_transcripts``. Each scenario starts
a thread on a freshly started server and saves every response body exactly as received
(``iter_raw``) as ``<server>_<prompt>_interrupt.sse`` (the first run of a prompt that
interrupts, saved once) and
``<server>_<scenario>.sse`` (the resume, or the only run); ``index.json`` records the request body
and HTTP status of each file.
Ids (threads, runs, messages, interrupts) and pydantic-ai's timestamps differ on every capture.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.servers import msaf_server, pydantic_ai_server
from tests.servers.wire import (
    WireRun,
    cancelled,
    messages_from_events,
    new_thread_id,
    post,
    resolved,
    run_input,
    user,
)

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
EDITED = {**msaf_server.TRANSFER_ARGS, "amount": 250.0, "currency": "EUR"}


class Capture:
    def __init__(self, prefix: str, url: str, *, stateless: bool) -> None:
        self.prefix = prefix
        self.url = url
        self.stateless = stateless
        self.files: dict[str, WireRun] = {}

    def scenario(
        self,
        name: str,
        text: str,
        decide: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None,
    ) -> None:
        """Start a thread with ``text``; if it interrupts and ``decide`` is given, resume once."""
        thread_id = new_thread_id()
        messages = [user(text)]
        first = post(self.url, run_input(thread_id, messages))
        # The first run is saved once per prompt: <server>_<prompt>_interrupt.sse, or the name.
        key = f"{text.split()[0]}_interrupt" if first.interrupts else name
        self.files.setdefault(key, first)
        if decide is None or not first.interrupts:
            return
        history = messages + messages_from_events(first.events) if self.stateless else []
        self.files[name] = post(
            self.url, run_input(thread_id, history, resume=decide(first.interrupts))
        )

    def write(self, out: Path) -> dict[str, Any]:
        index: dict[str, Any] = {}
        for name, run in self.files.items():
            filename = f"{self.prefix}_{name}.sse"
            (out / filename).write_bytes(run.raw)
            index[filename] = {"status": run.status, "request": run.request}
        return index


def _approve_all(interrupts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [resolved(i["id"], {"approved": True}) for i in interrupts]


def _scenarios(capture: Capture) -> None:
    one = capture.scenario
    one("text", "hello", None)
    one("balance", "balance please", None)
    one("transfer_approve", "transfer", _approve_all)
    one("transfer_reject", "transfer", lambda i: [resolved(i[0]["id"], {"approved": False})])
    one(
        "transfer_edit",
        "transfer",
        lambda i: [resolved(i[0]["id"], {"approved": True, "editedArgs": EDITED})],
    )
    one("transfer_cancel", "transfer", lambda i: [cancelled(i[0]["id"])])
    one("batch_approve", "batch", _approve_all)
    one("two_approve", "two", _approve_all)
    one(
        "two_mixed",
        "two",
        lambda i: [
            resolved(i[0]["id"], {"approved": True}),
            resolved(i[1]["id"], {"approved": False}),
        ],
    )
    one("two_missing_answer", "two", lambda i: [resolved(i[0]["id"], {"approved": True})])
    one(
        "transfer_unknown_id",
        "transfer",
        lambda i: [resolved(i[0]["id"][:-4] + "0000", {"approved": True})],
    )


def capture_msaf(out: Path) -> dict[str, Any]:
    handle = msaf_server.start_server(keepalive_seconds=1)
    try:
        capture = Capture("msaf", handle.url, stateless=False)
        _scenarios(capture)
        capture.scenario("slow_keepalive", "slow", None)
        # A failed resume (wrong payload shape) and a new message while an interrupt is pending.
        capture.scenario(
            "transfer_invalid_payload",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"accepted": True, "arguments": {"amount": 5.0}})],
        )
        thread_id = new_thread_id()
        post(handle.url, run_input(thread_id, [user("transfer")]))
        capture.files["new_message_while_pending"] = post(
            handle.url, run_input(thread_id, [user("hello")])
        )
        return capture.write(out)
    finally:
        handle.stop()


def capture_pydantic_ai(out: Path) -> dict[str, Any]:
    handle = pydantic_ai_server.start_server()
    try:
        capture = Capture("pydantic_ai", handle.url, stateless=True)
        _scenarios(capture)
        capture.scenario(
            "transfer_invalid_payload",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"accepted": True})],
        )
        capture.scenario(
            "transfer_reject_reason",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"approved": False, "reason": "Too much"})],
        )
        return capture.write(out)
    finally:
        handle.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.sse"):
        old.unlink()
    # pydantic-ai warns (server side) when a resume leaves a tool call unanswered: expected here.
    warnings.filterwarnings("ignore", message="Client-submitted history ended with unresolved")
    index = {**capture_msaf(out), **capture_pydantic_ai(out)}
    (out / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(index)} transcripts to {out}")


if __name__ == "__main__":
    main()

"""Regenerate ``tests/fixtures/transcripts/*.sse``: raw response bytes of the real test servers.

Run from the repository root: ``python -m tests.servers.capture_transcripts`` (``--only langgraph``
for one server; the LangGraph, ADK and CrewAI servers run from their venvs, see
tests/servers/external.py). Each scenario starts
a thread on a freshly started server and saves every response body exactly as received
(``iter_raw``) as ``<server>_<prompt>_interrupt.sse`` (the first run of a prompt that
interrupts, saved once) and
``<server>_<scenario>.sse`` (the resume, or the only run); ``index.json`` records the request body
and HTTP status of each file.
Ids (threads, runs, messages, interrupts) and pydantic-ai's timestamps differ on every capture.
"""

from __future__ import annotations

import argparse
import functools
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.servers import external, msaf_server, pydantic_ai_server
from tests.servers.wire import (
    WireRun,
    cancelled,
    messages_from_events,
    new_thread_id,
    one_message_per_turn,
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
        #: How the history a resume carries is rebuilt from the first run's events.
        self.history: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = messages_from_events

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
        history = messages + self.history(first.events) if self.stateless else []
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


def _langgraph_ids(run: WireRun) -> list[str]:
    return [e["rawEvent"]["id"] for e in run.of_type("CUSTOM") if e["name"] == "on_interrupt"]


def _command(thread_id: str, value: Any) -> dict[str, Any]:
    body = run_input(thread_id, [])
    body["forwardedProps"] = {"command": {"resume": value}}
    return body


def _first_run(url: str, text: str) -> tuple[str, WireRun]:
    thread_id = new_thread_id()
    return thread_id, post(url, run_input(thread_id, [user(text)]), timeout=60)


def capture_langgraph(out: Path) -> dict[str, Any]:
    """LangGraph in both interrupt styles; the default style is answered the client's way."""
    files: dict[str, WireRun] = {}
    for style, extra in (("default", ()), ("outcome", ()), ("noids", ("--no-raw-events",))):
        server = external.start(
            "langgraph", "--style", "outcome" if style == "outcome" else "default", *extra
        )
        try:
            first = functools.partial(_first_run, server.url)
            if style == "noids":
                files[f"{style}_transfer_interrupt"] = first("transfer")[1]
                continue
            thread_id, run = first("transfer")
            files[f"{style}_transfer_interrupt"] = run
            if style == "default":
                files[f"{style}_transfer_approve"] = post(
                    server.url, _command(thread_id, {"approved": True}), timeout=60
                )
            else:
                [interrupt] = run.interrupts
                files[f"{style}_transfer_approve"] = post(
                    server.url,
                    run_input(
                        thread_id, [], resume=[resolved(interrupt["id"], {"approved": True})]
                    ),
                    timeout=60,
                )
            thread_id, run = first("two things")
            files[f"{style}_two_interrupt"] = run
            ids = _langgraph_ids(run)
            files[f"{style}_two_approve"] = post(
                server.url, _command(thread_id, {i: {"approved": True} for i in ids}), timeout=60
            )
            files[f"{style}_ask_interrupt"] = first("ask me")[1]
            if style == "default":
                files[f"{style}_balance"] = first("balance please")[1]
        finally:
            server.stop()
    index: dict[str, Any] = {}
    for name, run in files.items():
        filename = f"langgraph_{name}.sse"
        (out / filename).write_bytes(run.raw)
        index[filename] = {"status": run.status, "request": run.request}
    return index


def _confirm(value: bool) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    return lambda interrupts: [resolved(i["id"], {"confirmed": value}) for i in interrupts]


def capture_adk(out: Path) -> dict[str, Any]:
    """Google ADK's adapter: answers are ToolConfirmations; resumes carry the history with the
    run's calls in one assistant message (test_adk_wire.py: the adapter pairs answers by it)."""
    handle = external.start("adk")
    try:
        capture = Capture("adk", handle.url, stateless=True)
        capture.history = lambda events: one_message_per_turn(messages_from_events(events))
        one = capture.scenario
        one("text", "hello", None)
        one("balance", "balance please", None)
        one("transfer_approve", "transfer", _confirm(True))
        one("transfer_reject", "transfer", _confirm(False))
        one("transfer_cancel", "transfer", lambda i: [cancelled(i[0]["id"])])
        one("batch_approve", "batch", _confirm(True))
        one("two_approve", "two", _confirm(True))
        one(
            "two_mixed",
            "two",
            lambda i: [
                resolved(i[0]["id"], {"confirmed": True}),
                resolved(i[1]["id"], {"confirmed": False}),
            ],
        )
        one("two_missing_answer", "two", lambda i: [resolved(i[0]["id"], {"confirmed": True})])
        one(
            "transfer_unknown_id",
            "transfer",
            lambda i: [resolved("adk-00000000-0000-0000-0000-000000000000", {"confirmed": True})],
        )
        one(
            "transfer_invalid_payload",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"confirmed": False, "reason": "Too much"})],
        )
        one("slow_keepalive", "slow", None)
        thread_id = new_thread_id()
        post(handle.url, run_input(thread_id, [user("transfer")]))
        capture.files["new_message_while_pending"] = post(
            handle.url, run_input(thread_id, [user("hello")])
        )
        return capture.write(out)
    finally:
        handle.stop()


def capture_crewai(out: Path) -> dict[str, Any]:
    """A CrewAI Flow: one pause at a time, the interrupt id is the thread id; the flow state
    lives on the server (resumes carry no history)."""
    handle = external.start("crewai")
    try:
        capture = Capture("crewai", handle.url, stateless=False)
        one = capture.scenario
        one("text", "hello", None)
        one("transfer_approve", "transfer", _approve_all)
        one(
            "transfer_reject_reason",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"approved": False, "reason": "Too much"})],
        )
        one(
            "transfer_edit",
            "transfer",
            lambda i: [resolved(i[0]["id"], {"approved": True, "editedArgs": EDITED})],
        )
        one("transfer_cancel", "transfer", lambda i: [cancelled(i[0]["id"])])
        one("batch_approve", "batch", _approve_all)
        # "two": the resume answering the first pause ends in the second, under the same id.
        one("two_second_interrupt", "two", _approve_all)
        one("transfer_unchecked_id", "transfer", lambda i: [resolved("nope", {"approved": True})])
        capture.files["no_pending_feedback"] = post(
            handle.url, run_input(new_thread_id(), [], resume=[resolved("x", {"approved": True})])
        )
        capture.files["outcomes_interrupt"] = post(
            handle.url + "outcomes", run_input(new_thread_id(), [user("anything")])
        )
        return capture.write(out)
    finally:
        handle.stop()


CAPTURES = {
    "msaf": capture_msaf,
    "pydantic_ai": capture_pydantic_ai,
    "langgraph": capture_langgraph,
    "adk": capture_adk,
    "crewai": capture_crewai,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only", choices=sorted(CAPTURES), action="append")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    names = args.only or sorted(CAPTURES)
    for name in names:
        for old in out.glob(f"{name}_*.sse"):
            old.unlink()
    # pydantic-ai warns (server side) when a resume leaves a tool call unanswered: expected here.
    warnings.filterwarnings("ignore", message="Client-submitted history ended with unresolved")
    index_path = out / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    index = {k: v for k, v in index.items() if not any(k.startswith(f"{n}_") for n in names)}
    for name in names:
        index.update(CAPTURES[name](out))
    index_path.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(index)} transcripts to {out}")


if __name__ == "__main__":
    main()

"""``await agent.capabilities()``: the server's AG-UI capabilities document, typed, or None.

Served as Google ADK's AG-UI middleware serves it (``GET {agent path}/capabilities``); the demo
serves one too, over loopback for both transports. Bad documents come from an httpx mock.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest

from agui_notebook import (
    Agent,
    AgentCapabilities,
    HTTPStatusError,
    ProtocolError,
    policies,
)
from agui_notebook.demo import create_app, start_in_thread

SECRET = "sk-live-0123456789abcdef"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    url, stop = start_in_thread(app=create_app(text_delay=0))
    try:
        yield url
    finally:
        stop()


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_demo_declares_its_capabilities_over_either_transport(
    demo_url: str, scheme: str
) -> None:
    agent = Agent(demo_url.replace("http", scheme, 1), store=None)
    found = await agent.capabilities()
    assert isinstance(found, AgentCapabilities)
    assert found.human_in_the_loop is not None
    assert found.human_in_the_loop.approve_with_edits is True  # snake_case attributes
    assert found.transport is not None and found.transport.websocket is True
    assert not found.declines_human_in_the_loop
    assert "humanInTheLoop" in found.describe()
    assert agent.declared_capabilities is found
    await agent.aclose()


async def test_no_document_is_none_not_an_error(demo_url: str) -> None:
    agent = Agent(demo_url + "elsewhere/", store=None)  # the demo answers 404 there
    assert await agent.capabilities() is None
    assert agent.declared_capabilities is None
    await agent.aclose()


_CLIENTS: list[httpx.AsyncClient] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while _CLIENTS:
        await _CLIENTS.pop().aclose()


def mock(answer: Callable[[httpx.Request], httpx.Response]) -> Agent:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    _CLIENTS.append(client)
    agent = Agent(
        "http://agent.invalid/agents/bank",
        http_client=client,
        headers={"Authorization": f"Bearer {SECRET}"},
        store=None,
    )
    agent.seen = seen  # type: ignore[attr-defined]
    return agent


async def test_it_asks_under_the_agent_path_with_the_agents_headers() -> None:
    agent = mock(lambda r: httpx.Response(200, json={}))
    found = await agent.capabilities()
    # ADK with nothing configured answers {} with 200: a document that declares nothing.
    assert found is not None and found.declared() == {} and "nothing declared" in found.describe()
    (request,) = agent.seen  # type: ignore[attr-defined]
    assert (request.method, request.url.path) == ("GET", "/agents/bank/capabilities")
    assert request.headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"<html>not json</html>", "is not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"humanInTheLoop": {"supported": "very"}}', "humanInTheLoop.supported"),
    ],
    ids=["not-json", "not-an-object", "wrong-type"],
)
async def test_a_bad_document_is_a_protocol_error(body: bytes, match: str) -> None:
    agent = mock(lambda r: httpx.Response(200, content=body))
    with pytest.raises(ProtocolError, match=match):
        await agent.capabilities()


async def test_unknown_fields_are_kept_with_a_warning() -> None:
    document = {
        "identity": {"name": "bank", "mascot": "owl"},
        "teleport": {"supported": True},
        "custom": {"anything": {"goes": 1}},  # custom is open: nothing unknown there
    }
    agent = mock(lambda r: httpx.Response(200, json=document))
    with pytest.warns(UserWarning, match=r"identity\.mascot, teleport") as caught:
        found = await agent.capabilities()
    assert len(caught) == 1
    assert found is not None and found.identity is not None
    assert found.identity.name == "bank"
    assert found.identity.model_extra == {"mascot": "owl"}
    assert found.model_extra == {"teleport": {"supported": True}}
    assert found.declared()["teleport"] == {"supported": True}  # nothing lost


async def test_a_server_error_is_typed_and_scrubbed() -> None:
    agent = mock(lambda r: httpx.Response(500, text=f"broken for {SECRET}"))
    with pytest.raises(HTTPStatusError) as caught:
        await agent.capabilities()
    assert caught.value.status_code == 500 and SECRET not in str(caught.value)


async def test_a_chat_says_at_once_when_the_server_declines_human_in_the_loop() -> None:
    app = create_app(text_delay=0)
    declines = json.dumps({"humanInTheLoop": {"supported": False}})

    async def answer(scope: dict, receive: Callable, send: Callable) -> None:  # type: ignore[type-arg]
        if scope["type"] == "http" and scope["path"] == "/capabilities":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": declines.encode()})
            return
        await app(scope, receive, send)

    url, stop = start_in_thread(app=answer)  # type: ignore[arg-type]  # any ASGI app serves
    try:
        agent = Agent(url, store=None)
        found = await agent.capabilities()
        assert found is not None and found.declines_human_in_the_loop
        chat = agent.chat(policy=policies.approve_all(), display=False)
        await chat.send("hello")
        await chat.send("hello again")
        await agent.aclose()
    finally:
        stop()
    notices = [
        i["text"]
        for view in chat.views
        for i in view.items
        if i["kind"] == "notice" and "human-in-the-loop" in i["text"]
    ]
    assert len(notices) == 1  # said once, at the first message


async def test_a_server_that_answers_on_the_run_url_itself_is_asked_there_too() -> None:
    """Some servers serve the document on a GET to the run URL: tried when
    ``{url}/capabilities`` has none."""
    app = create_app(text_delay=0)
    document = json.dumps({"humanInTheLoop": {"supported": True, "approveWithEdits": False}})
    asked: list[str] = []

    async def answer(scope: dict, receive: Callable, send: Callable) -> None:  # type: ignore[type-arg]
        if scope["type"] == "http" and scope["method"] == "GET":
            asked.append(scope["path"])
            found = scope["path"] == "/agent"
            body = document.encode() if found else b"not here"
            start = {"type": "http.response.start", "status": 200 if found else 404, "headers": []}
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    url, stop = start_in_thread(app=answer)  # type: ignore[arg-type]  # any ASGI app serves
    try:
        agent = Agent(url + "agent", store=None)
        found = await agent.capabilities()
        await agent.aclose()
    finally:
        stop()
    assert asked == ["/agent/capabilities", "/agent"]
    assert found is not None and found.human_in_the_loop is not None
    assert found.human_in_the_loop.approve_with_edits is False


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(200, content=b"<html>an agent lives here</html>"),
        httpx.Response(500, text="no GET here"),
        httpx.Response(200, content=b"[1]"),
    ],
    ids=["a-page", "an-error", "not-an-object"],
)
async def test_what_the_run_url_answers_that_is_no_document_is_none(answer: httpx.Response) -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404) if request.url.path.endswith("/capabilities") else answer

    agent = mock(respond)
    assert await agent.capabilities() is None
    paths = [r.url.path for r in agent.seen]  # type: ignore[attr-defined]
    assert paths == ["/agents/bank/capabilities", "/agents/bank"]

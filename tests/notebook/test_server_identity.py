"""The server extension that stamps the authenticated user into kernel messages (unit level; the
browser tests in tests/browser/test_collaboration.py run it in a real JupyterLab)."""

from __future__ import annotations

import json
import logging
import os
from types import SimpleNamespace
from typing import Any

import pytest
from jupyter_server.services.kernels.connection.base import (
    deserialize_binary_message,
    deserialize_msg_from_ws_v1,
    serialize_binary_message,
    serialize_msg_to_ws_v1,
)
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

import agui_notebook
from agui_notebook._notebook import server_identity
from agui_notebook._notebook.server_identity import (
    ENV,
    STAMPED,
    AttestedUserConnection,
    stamp_username,
)

GRACE = {"username": "grace", "name": "Grace Hopper", "display_name": "Grace"}


def _message(username: str = "mallory") -> dict[str, Any]:
    return {
        "header": {"msg_id": "m1", "msg_type": "comm_msg", "username": username, "session": "s"},
        "parent_header": {},
        "metadata": {"version": "2.1.0"},
        "content": {"comm_id": "c", "data": {"type": "decide", "decidedBy": "Ada"}},
        "channel": "shell",
    }


def test_a_v1_frame_gets_the_servers_user_whatever_the_page_wrote() -> None:
    msg = _message()
    frame = serialize_msg_to_ws_v1(msg, "shell", pack=lambda part: json.dumps(part).encode())
    stamped = stamp_username(frame, GRACE, v1=True)
    channel, parts = deserialize_msg_from_ws_v1(stamped)
    header, parent, metadata, content = (json.loads(p) for p in parts)
    assert channel == "shell"
    assert header == {**msg["header"], "username": "grace", "display_name": "Grace"}
    assert metadata == {"version": "2.1.0"}
    # The content (where the widget's JS could claim a name) is passed on as it was, unread.
    assert content == msg["content"] and parent == {}


def test_a_v1_frame_keeps_its_buffers() -> None:
    msg = _message()
    parts = [
        json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")
    ]
    frame = serialize_msg_to_ws_v1([*parts, b"\x00\x01binary"], "shell")
    _, stamped = deserialize_msg_from_ws_v1(stamp_username(frame, GRACE, v1=True))
    assert stamped[4:] == [b"\x00\x01binary"]
    assert json.loads(stamped[0])["username"] == "grace"


def test_the_legacy_json_and_binary_frames_are_stamped_too() -> None:
    text = stamp_username(json.dumps(_message()), GRACE, v1=False)
    assert isinstance(text, str)
    msg = json.loads(text)
    assert msg["header"]["username"] == "grace" and msg["channel"] == "shell"
    assert msg["header"]["display_name"] == "Grace"

    binary = serialize_binary_message({**_message(), "buffers": [b"raw"]})
    stamped = deserialize_binary_message(stamp_username(binary, GRACE, v1=False))
    assert stamped["header"]["username"] == "grace" and stamped["buffers"] == [b"raw"]


def test_no_user_stamps_empty_names_rather_than_passing_the_pages_claim() -> None:
    nobody = {"username": "", "name": "", "display_name": ""}
    forged = _message("ada")
    forged["header"]["display_name"] = "Ada Lovelace"
    msg = json.loads(stamp_username(json.dumps(forged), nobody, v1=False))
    assert msg["header"]["username"] == ""
    assert "display_name" not in msg["header"]


@pytest.mark.parametrize(
    ("frame", "v1"),
    [("not json", False), (json.dumps({"no": "header"}), False), ("text", True), (b"\x01", True)],
)
def test_a_frame_that_cannot_be_read_is_an_error_not_a_pass(frame: Any, v1: bool) -> None:
    with pytest.raises((ValueError, KeyError, IndexError, TypeError)):
        stamp_username(frame, GRACE, v1=v1)


def _serverapp(connection_class: Any) -> Any:
    return SimpleNamespace(
        web_app=SimpleNamespace(settings={"kernel_websocket_connection_class": connection_class}),
        log=logging.getLogger("test-server-identity"),
    )


def test_the_extension_swaps_jupyter_servers_connection_and_tells_the_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    app = _serverapp(ZMQChannelsWebsocketConnection)
    # `jupyter server extension enable agui_notebook` finds the package's point, which names this.
    assert agui_notebook._jupyter_server_extension_points() == [
        {"module": "agui_notebook._notebook.server_identity"}
    ]
    assert server_identity._jupyter_server_extension_points() == [
        {"module": "agui_notebook._notebook.server_identity"}
    ]
    server_identity._load_jupyter_server_extension(app)
    assert app.web_app.settings["kernel_websocket_connection_class"] is AttestedUserConnection
    assert os.environ[ENV] == STAMPED


def test_a_gateways_connection_is_left_alone_and_the_kernels_are_not_told(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(ENV, raising=False)

    class Gateway:
        pass

    app = _serverapp(Gateway)
    with caplog.at_level(logging.WARNING):
        server_identity._load_jupyter_server_extension(app)
    assert app.web_app.settings["kernel_websocket_connection_class"] is Gateway
    assert ENV not in os.environ
    assert "usernames are not stamped" in caplog.text

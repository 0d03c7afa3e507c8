"""The Jupyter server's side of "who clicked": stamp the authenticated username into each message.

JupyterLab 4.6 sends every kernel message with ``header.username`` empty, and jupyter_server 2.21
passes headers through as the browser wrote them (docs/collaboration.md). This module is
a jupyter_server extension; turned on with

    jupyter server extension enable agui_notebook      # once, in the server's environment
    jupyter lab --ServerApp.jpserver_extensions=agui_notebook=True     # or for one server

(or ``{"ServerApp": {"jpserver_extensions": {"agui_notebook": true}}}`` in
``jupyter_server_config.json``),
it makes every kernel WebSocket an `AttestedUserConnection`: in every message a browser sends to a
kernel, ``header.username`` is overwritten with the username the server's identity provider
authenticated for that WebSocket (JupyterHub's user, a token's user), whatever the page put
there, and ``header.display_name`` (not in the messaging spec; the kernel reads it for the card)
with that user's display name. Messages from the kernel are not touched.

The kernels this server starts learn that the stamp is on from ``AGUI_NOTEBOOK_SERVER_IDENTITY``
(``"stamped"``), which the extension sets in the server's environment when it loads, before any
kernel starts (kernels inherit the server's environment). That is only as trustworthy as the
kernel: whoever can run code in the kernel can set it, or forge any message, and can act as the
kernel anyway. A server whose kernels are not jupyter_server's own (a gateway) is left alone, with
a warning.
"""

from __future__ import annotations

import json
import os
from typing import Any

from jupyter_server.services.kernels.connection.base import (
    deserialize_binary_message,
    deserialize_msg_from_ws_v1,
    serialize_binary_message,
    serialize_msg_to_ws_v1,
)
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from .host import SERVER_IDENTITY_ENV as ENV
from .host import STAMPED

V1 = "v1.kernel.websocket.jupyter.org"


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Swap the server's kernel connection for the stamping one, and tell its kernels."""
    settings = serverapp.web_app.settings
    current = settings.get("kernel_websocket_connection_class")
    if current is not ZMQChannelsWebsocketConnection:
        serverapp.log.warning(
            "agui_notebook: kernel connections are %r, not jupyter_server's own: "
            "usernames are not stamped",
            current,
        )
        return
    settings["kernel_websocket_connection_class"] = AttestedUserConnection
    os.environ[ENV] = STAMPED
    serverapp.log.info("agui_notebook: kernel messages carry the authenticated username")


class AttestedUserConnection(ZMQChannelsWebsocketConnection):
    """jupyter_server's ZMQ kernel connection, with ``header.username`` set by the server."""

    def handle_incoming_message(self, incoming_msg: str) -> None:
        # Typed str upstream; a v1 frame is bytes.
        try:
            stamped = stamp_username(incoming_msg, self._user(), v1=self.subprotocol == V1)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            # Not a message jupyter_server could route either; never forward it unstamped.
            self.log.warning("dropped a kernel message that could not be stamped: %s", exc)
            return
        super().handle_incoming_message(stamped)  # type: ignore[arg-type]

    def _user(self) -> dict[str, str]:
        """The authenticated user of this WebSocket ("" fields when there is none)."""
        user = getattr(self.websocket_handler, "current_user", None)
        fields = {}
        for field in ("username", "name", "display_name"):
            value = getattr(user, field, None)
            fields[field] = value if isinstance(value, str) else ""
        return fields


def stamp_username(message: str | bytes, user: dict[str, str], *, v1: bool) -> str | bytes:
    """The WebSocket frame `message` with the server's word on who sent it.

    ``header.username`` becomes ``user["username"]`` and ``header.display_name`` the user's
    display name (removed when there is none), both replacing whatever the page wrote. `v1`: the
    ``v1.kernel.websocket.jupyter.org`` framing (JupyterLab 4's default); otherwise the legacy
    JSON text frame or its binary form (with buffers).
    """
    if v1:
        if not isinstance(message, bytes):
            raise TypeError("a v1 kernel message is a binary frame")
        channel, parts = deserialize_msg_from_ws_v1(message)  # type: ignore[no-untyped-call]
        header = json.loads(parts[0])
        _stamp(header, user)
        parts[0] = json.dumps(header).encode()
        frame: bytes = serialize_msg_to_ws_v1(parts, channel)  # type: ignore[no-untyped-call]
        return frame
    if isinstance(message, bytes):
        msg = deserialize_binary_message(message)  # type: ignore[no-untyped-call]
        _stamp(msg["header"], user)
        binary: bytes = serialize_binary_message(msg)  # type: ignore[no-untyped-call]
        return binary
    msg = json.loads(message)
    _stamp(msg["header"], user)
    return json.dumps(msg)


def _stamp(header: dict[str, Any], user: dict[str, str]) -> None:
    if not isinstance(header, dict):
        raise TypeError("a kernel message's header is an object")
    header["username"] = user["username"]
    if user["display_name"]:
        header["display_name"] = user["display_name"]
    else:
        header.pop("display_name", None)

"""A test identity provider for jupyter_server 2.x: one token per named person.

`start_server(..., users={...})` (tests/browser/_jupyter.py) configures it with
``--ServerApp.identity_provider_class=_named_users.NamedUsers`` and a token per user. Opening a
page with ``?token=<ada's token>`` logs that browser context in as Ada: the server signs her user
model into its login cookie, so every later request of the context (REST, kernel and document
WebSockets, which carry no token) is Ada's, and ``/api/me`` answers her name. The server's own
token (``IdentityProvider.token``, used by the harness's REST calls) still works, as whoever the
request's cookie names (an anonymous user without one).

This is how a real deployment hands out identities (JupyterHub authenticates the person, the
single-user server trusts the Hub's token): the identity is the server's, never the page's. It is
a test fixture only: tokens in a config file, no passwords, no expiry.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.identity import IdentityProvider, User
from traitlets import Dict


class NamedUsers(IdentityProvider):
    """`users`: token -> ``{"username": ..., "name": ..., "display_name": ...}``."""

    users = Dict(
        {},
        config=True,
        help="Token -> the user model (username, name, display_name...) that token logs in.",
    )

    async def get_user_token(self, handler: Any) -> User | None:
        fields = self.users.get(self.get_token(handler) or "")
        if fields is not None:
            return User(**fields)
        return await super().get_user_token(handler)

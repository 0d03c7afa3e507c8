"""The notebook around a chat: what is running, and what it can do.

Owns the host seam (``host``: can a click reach a running cell? showing a view and updating its
display, the running cell, the loop's thread-safe hand-off; one host per front end, a fake one in
tests), re-executing notebooks with nbclient (``execute``), and the Jupyter server's side of
who clicked (``server_identity``: an opt-in server extension that stamps the authenticated user
into every kernel message a browser sends).

May import: ``_errors`` only. IPython, ipykernel, marimo and google.colab live in ``host``;
nbclient and nbformat in ``execute``; jupyter_server in ``server_identity`` (it runs in the
server, never in a kernel).
"""

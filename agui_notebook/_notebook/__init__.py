"""The notebook around a chat: what is running, and what it can do.

Owns the host seam (``host``: can a click reach a running cell? showing a view and updating its
display, the running cell, the loop's thread-safe hand-off; one host per front end, a fake one in
tests) and re-executing notebooks with nbclient (``execute``).

May import: ``_errors`` only. IPython, ipykernel, marimo and google.colab live in ``host``;
nbclient and nbformat in ``execute``.
"""

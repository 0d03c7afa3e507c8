"""``python -m agui_notebook.demo [--host H] [--port P]``: same as ``agui-notebook demo-server``."""

from __future__ import annotations

import sys

from agui_notebook.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["demo-server", *sys.argv[1:]]))

"""The package's version (pyproject.toml has the same), in a module of its own so that any layer can
read it without importing the package's public face."""

__version__ = "0.1.0"

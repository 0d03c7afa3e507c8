"""What real AG-UI servers do that the spec does not say: one dialect per framework. Pure.

Each module is one framework's :class:`~agui_notebook._frameworks.dialect.Dialect` (Microsoft
Agent Framework, Google ADK, CrewAI, LangGraph, Strands, and the flat ``toolName`` metadata the demo and
others send). The rest of the client asks ``registry``, never a dialect by name: a new framework
is a new module here and one line in ``registry``.

May import: ``_errors`` and ag_ui.core/pydantic. Imported from outside only through ``registry``.
"""

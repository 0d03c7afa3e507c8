"""What a person sees: the chat view widget and its text and HTML forms.

Owns the anywidget (``widget``: state, validated front-end messages, the committed bundle found by
``static``), and a view's deterministic transcript (``transcript``, ``blocks``,
``transcript_genui``: its text/plain) and inert HTML (``html``: its text/html), which saved
notebooks, nbval and viewers without a kernel show; a preview's display data made safe for a card
(``preview``). The transcript modules and ``preview`` are pure.

May import: ``_state`` (display items), ``_decisions``, ``_errors``. anywidget, traitlets and
ipywidgets live in ``widget`` only.
"""

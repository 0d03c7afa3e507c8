"""A thread's state, reduced from verified events. Pure: no I/O, no event loop, no widgets.

Owns the reducer (events -> messages, tool calls, state, outcome; copy on write; what a thread
holds in ``contents``, messages not built yet in ``drafts``, the shared state in
``shared_state``), a run's feed (event texts or models -> the verifier, the reducer, what the
run keeps), RFC 6902 patches, the history a run sends back (``history``), and the view's display
items (``items``, with content ``parts``, activity and A2UI surfaces in ``genui`` and ``a2ui``).

May import: ``_protocol``, ``_decisions``, the framework registry (``_frameworks.registry``),
``_errors``. Never a side-effect room.
"""

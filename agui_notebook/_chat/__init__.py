"""Chat: a thread with a live view, where a click (or a policy) answers an interrupt in-cell.

Owns the turn (``chat``), composed of collaborators that each keep their own state: the
``streamer`` (a run streamed into a view, pushes coalesced), the card deck (``cards``: cards, their
state on the view, the audit records), the ``decider`` (rules, policy, a person's click, the
timeout; each decision sent once), A2UI surface actions (``surfaces``), the result (``result``) and
the words a chat shows (``texts``); previews and checks on each card and the verdict after it
(``informed``, running the notebook's functions bounded through ``previews``); and the ``inbox``, a
card per approval waiting in a store. The notebook around it is reached through a host
(``_notebook``).

May import: every room below it (``_thread``, ``_view``, ``_notebook``, ``_store``'s items, the
pure rooms), never ``_agent`` or recording.
"""

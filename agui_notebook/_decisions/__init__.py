"""Interrupts and the decisions that answer them. Pure: no I/O, no event loop, no widgets.

Owns :class:`PendingInterrupt` (an interrupt with its tool, arguments and expiry resolved, through
the framework registry), decisions (approve, reject, edit, cancel, answer) and how they become
resume entries shaped by each interrupt's ``responseSchema`` (``decision``), and the audit's
records, canonical JSON and hash chain (``audit``), who clicked (``identity``: a click's message
header made into the person an entry names), who decided (``decided_by``: a person, a policy, a
rule, a timeout, as a value, and the texts it becomes), several approvers (``quorum``: counting
approvals until enough different people agree), what a decision was informed by (``evidence``)
and whether what ran is what was decided (``verdict``).

May import: ``_protocol``, the framework registry (``_frameworks.registry``), ``_errors``.
"""

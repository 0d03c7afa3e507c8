"""The bound on click-to-resume latency in the browser tests (issue 18).

The README's target is 150 ms from a click on Approve to the resume arriving at the server; on
the project machine the median is about 20 ms from the page's click event. A timed test on a
shared 2-core machine must not fail on noise, so the check is generous: it fails when the median
is over 600 ms, four times the target, which a regression of several times still crosses.
"""

from __future__ import annotations

import statistics

TARGET_MS = 150.0
LIMIT_MS = 4 * TARGET_MS


def check_latency(values_ms: list[float], *, limit_ms: float = LIMIT_MS) -> float:
    """The median of ``values_ms``; AssertionError (with every figure) when it is over the limit."""
    assert values_ms, "no latency was measured"
    median = statistics.median(values_ms)
    figures = ", ".join(f"{v:.0f}" for v in values_ms)
    assert median <= limit_ms, (
        f"click-to-resume median {median:.0f} ms is over {limit_ms:.0f} ms "
        f"({limit_ms / TARGET_MS:.0f}x the {TARGET_MS:.0f} ms target); all runs: {figures} ms"
    )
    return median

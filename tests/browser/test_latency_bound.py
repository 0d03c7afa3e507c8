"""The latency bound itself, without a browser: it passes what the project machine measures and
fails a regression of several times, naming the figures (runs in the main pytest step)."""

from __future__ import annotations

import pytest
from _latency import LIMIT_MS, TARGET_MS, check_latency


def test_the_bound_is_generous_but_catches_a_regression_of_several_times() -> None:
    assert LIMIT_MS == 4 * TARGET_MS == 600
    assert check_latency([20.0, 32.0, 18.0, 25.0, 21.0, 19.0]) == 20.5  # measured: ~20 ms
    assert check_latency([150.0, 590.0, 600.0]) == 590.0  # slow, still within the bound
    with pytest.raises(AssertionError, match=r"median 640 ms is over 600 ms .*: 610, 640, 700"):
        check_latency([610.0, 640.0, 700.0])  # the target missed four times over


def test_nothing_measured_is_a_failure_not_a_pass() -> None:
    with pytest.raises(AssertionError, match="no latency was measured"):
        check_latency([])

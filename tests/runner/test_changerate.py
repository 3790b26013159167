"""Poisson change-rate estimate (Cho & Garcia-Molina 2003) and the report flags."""

from __future__ import annotations

import math

import pytest

from anchorpath.runner.changerate import PRIOR_RATE, assess, poisson_rate


def test_formula() -> None:
    # λ̂ = −ln(1 − (X + 0.5)/(n + 1)) / I
    assert poisson_rate(7, 14, 1.0) == pytest.approx(-math.log(1 - 7.5 / 15))
    assert poisson_rate(0, 14, 1.0) == pytest.approx(-math.log(1 - 0.5 / 15))
    assert poisson_rate(14, 14, 1.0) == pytest.approx(-math.log(1 - 14.5 / 15))
    assert poisson_rate(3, 20, 2.0) == pytest.approx(-math.log(1 - 3.5 / 21) / 2.0)
    # Every visit changed: finite (the +0.5/+1 correction), and above the naive X/n = 1.
    assert math.isfinite(poisson_rate(30, 30)) and poisson_rate(30, 30) > 1.0


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError):
        poisson_rate(5, 3)
    with pytest.raises(ValueError):
        poisson_rate(1, 3, 0)


def test_prior_before_14_runs() -> None:
    r = assess([True] * 13)
    assert r.from_prior and r.rate == PRIOR_RATE
    assert not r.burst and not r.silent_stop
    r = assess([True] * 14)
    assert not r.from_prior and r.rate == pytest.approx(poisson_rate(14, 14))


def test_burst_flag() -> None:
    history = [False] * 40 + [i % 3 == 0 for i in range(6)] + [True] * 14
    r = assess(history)
    assert r.recent_rate is not None and r.recent_rate >= 3 * r.rate
    assert r.burst


def test_silent_stop_flag() -> None:
    busy = [True, True, False] * 10  # λ̂ ≈ 1/day
    assert not assess(busy).silent_stop
    r = assess(busy + [False] * 6)
    assert r.quiet_runs == 7  # includes the trailing False of the pattern
    assert r.p_quiet == pytest.approx(math.exp(-r.rate * 7))
    assert r.silent_stop
    assert not assess(busy + [False] * 2).silent_stop

"""The replayed runs gated one after another: the cycle collector paused while they come back."""

from __future__ import annotations

import gc

import pytest

from anchorpath.runner.replay.gate import cycles_uncollected


def test_cycle_collection_pauses_while_runs_come_back_and_resumes() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), cycles_uncollected():
        assert not gc.isenabled()
        raise RuntimeError("a failed replay")
    assert gc.isenabled()
    gc.disable()
    try:
        with cycles_uncollected():
            pass
        assert not gc.isenabled()  # the caller's choice stands
    finally:
        gc.enable()

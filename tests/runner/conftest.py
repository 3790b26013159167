"""Fixtures of the many-sites tests (``run --all``, ``replay``, the Dask executor)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """A real ``distributed.LocalCluster``: two worker processes, one thread each."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # never the fixed 8787: other clusters may run
        silence_logs=50,
    ) as cluster:
        yield cluster

"""Executors: ``--executor`` parsing and the local thread pool (worker processes: see
test_workers.py; Dask: test_dask.py)."""

from __future__ import annotations

from typing import Any

import pytest

from anchorpath._errors import ConfigError
from anchorpath.runner.executor import ExecutorSpec, LocalExecutor, open_executor, parse_executor
from anchorpath.runner.progress import Note


def test_parse_executor_local_and_dask() -> None:
    assert parse_executor("local") == ExecutorSpec("local")
    assert parse_executor("dask://127.0.0.1:8786") == ExecutorSpec("dask", "tcp://127.0.0.1:8786")
    assert parse_executor("tcp://sched.example:8786").address == "tcp://sched.example:8786"
    assert str(parse_executor("dask://10.0.0.5:8786")) == "dask://10.0.0.5:8786"


def test_parse_executor_local_worker_processes() -> None:
    assert parse_executor("local:2") == ExecutorSpec("local", processes=2)
    assert str(parse_executor(" local:4 ")) == "local:4"
    for bad in ("local:0", "local:x", "local:", "local:300"):
        with pytest.raises(ConfigError) as err:
            parse_executor(bad)
        assert "\n" not in str(err.value) and "local" in str(err.value)


@pytest.mark.parametrize("text", ["dask", "dask://host", "dask://host:0", "ray://h:1", "dask://:1"])
def test_parse_executor_rejects_bad_addresses_in_one_line(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_executor(text)
    assert "\n" not in str(err.value) and "dask://HOST:PORT" in str(err.value)


def _square(progress: Any, item: int) -> int:
    progress(Note(str(item)))
    if item == 3:
        raise ValueError("three")
    return item * item


def test_local_executor_returns_results_and_exceptions_by_index() -> None:
    seen: list[Any] = []
    pool = open_executor(ExecutorSpec("local"))
    assert isinstance(pool, LocalExecutor)
    out = dict(
        pool.run(
            _square,
            [1, 2, 3, 4],
            progress=seen.append,
            io_bound=True,
            max_in_flight=2,
        )
    )
    pool.close()
    assert {i: out[i] for i in (0, 1, 3)} == {0: 1, 1: 4, 3: 16}
    assert isinstance(out[2], ValueError)
    assert sorted(int(e.message) for e in seen) == [1, 2, 3, 4]

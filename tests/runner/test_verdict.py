"""Verdicts are typed; text from the database becomes one or a one-line error."""

from __future__ import annotations

import pytest

from anchorpath._errors import StoreError
from anchorpath.runner.run_types import EXIT_BY_VERDICT
from anchorpath.runner.verdict import COMMITTED, VERDICTS, parse_verdict


def test_parse_verdict() -> None:
    assert [parse_verdict(v, "db") for v in VERDICTS] == list(VERDICTS)
    with pytest.raises(
        StoreError, match=r"^db: run r1: unknown verdict 'okay' \(expected one of ok, "
    ):
        parse_verdict("okay", "db: run r1")


def test_every_exit_code_and_committed_verdict_is_a_verdict() -> None:
    assert set(EXIT_BY_VERDICT) <= set(VERDICTS) and set(COMMITTED) <= set(VERDICTS)

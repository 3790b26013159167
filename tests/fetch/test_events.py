"""Fetch events and counters: secrets redacted from URLs, counter names checked by type."""

from __future__ import annotations

from dataclasses import fields
from typing import get_args

from anchorpath.fetch.events import CounterName, FetchCounters, redact_url


def test_redact_url() -> None:
    url = "https://user:pw@h.org/p?api_key=123&q=books&x=" + "A" * 30 + "#frag"
    out = redact_url(url)
    assert "user" not in out and "pw@" not in out and "123" not in out and "A" * 30 not in out
    assert "q=books" in out and out.startswith("https://h.org/p?")


def test_counter_names_are_the_counters_fields() -> None:
    names = {f.name for f in fields(FetchCounters) if not f.name.startswith("_")}
    assert set(get_args(CounterName)) == names

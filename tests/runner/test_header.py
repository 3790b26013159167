"""The policy header's typed model and its ``report.json`` boundary."""

from __future__ import annotations

import json

from anchorpath.runner.header import Completion, PolicyHeader, RobotsLine, StopLine, TermsLine
from anchorpath.runner.policy.header import header_html, header_markdown


def _header() -> PolicyHeader:
    return PolicyHeader(
        basis="public-notice",
        purpose="monitoring",
        retention_days=90,
        store_raw=False,
        robots=(
            RobotsLine("https://a.example", "parsed", "2026-01-01T00:00:00Z", "ab" * 32),
            RobotsLine("https://b.example", "unreachable", detail="503"),
        ),
        terms=TermsLine("https://a.example/terms", "cd" * 32, "2026-01-01T00:00:00Z"),
        completion=Completion(3, 4, excluded=("https://a.example/x",), gone=("https://a/y",)),
        stop=StopLine("robots-changed", "robots.txt now disallows /", "-a\n+b"),
    )


def test_round_trip_through_json_is_equal() -> None:
    h = _header()
    text = json.dumps(h.to_dict(), ensure_ascii=False)
    assert PolicyHeader.from_dict(json.loads(text)) == h
    assert (
        json.dumps(PolicyHeader.from_dict(json.loads(text)).to_dict(), ensure_ascii=False) == text
    )


def test_json_shape_is_the_reports() -> None:
    d = _header().to_dict()
    assert list(d) == [
        "basis",
        "purpose",
        "retention_days",
        "store_raw",
        "robots",
        "terms",
        "completion",
        "stop",
    ]
    assert list(d["robots"][0]) == ["origin", "kind", "fetched_at", "sha256", "detail"]
    assert list(d["terms"]) == ["url", "sha256", "fetched_at", "error"]
    assert d["completion"]["rate"] == 0.75 and d["completion"]["line"].startswith("valid")
    assert d["stop"] == {
        "cause": "robots-changed",
        "reason": "robots.txt now disallows /",
        "diff": "-a\n+b",
    }


def test_broken_keys_get_defaults() -> None:
    h = PolicyHeader.from_dict({"robots": "x", "completion": None, "stop": {}})
    assert h.robots == () and h.completion == Completion(0, 0) and h.stop is None
    assert h.store_raw


def test_renderers_read_the_model() -> None:
    md = "\n".join(header_markdown(_header()))
    assert "basis: public-notice" in md and "sha256 " + "ab" * 32 in md
    assert "unreachable (503)" in md and "**Stopped (robots-changed):**" in md
    assert "```diff\n-a\n+b\n```" in md and "raw pages: not kept" in md
    assert "<pre>-a\n+b</pre>" in "\n".join(header_html(_header()))
    assert header_markdown(None) == [] and header_html(None) == []

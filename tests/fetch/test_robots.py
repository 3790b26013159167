"""robots.txt matcher: RFC 9309 conformance cases, the debugger's deciding lines, edge cases."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from anchorpath.fetch.robots import parse_robots, path_of, product_token

CASES_FILE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "robots"
CASES_FILE = CASES_FILE / "rfc9309-cases.json"


def _load_cases() -> list[dict[str, object]]:
    if not CASES_FILE.is_file():
        return []
    return list(json.loads(CASES_FILE.read_text(encoding="utf-8")))


CASES = _load_cases()
STANDARD = [c for c in CASES if not c["google_specific"]]
GOOGLE = [c for c in CASES if c["google_specific"]]


def _answer(case: dict[str, object]) -> bool:
    body = base64.b64decode(str(case["robots_txt_b64"]))
    return parse_robots(body).allowed(str(case["user_agent"]), str(case["url"]))


@pytest.mark.skipif(not CASES, reason="../shared/data/robots not present")
@pytest.mark.parametrize("case", STANDARD, ids=[str(c["id"]) for c in STANDARD])
def test_standard_case(case: dict[str, object]) -> None:
    assert _answer(case) is case["allowed"], case.get("note", "")


#: Google-specific cases where we knowingly answer differently (Google treats
#: ``Allow: /dir/index.html`` as allowing ``/dir/``; we do not, which is stricter).
GOOGLE_DIFFERS = {"spec:correctness__index-page:0:0"}


@pytest.mark.skipif(not CASES, reason="../shared/data/robots not present")
def test_google_specific_cases_differ_only_where_known() -> None:
    """Google-specific cases are not required; a new disagreement fails with the full table."""
    rows = {str(c["id"]): (bool(c["allowed"]), _answer(c)) for c in GOOGLE}
    differ = {i for i, (google, ours) in rows.items() if google is not ours}
    table = "\n".join(f"{i}: google={g} ours={o}" for i, (g, o) in sorted(rows.items()))
    assert differ <= GOOGLE_DIFFERS, table


ACCEPTANCE = b"User-agent: *\nDisallow: /\nAllow: /public/\n\nUser-agent: Googlebot\nAllow: /\n"


@pytest.mark.parametrize(
    ("agent", "url", "allowed", "line"),
    [
        ("Googlebot", "https://example.com/secret", True, 6),
        ("Bingbot", "https://example.com/secret", False, 2),
        ("Bingbot", "https://example.com/public/x", True, 3),
    ],
)
def test_acceptance_deciding_line(agent: str, url: str, allowed: bool, line: int) -> None:
    decision = parse_robots(ACCEPTANCE).decide(agent, url)
    assert (decision.allowed, decision.line) == (allowed, line)


def test_crlf_counts_one_line_and_rule_text() -> None:
    body = b"User-agent: *\r\n\r\nDisallow: /a # no\r\n"
    d = parse_robots(body).decide("x", "http://h/a/b")
    assert (d.allowed, d.line, d.rule) == (False, 3, "Disallow: /a # no")


def test_merged_groups_and_warning() -> None:
    body = (
        b"User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /\n\nUser-agent: A\nAllow: /x/y\n"
    )
    robots = parse_robots(body)
    assert not robots.allowed("a", "http://h/x/z")
    assert robots.decide("a", "http://h/x/y").line == 8
    assert any("named in 2 groups" in w for w in robots.warnings)


def test_warnings() -> None:
    body = (
        b"Sitemap: /sitemap.xml\nFoo: bar\nUser-agent *\nDisallow /x\nDisallow: /y\n"
        b"Crawl-delay: 7\nHost: example.com\n"
    )
    robots = parse_robots(body)
    text = "\n".join(robots.warnings)
    assert "relative Sitemap" in text
    assert "unknown directive 'Foo'" in text
    assert "missing colon" in text
    assert "Host" not in text
    assert robots.crawl_delay("any") == 7.0
    assert not robots.allowed("any", "http://h/x")


def test_size_cap_drops_partial_line() -> None:
    body = b"User-agent: *\nDisallow: /private-area\n"
    robots = parse_robots(body, max_bytes=25)
    assert robots.allowed("x", "http://h/p")  # not shortened to "Disallow: /p"
    assert any("content past 25 bytes" in w for w in robots.warnings)


def test_html_warning() -> None:
    robots = parse_robots(b"<!DOCTYPE html><html><body>Not found</body></html>")
    assert any("HTML" in w for w in robots.warnings)
    assert robots.allowed("x", "http://h/anything")


def test_wildcards_and_percent() -> None:
    robots = parse_robots(b"User-agent: *\nDisallow: /*.pdf$\nDisallow: /caf\xc3\xa9\n")
    assert not robots.allowed("x", "http://h/a/b.pdf")
    assert robots.allowed("x", "http://h/a/b.pdf?x=1")
    assert not robots.allowed("x", "http://h/caf%C3%A9/menu")


def test_path_of_and_token() -> None:
    assert path_of("http://h") == "/"
    assert path_of("http://h/a?b#c") == "/a?b"
    assert path_of("http://h?q=1") == "/?q=1"
    assert product_token("anchorpath/0.1 (+x)") == "anchorpath"

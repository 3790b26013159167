"""The demo server over loopback HTTP: encoding, validators, robots, modes, days."""

from __future__ import annotations

import email.utils
from collections.abc import Callable
from typing import Any

import pytest

from anchorpath.demo import DemoServer, expected_events, expected_records, records_for_day
from anchorpath.demo.data import LABELS, REG_NO_PATTERN
from anchorpath.demo.pages import detail_path

Fetch = Callable[..., Any]


def test_html_is_served_as_euc_kr(demo: DemoServer, http: Fetch) -> None:
    resp = http(demo.list_url(1))
    assert resp.status == 200
    assert resp.headers["content-type"] == "text/html; charset=euc-kr"
    assert int(resp.headers["content-length"]) == len(resp.body)
    text = resp.body.decode("cp949")
    assert "charset=euc-kr" in text and "원료의약품" in text
    assert "원료의약품".encode("euc_kr") in resp.body


def test_unknown_paths_and_records_are_404(demo: DemoServer, http: Fetch) -> None:
    assert http(demo.url("/nope")).status == 404
    assert http(demo.url("/dmf/view.do?regNo=%EC%88%989999-1-ND")).status == 404
    assert http(demo.url("/dmf/list.do?page=abc")).status == 400
    assert http(demo.url("/dmf/list.do?page=99")).status == 200  # empty page, as boards do


def test_detail_accepts_utf8_and_cp949_query_encoding(demo: DemoServer, http: Fetch) -> None:
    from urllib.parse import quote

    reg_no = records_for_day(1)[0].reg_no
    a = http(demo.url(detail_path(reg_no)))
    b = http(demo.url("/dmf/view.do?regNo=" + quote(reg_no.encode("cp949"))))
    assert a.status == b.status == 200 and a.body == b.body


def test_etag_and_last_modified_give_304(demo: DemoServer, http: Fetch) -> None:
    url = demo.detail_url(records_for_day(1)[5].reg_no)
    first = http(url)
    etag, lm = first.headers["etag"], first.headers["last-modified"]
    assert etag.startswith('"') and email.utils.parsedate_to_datetime(lm)
    assert http(url, {"If-None-Match": etag}).status == 304
    assert http(url, {"If-None-Match": f'"other", W/{etag}'}).status == 304
    assert http(url, {"If-Modified-Since": lm}).status == 304
    assert http(url, {"If-None-Match": '"stale"'}).status == 200
    # If-None-Match wins over If-Modified-Since (RFC 9110)
    assert http(url, {"If-None-Match": '"stale"', "If-Modified-Since": lm}).status == 200
    assert http(url, {"If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"}).status == 200
    assert http(url, {"If-Modified-Since": "garbage"}).status == 200
    head = http(url, method="HEAD")
    assert head.status == 200 and head.body == b"" and head.headers["etag"] == etag


def test_validators_follow_the_days(http: Fetch) -> None:
    ev = expected_events(1, 2)
    (changed,) = ev.changed
    with DemoServer(day=1) as srv:
        urls = [srv.detail_url(r.reg_no) for r in records_for_day(1)]
        day1 = {u: http(u) for u in urls}
        srv.set_day(2)
        day2 = {u: http(u, {"If-None-Match": day1[u].headers["etag"]}) for u in urls}
    statuses = {u: r.status for u, r in day2.items()}
    withdrawn = {srv.url(detail_path(k)) for k in ev.withdrawn}
    assert {u for u, s in statuses.items() if s == 404} == withdrawn
    assert statuses[srv.url(detail_path(changed))] == 200
    # untouched pages (no change to the record or its neighbours) answer 304 on day 2
    assert sum(s == 304 for s in statuses.values()) >= 40
    # the changed page's Last-Modified moved to day 2; an untouched one kept day 1's
    lm = day2[srv.url(detail_path(changed))].headers["last-modified"]
    assert email.utils.parsedate_to_datetime(lm).date().isoformat() == "2024-03-04"  # 00:00 KST
    unchanged = next(u for u, r in day2.items() if r.status == 304)
    assert day2[unchanged].headers["last-modified"] == day1[unchanged].headers["last-modified"]


def test_robots_txt_and_admin(demo: DemoServer, http: Fetch) -> None:
    robots = http(demo.url("/robots.txt"))
    assert robots.status == 200 and robots.headers["content-type"].startswith("text/plain")
    assert b"Disallow: /admin/" in robots.body
    assert http(demo.url("/admin/login.do")).status == 200  # exists; robots forbids it
    assert b'href="/admin/login.do"' in http(demo.list_url(1)).body  # and pages link to it


def test_request_log(demo: DemoServer, http: Fetch) -> None:
    http(demo.list_url(2))
    http(demo.url("/nope"))
    log = demo.request_log
    assert [(m, p, s) for _t, m, p, s in log] == [
        ("GET", "/dmf/list.do?page=2", 200),
        ("GET", "/nope", 404),
    ]
    assert all(isinstance(t, float) for t, *_ in log)
    demo.clear_log()
    assert demo.request_log == []


def test_refuse_mode(http: Fetch) -> None:
    with DemoServer(day=1, mode="refuse") as srv:
        assert http(srv.url("/robots.txt")).status == 200
        for path in ("/", "/dmf/list.do?page=1", "/dmf/view.do?regNo=x", "/nope"):
            assert http(srv.url(path)).status == 403


def test_login_mode_is_a_200_login_wall(http: Fetch) -> None:
    reg_no = records_for_day(1)[0].reg_no
    with DemoServer(day=1, mode="login") as srv:
        for url in (srv.list_url(1), srv.detail_url(reg_no)):
            resp = http(url)
            assert resp.status == 200
            text = resp.body.decode("cp949")
            assert 'type="password"' in text and "로그인" in text
            assert reg_no not in text
        assert b"Disallow: /admin/" in http(srv.url("/robots.txt")).body
        srv.set_mode("normal")
        assert reg_no in http(srv.list_url(1)).body.decode("cp949")


def test_robots_deny_mode(http: Fetch) -> None:
    with DemoServer(day=1, mode="robots-deny") as srv:
        assert http(srv.url("/robots.txt")).body == b"User-agent: *\nDisallow: /\n"
        assert http(srv.list_url(1)).status == 200  # the server does not enforce robots


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="mode"):
        DemoServer(mode="weird")
    with pytest.raises(ValueError, match="day"):
        DemoServer(day=0)
    srv = DemoServer(day=1)
    with pytest.raises(RuntimeError):
        _ = srv.base_url


@pytest.mark.parametrize("day", [1, 2, 4])
def test_pagination_covers_every_record(day: int, crawl_site: Any) -> None:
    with DemoServer(day=day) as srv:
        result = crawl_site(srv)
        log = srv.request_log
    truth = expected_records(day)
    assert len(result.list_urls) == -(-len(truth) // 10)
    assert [r["reg_no"] for r in result.list_records] == [t["reg_no"] for t in truth]
    assert result.records == truth
    assert not any(result.missing)
    assert not [p for _t, _m, p, _s in log if p.startswith("/admin")]


def test_day2_events_seen_over_http_are_exactly_the_expected_ones(crawl_site: Any) -> None:
    with DemoServer(day=1) as srv:
        day1 = {r["reg_no"]: r for r in crawl_site(srv).records}
        srv.set_day(2)
        day2 = {r["reg_no"]: r for r in crawl_site(srv).records}
    truth = expected_events(1, 2)
    assert set(day2) - set(day1) == set(truth.new)
    assert set(day1) - set(day2) == set(truth.withdrawn)
    differing = {k for k in day1.keys() & day2.keys() if day1[k] != day2[k]}
    assert differing == set(truth.changed) | set(truth.trivial)
    for key, fields in truth.changed.items():
        assert {f for f in day1[key] if day1[key][f] != day2[key][f]} == set(fields)
    for key in truth.trivial:
        assert {f for f in day1[key] if day1[key][f] != day2[key][f]} == {"remarks"}


def test_day3_template_change_breaks_the_day2_selectors(crawl_site: Any) -> None:
    with DemoServer(day=3) as srv:
        result = crawl_site(srv)
    assert len(result.records) == len(records_for_day(3))  # structure hooks still work
    broken = {n for n, label in LABELS["classic"].items() if LABELS["renewal"][n] != label}
    required_broken = broken & {
        "ingredient",
        "applicant",
        "manufacturer",
        "registered_on",
        "status",
    }
    for missing in result.missing:
        assert set(missing) == required_broken
    for rec in result.records:
        assert all(rec[n] is None for n in broken)
        assert rec["reg_no"] is not None  # 등록번호 kept its label
    for row in result.list_records:
        assert row["ingredient"] is None and row["applicant"] is None


def test_forced_template_and_reg_no_pattern(crawl_site: Any) -> None:
    import re

    with DemoServer(day=3, template="classic") as srv:
        result = crawl_site(srv)
    assert result.records == expected_records(3)
    assert all(re.match(REG_NO_PATTERN, r["reg_no"]) for r in result.records)

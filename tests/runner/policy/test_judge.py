"""The pure stop decision: which observations stop a site and which do not."""

from __future__ import annotations

from anchorpath.fetch.robots_policy import RobotsSeen
from anchorpath.runner.header import TermsLine
from anchorpath.runner.policy.judge import judge, robots_diff
from anchorpath.runner.policy.observe import PolicySeen, Refusal

ORIGIN = "https://example.org"
OPEN = RobotsSeen(
    ORIGIN, "parsed", "2026-12-01T06:00:00Z", "a" * 64, "User-agent: *\nDisallow: /x/\n"
)
SHUT = RobotsSeen(
    ORIGIN, "parsed", "2026-12-02T06:00:00Z", "b" * 64, "User-agent: *\nDisallow: /\n"
)
NEEDED = {ORIGIN: [f"{ORIGIN}/list?page=1", f"{ORIGIN}/view?id=1"]}


def _judge(seen: PolicySeen, **kw: object) -> object:
    args: dict[str, object] = {
        "previous_robots": {ORIGIN: OPEN},
        "previous_terms": None,
        "unreachable_since": {},
        "needed": NEEDED,
        "token": "anchorpath",
        "pages_read": 3,
        "now": "2026-12-02T06:00:00Z",
    }
    args.update(kw)
    return judge(seen, **args)  # type: ignore[arg-type]


def test_a_robots_change_that_removes_access_stops_with_the_diff() -> None:
    stop = _judge(PolicySeen(robots=[SHUT]))
    assert stop is not None and stop.cause == "robots-changed"  # type: ignore[attr-defined]
    assert "2 URL(s)" in stop.reason and stop.diff == robots_diff(OPEN, SHUT)  # type: ignore[attr-defined]
    assert "-Disallow: /x/" in robots_diff(OPEN, SHUT)


def test_a_robots_change_that_keeps_access_does_not_stop() -> None:
    other = RobotsSeen(ORIGIN, "parsed", None, "c" * 64, "User-agent: *\nDisallow: /admin/\n")
    assert _judge(PolicySeen(robots=[other])) is None
    assert _judge(PolicySeen(robots=[SHUT]), previous_robots={}) is None  # first run


def test_terms_change_stops_and_a_first_terms_read_does_not() -> None:
    seen = PolicySeen(terms=TermsLine(f"{ORIGIN}/terms", "d" * 64))
    assert _judge(seen) is None
    stop = _judge(seen, previous_terms="e" * 64)
    assert stop is not None and stop.cause == "terms-changed"  # type: ignore[attr-defined]
    failed = PolicySeen(terms=TermsLine(f"{ORIGIN}/terms", None, error="FetchFailed: 503"))
    assert _judge(failed, previous_terms="e" * 64) is None  # unreachable is not changed


def test_refusals_that_stop_and_those_that_only_block() -> None:
    def refused(reason: str, via: str, pages: int = 3) -> object:
        r = Refusal(reason, f"{ORIGIN}/p", via, f"{ORIGIN}/p: {reason}")
        return _judge(PolicySeen(refusal=r), pages_read=pages)

    assert refused("http-403", "start").cause == "refused"  # type: ignore[attr-defined]
    assert refused("http-403", "follow") is None  # a detail page: blocked, not stopped
    assert refused("circuit-open", "follow").cause == "rate-limited"  # type: ignore[attr-defined]
    assert refused("robots-4xx", "start").cause == "refused"  # type: ignore[attr-defined]
    assert refused("login-wall", "follow", pages=0).cause == "walls"  # type: ignore[attr-defined]
    assert refused("login-wall", "follow", pages=5) is None  # one wall after good pages


def test_robots_unreachable_past_the_grace_period_stops() -> None:
    down = RobotsSeen(ORIGIN, "unreachable", detail="HTTP 503")
    seen = PolicySeen(robots=[down])
    assert _judge(seen, unreachable_since={ORIGIN: "2026-11-20T06:00:00Z"}) is None
    stop = _judge(seen, unreachable_since={ORIGIN: "2026-10-01T06:00:00Z"})
    assert stop is not None and stop.cause == "robots-unreachable"  # type: ignore[attr-defined]
    assert "30 days" in stop.reason  # type: ignore[attr-defined]


def test_previous_keeps_the_last_readable_robots_and_the_failing_streak(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from anchorpath.runner.policy.site import previous
    from anchorpath.runner.store.database import Store
    from anchorpath.runner.store.governance import record_policy

    down = RobotsSeen(ORIGIN, "unreachable", detail="HTTP 503")
    rows = [
        ("r1", "2026-10-01T06:00:00Z", [OPEN], "a" * 64),
        ("r2", "2026-10-02T06:00:00Z", [down], None),
        ("r3", "2026-10-03T06:00:00Z", [down], None),
    ]
    with Store(tmp_path / "s.sqlite") as store:
        for run_id, at, robots, terms in rows:
            seen = PolicySeen(robots=robots, terms=TermsLine("t", terms) if terms else None)
            record_policy(store, run_id=run_id, site="s", at=at, seen=seen.to_dict())
        before = previous(store, "s")
    assert before.robots[ORIGIN].sha256 == OPEN.sha256 and before.terms == "a" * 64
    assert before.unreachable_since == {ORIGIN: "2026-10-02T06:00:00Z"}

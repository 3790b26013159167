"""``ReplayedRun.same_events``: the replayed events against those the store recorded."""

from __future__ import annotations

from anchorpath.runner.replay.report import ReplayedRun
from anchorpath.runner.store.database import Event


def _run(events: list[Event], original: list[Event]) -> ReplayedRun:
    return ReplayedRun("r1", "2026-12-01", "ok", 1, events=events, original_events=original)


def test_new_events_compare_with_their_values() -> None:
    new = Event("B1", "new", {"title": (None, "Game Over")})
    assert _run([new], [new]).same_events()
    other = Event("B1", "new", {"title": (None, "Game Over, 2nd ed.")})
    assert not _run([other], [new]).same_events()


def test_a_new_event_stored_without_values_compares_by_key() -> None:
    """Runs committed before new events carried their values are not reported as different."""
    replayed = [Event("B1", "new", {"title": (None, "Game Over")}), Event("B2", "withdrawn")]
    assert _run(replayed, [Event("B1", "new"), Event("B2", "withdrawn")]).same_events()
    assert not _run(replayed, [Event("B9", "new"), Event("B2", "withdrawn")]).same_events()

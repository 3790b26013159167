"""``same_events``: the replayed events against those the store recorded."""

from __future__ import annotations

from anchorpath.runner.replay.report import same_events
from anchorpath.runner.store.database import Event


def test_new_events_compare_with_their_values() -> None:
    new = Event("B1", "new", {"title": (None, "Game Over")})
    assert same_events([new], [new])
    other = Event("B1", "new", {"title": (None, "Game Over, 2nd ed.")})
    assert not same_events([other], [new])


def test_a_new_event_stored_without_values_compares_by_key() -> None:
    """Runs committed before new events carried their values are not reported as different."""
    replayed = [Event("B1", "new", {"title": (None, "Game Over")}), Event("B2", "withdrawn")]
    assert same_events(replayed, [Event("B1", "new"), Event("B2", "withdrawn")])
    assert not same_events(replayed, [Event("B9", "new"), Event("B2", "withdrawn")])

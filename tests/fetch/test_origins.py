"""Per-origin state, alone or shared between fetchers (``run --all``)."""

from __future__ import annotations

from anchorpath.fetch.origins import Origins, SharedPoliteness
from anchorpath.fetch.pacing import PacingPolicy


def _origins(policy: PacingPolicy, shared: SharedPoliteness | None) -> Origins:
    return Origins(
        policy,
        clock=lambda: 0.0,
        sleep=lambda s: None,
        on_event=None,
        started=0.0,
        table=shared.table if shared else None,
    )


def test_fetchers_sharing_a_registry_share_each_origins_state() -> None:
    shared = SharedPoliteness(4)
    a = _origins(PacingPolicy(2.0, 5.0, 30.0), shared)
    b = _origins(PacingPolicy(2.0, 5.0, 30.0), shared)
    assert a.get("https://x.example") is b.get("https://x.example")
    assert a.get("https://y.example") is not a.get("https://x.example")
    # a refusal seen by one site's fetcher stops the origin for the others too
    state = a.get("https://x.example")
    a.block(state, "https://x.example/p", "http-403", "403")
    assert b.get("https://x.example").blocked is not None


def test_a_slower_site_slows_the_shared_origin_down_never_the_reverse() -> None:
    shared = SharedPoliteness(4)
    fast = _origins(PacingPolicy(1.0, 5.0, 30.0), shared)
    slow = _origins(PacingPolicy(3.0, 2.0, 60.0), shared)
    gate = fast.get("https://x.example").gate
    slow.get("https://x.example")
    assert gate.policy == PacingPolicy(3.0, 5.0, 60.0)
    fast.get("https://x.example")
    assert gate.policy == PacingPolicy(3.0, 5.0, 60.0)


def test_without_a_registry_every_fetcher_has_its_own_origins() -> None:
    a = _origins(PacingPolicy(), None)
    b = _origins(PacingPolicy(), None)
    assert a.get("https://x.example") is not b.get("https://x.example")

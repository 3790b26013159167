"""The ``policy`` section authoring writes into a new selector file.

Without a person to ask (``--yes``, no terminal), authoring records conservative defaults and
says so: ``basis: robots`` (the one basis a run can check by itself: robots.txt must allow
every URL the site needs, and a change that removes access stops the site), a retention of
:data:`DEFAULT_RETENTION_DAYS` days, raw pages kept (repair and replay need them), and the
configured contact. A person edits the file (or answers the session's questions) to record a
stronger basis (an API, a feed, a sitemap, written permission), the purpose and the terms."""

from __future__ import annotations

from anchorpath.selectors.model import BASES, Policy

__all__ = ["DEFAULT_RETENTION_DAYS", "default_policy", "describe_policy"]

#: Retention written by ``--yes`` (``anchorpath purge`` applies it).
DEFAULT_RETENTION_DAYS = 365


def default_policy(contact: str | None) -> Policy:
    """The conservative policy of a file written without a person to ask."""
    return Policy(basis="robots", contact=contact, retention_days=DEFAULT_RETENTION_DAYS)


def describe_policy(policy: Policy) -> list[str]:
    """One line per setting, for the terminal."""
    return [
        f"basis: {policy.basis} (one of {', '.join(BASES)})",
        f"purpose: {policy.purpose or '(not stated: set policy.purpose)'}",
        f"contact: {policy.contact or '(none: set policy.contact)'}",
        f"terms_url: {policy.terms_url or '(none)'}",
        f"retention_days: {policy.retention_days}",
        f"store_raw: {'true' if policy.store_raw else 'false'}",
    ]

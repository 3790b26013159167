"""What a run observed of the rules it collects under: each origin's robots.txt (from the
fetcher, :class:`~anchorpath.fetch.robots_policy.RobotsSeen`), the terms page's text hash,
and the URLs robots.txt kept out. Picklable: gathered where the crawl ran (a worker), judged
where the store is (:mod:`~anchorpath.runner.policy.judge`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anchorpath._errors import AnchorpathError
from anchorpath.fetch.protocol import Fetcher
from anchorpath.fetch.robots_policy import RobotsSeen
from anchorpath.runner.header import TermsLine
from anchorpath.selectors.evaluate import parse_html

__all__ = ["PolicySeen", "Refusal", "observe_terms", "terms_digest"]


@dataclass(frozen=True)
class Refusal:
    """The refusal that ended a crawl: the fetcher's reason (``http-403``, ``circuit-open``,
    ``login-wall``, ``robots-4xx``, ``disallowed``, ``unavailable``, ...), the URL and how
    the crawl reached it (``start``, ``url``, ``next``, ``follow``)."""

    reason: str
    url: str
    via: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "url": self.url, "via": self.via, "message": self.message}


@dataclass
class PolicySeen:
    """One run's observations: robots.txt per origin, the terms page, robots-excluded URLs."""

    robots: list[RobotsSeen] = field(default_factory=list)
    terms: TermsLine | None = None
    excluded: list[str] = field(default_factory=list)
    refusal: Refusal | None = None
    #: the crawl did not start: the terms page changed since the last run
    terms_stop: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """What the store keeps of it (the refusal and exclusions live in the report)."""
        return {
            "robots": [r.to_dict() for r in self.robots],
            "terms": self.terms.to_dict() if self.terms else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PolicySeen:
        terms = d.get("terms")
        return cls(
            robots=[RobotsSeen.from_dict(r) for r in d.get("robots") or []],
            terms=TermsLine.from_dict(terms) if terms else None,
        )


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def terms_digest(body: bytes, charset: str | None) -> str:
    """sha256 of a page's visible text, whitespace folded (scripts and styles left out)."""
    doc = parse_html(body, charset, plain=True)
    found = doc.xpath("//text()[not(ancestor::script or ancestor::style or ancestor::noscript)]")
    texts = found if isinstance(found, list) else []
    text = re.sub(r"\s+", " ", " ".join(str(t) for t in texts)).strip()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def observe_terms(fetcher: Fetcher, url: str) -> TermsLine:
    """Fetch the terms page (politely, archived, unconditionally) and hash its text; an error
    is recorded, never raised (an unreachable terms page is not a changed one)."""
    try:
        res = fetcher.fetch(url, conditional=False)
    except AnchorpathError as exc:
        return TermsLine(url, None, _now(), f"{type(exc).__name__}: {exc}")
    return TermsLine(url, terms_digest(res.body, res.charset), _now())

"""What authoring is asked for and what it answers: field requests, example values, and
the per-field and per-page-type reports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.urlpattern import UrlPattern
from anchorpath.selectors.model import Anchor, Normalize, PageType, Pagination

#: ``{seed.source or seed.url: {field: value | [values, one per example record]}}``
Examples = Mapping[str, Mapping[str, "str | list[str] | None"]]


@dataclass(frozen=True)
class FieldRequest:
    """A field to author: its name, value type, optional description and whether required."""

    name: str
    type: str = "string"
    description: str | None = None
    required: bool = False


@dataclass(frozen=True)
class CandidateScore:
    """One XPath candidate as verification saw it."""

    xpath: str
    kind: str  # id | attribute | aria | label-text | structure | absolute | jsonld
    seeds_ok: bool  # reproduces the examples on every seed, nothing spurious
    robustness: float  # share of applicable mutations survived (0..1)
    anchor: Anchor | None = None
    normalize: Normalize = field(default_factory=Normalize)


@dataclass(frozen=True)
class FieldReport:
    """What authoring decided for one field, and why."""

    name: str
    xpath: str | None
    fallbacks: tuple[str, ...] = ()
    robustness: float | None = None
    leave_one_out_ok: bool | None = None
    candidates_considered: int = 0
    anchor: Anchor | None = None
    normalize: Normalize = field(default_factory=Normalize)
    ranking: tuple[CandidateScore, ...] = ()  # best first (at most 10)
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # also written to the field's metadata in the selector file


@dataclass(frozen=True)
class AuthoringResult:
    """One authored page type with per-field reports and everything worth telling a person."""

    page_type: PageType
    fields: Mapping[str, FieldReport]
    problems: tuple[str, ...] = ()
    pagination: Pagination | None = None
    seeds: tuple[SeedPage, ...] = ()
    elapsed: float = 0.0
    #: What the page type does not reproduce of the examples given (an example record left
    #: out, a field right on most seeds only), each also in ``problems``: the file is partial.
    shortfalls: tuple[str, ...] = ()
    #: How the page type's URL pattern was chosen and what it matches of the seeds' links.
    url_pattern: UrlPattern | None = None

    @property
    def record_root(self) -> str | None:
        return self.page_type.record_root

"""The top-level authoring API: seeds + field list + example values -> verified selectors.

Deterministic and LLM-free. For every field: ground the example values to DOM nodes on every
seed (``candidates.ground``), generate anchor-first XPath candidates (``candidates.xpathgen``),
keep those that reproduce the examples exactly on every seed, score them under synthetic DOM
mutations (``scoring.mutate`` / ``scoring.verify``) and keep the best plus up to two fallbacks.
List pages get a record root induced from the example records (``pages.records``) and field
XPaths relative to it.

Where the parts live: request and report types in ``reports.py``; choosing one field's XPath
(verify, mutation-score, rank, fallbacks) in ``scoring.choose``; the per-template work in
``pages.detail`` and ``pages.listing``; this module checks the input and assembles page
types and selector files.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._text import did_you_mean
from anchorpath._version import __version__
from anchorpath.authoring.candidates.ground import DocIndex
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.pages.detail import author_detail
from anchorpath.authoring.pages.listing import author_list
from anchorpath.authoring.pages.records import detect_pagination
from anchorpath.authoring.reports import (
    AuthoringResult,
    Examples,
    FieldRequest,
)
from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.urlpattern import Link, UrlPattern, induce_url_pattern, seed_links
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import (
    FIELD_TYPES,
    FetchSpec,
    PageType,
    Pagination,
    Provenance,
    Seed,
    SelectorFile,
    Site,
)
from anchorpath.selectors.page_url import is_http_url

__all__ = [
    "assemble_site",
    "author_page_type",
    "author_site",
    "site_id",
]


def _examples_for(seeds: Sequence[SeedPage], examples: Examples) -> list[Mapping[str, Any]]:
    out = []
    by_name = {Path(k).name: v for k, v in examples.items()}
    for s in seeds:
        ex = examples.get(s.source) or examples.get(s.url) or by_name.get(Path(s.source).name)
        if ex is None:
            raise AuthoringError(
                f"no example values for seed {s.source} (examples are keyed by seed path or URL; "
                f"given keys: {', '.join(list(examples)[:5]) or 'none'})"
            )
        out.append(ex)
    return out


def _check_fields(fields: Sequence[FieldRequest]) -> None:
    names = [f.name for f in fields]
    if not fields:
        raise AuthoringError("no fields to author")
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise AuthoringError(f"duplicate field name(s): {', '.join(sorted(dup))}")
    for f in fields:
        if f.type not in FIELD_TYPES:
            raise AuthoringError(
                f"field {f.name!r}: unknown type {f.type!r} (one of {', '.join(FIELD_TYPES)})"
            )


# -- public API ---------------------------------------------------------------------------------


def _has_value(value: Any) -> bool:
    if isinstance(value, list):
        return any(_has_value(v) for v in value)
    return value is not None and str(value).strip() != ""


def _check_required(fields: Sequence[FieldRequest], ex: Sequence[Mapping[str, Any]]) -> None:
    """A required field needs an example value on some seed, or it cannot be authored."""
    bare = [f.name for f in fields if f.required and not any(_has_value(e.get(f.name)) for e in ex)]
    if bare:
        raise AuthoringError(
            f"required field(s) {', '.join(bare)} have no example value on any seed: give a "
            "value per seed in the examples, or drop --required"
        )


def _check_list_values(
    fields: Sequence[FieldRequest], ex: Sequence[Mapping[str, Any]], seeds: Sequence[SeedPage]
) -> None:
    """A seed whose values mix lists and single values is a detail page with a multi-valued
    field, not a list page: say how to declare that field instead of failing as a list page."""
    types = {f.name: f.type for f in fields}
    for seed, e in zip(seeds, ex, strict=True):
        lists = [k for k, v in e.items() if isinstance(v, list) and types.get(k) != "list"]
        singles = [k for k, v in e.items() if _has_value(v) and not isinstance(v, list)]
        if lists and singles:
            hint = " ".join(f"--type {k}=list" for k in lists)
            raise AuthoringError(
                f"{seed.source}: {', '.join(map(repr, lists))} "
                f"{'has' if len(lists) == 1 else 'have'} several values but "
                f"{singles[0]!r} has one: on a detail page declare a multi-valued field with "
                f"{hint}; on a list page give every field one value per record"
            )


def _list_fields_as_lists(
    fields: Sequence[FieldRequest], ex: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """Examples with a plain value of a ``list`` field taken as a one-item list (a seed that
    shows one author of a multi-author field)."""
    lists = {f.name for f in fields if f.type == "list"}
    return [{k: [v] if k in lists and isinstance(v, str) else v for k, v in e.items()} for e in ex]


def _is_list_page(fields: Sequence[FieldRequest], ex: Sequence[Mapping[str, Any]]) -> bool:
    types = {f.name: f.type for f in fields}
    return any(isinstance(v, list) and types.get(k) != "list" for e in ex for k, v in e.items())


def author_page_type(
    seeds: Sequence[SeedPage],
    fields: Sequence[FieldRequest],
    examples: Examples,
    options: AuthoringOptions = AuthoringOptions(),
    *,
    read_nodes: Mapping[str, Mapping[str, str]] | None = None,
) -> AuthoringResult:
    """Author one page type from seeds of one template and example values.

    ``examples`` maps each seed's ``source`` (or ``url``, or file name) to ``{field: value}``;
    on list pages (``options.list_page``, or auto-detected when values are lists for non-list
    fields) each value is a list with one entry per example record (≥ 2 records per page).
    ``options`` (:class:`AuthoringOptions`) also names the page type, its URL regex and the
    mutation operators and RNG seed of the robustness scoring. With ``options.strict``
    (default) a value that grounds nowhere raises :class:`GroundingError` naming field and
    page, and a field no XPath reproduces raises :class:`AuthoringError`; otherwise such fields
    are left out and the reasons go to ``problems``. ``read_nodes`` (seed source -> field ->
    element path) steers a detail page's grounding to the node a reader was shown to read (LLM
    perturbation grounding).
    """
    t0 = time.perf_counter()
    if not seeds:
        raise AuthoringError("no seed pages given")
    _check_fields(fields)
    ex = _list_fields_as_lists(fields, _examples_for(seeds, examples))
    _check_required(fields, ex)
    if options.list_page is None:
        _check_list_values(fields, ex, seeds)
    docs = []
    for s in seeds:
        try:
            docs.append(parse_html(s.html))
        except AnchorpathError as exc:
            raise AuthoringError(f"{s.source}: cannot parse seed page: {exc}") from exc
    idx = [DocIndex(d, s.url) for d, s in zip(docs, seeds, strict=True)]
    is_list = _is_list_page(fields, ex) if options.list_page is None else options.list_page
    pagination = None
    root_xpath = None
    shortfalls: list[str] = []
    authored_from = list(seeds)
    if is_list:
        listed = author_list(seeds, docs, idx, fields, ex, options)
        root_xpath, specs, reports = listed.record_root, listed.specs, listed.reports
        problems, shortfalls = listed.problems, listed.shortfalls
        authored_from = [seeds[i] for i in listed.seeds]
        nxt = detect_pagination(list(zip(docs, [s.url for s in seeds], strict=True)))
        pagination = Pagination(nxt) if nxt else None
    else:
        specs, reports, problems = author_detail(
            seeds, docs, idx, fields, ex, options, read_nodes=read_nodes
        )
    if not specs:
        raise AuthoringError("no field could be authored: " + "; ".join(problems[:3]))
    lost = [f.name for f in fields if f.required and f.name not in specs]
    if lost:
        raise AuthoringError(
            f"required field(s) {', '.join(lost)} could not be authored: "
            + "; ".join(p for p in problems if any(repr(n) in p for n in lost))
        )
    if len(seeds) < 2:
        problems.append(
            "only one seed page: every XPath is checked on that page alone and may fit only it; "
            "give 2-3 seed pages of the template"
        )
    ordered = {f.name: specs[f.name] for f in fields if f.name in specs}
    links = [ln for d, s in zip(docs, seeds, strict=True) for ln in seed_links(d, s.url)]
    url_pattern = _url_pattern([s.url for s in seeds], links, options.match)
    pt = PageType(
        name=options.page_type or ("list" if is_list else "detail"),
        match=url_pattern.regex,
        fields=ordered,
        record_root=root_xpath,
    )
    return AuthoringResult(
        pt,
        reports,
        tuple(dict.fromkeys(problems)),
        pagination,
        tuple(authored_from),
        round(time.perf_counter() - t0, 3),
        tuple(shortfalls),
        url_pattern,
    )


def _url_pattern(urls: list[str], links: list[Link], match: str | None) -> UrlPattern:
    """The page type's URL pattern: ``match`` if given (checked against the links), else
    induced from the seed URLs' shape; an error naming the pattern when it is not a regex or
    misses a seed."""
    if match is not None:
        try:
            rx = re.compile(match)
        except re.error as exc:
            raise AuthoringError(f"--match {match!r} is not a regular expression: {exc}") from exc
        missed = [u for u in urls if not rx.search(u)]
        if missed and all(is_http_url(u) for u in urls):
            raise AuthoringError(f"--match {match!r} does not match the seed URL {missed[0]}")
    return induce_url_pattern(urls, links, given=match)


def site_id(name: str) -> str:
    """The file-name-safe id of a site called ``name`` (``"My Shop"`` → ``my-shop``)."""
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._") or "site"


def assemble_site(
    name: str,
    results: Sequence[AuthoringResult],
    *,
    key: Sequence[str] | None = None,
    start_urls: Sequence[str] | None = None,
    site_name: str | None = None,
    author: str | None = None,
) -> SelectorFile:
    """A full selector file (version 1) from one or more authored page types.

    ``key`` defaults to the first required field of the first page type, else its first
    field; ``start_urls`` to the seed URLs of the first (list, if any) page type.
    """
    if not results:
        raise AuthoringError("no authored page types to assemble")
    sid = site_id(name)
    page_types = {}
    for r in results:
        if r.page_type.name in page_types:
            raise AuthoringError(f"two page types named {r.page_type.name!r}")
        page_types[r.page_type.name] = r.page_type
    main = next((r for r in results if r.page_type.record_root), results[0])
    first = results[0].page_type
    if key is None:
        req = [f.name for f in first.fields.values() if f.required]
        key = req[:1] or list(first.fields)[:1]
    missing = [k for k in key if not any(k in pt.fields for pt in page_types.values())]
    if missing:
        fields = [n for pt in page_types.values() for n in pt.fields]
        raise AuthoringError(
            f"key field(s) {', '.join(missing)} not authored" + did_you_mean(missing, fields)
        )
    urls = list(start_urls) if start_urls else [s.url for s in main.seeds[:1]] or ["about:blank"]
    pagination = next((r.pagination for r in results if r.pagination), None)
    seeds = tuple(Seed(s.url, s.sha256) for r in results for s in r.seeds)
    prov = Provenance(method="examples", author=author, tool_version=__version__, seeds=seeds)
    return SelectorFile(
        site=Site(sid, site_name or name),
        version=1,
        fetch=FetchSpec(start_urls=tuple(urls), pagination=pagination),
        page_types=page_types,
        key=tuple(key),
        provenance=prov,
    )


def author_site(
    name: str,
    seeds: Sequence[SeedPage],
    fields: Sequence[FieldRequest],
    examples: Examples,
    options: AuthoringOptions = AuthoringOptions(),
    *,
    key: Sequence[str] | None = None,
    start_urls: Sequence[str] | None = None,
    author: str | None = None,
) -> SelectorFile:
    """Author a one-page-type site: ``author_page_type`` + ``assemble_site``.

    ``key`` defaults to the first required field, else the first field; ``start_urls``
    default to the first seed URL; provenance records method ``examples`` and each seed's
    sha256.
    """
    result = author_page_type(seeds, fields, examples, options)
    return assemble_site(name, [result], key=key, start_urls=start_urls, author=author)

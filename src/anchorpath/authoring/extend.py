"""Adding an authored page type to an existing site, and the crawl links between page types.

A site is usually authored one template at a time: the detail page first (its fields are the
records), then the list page that leads to it. Authoring a page type of an existing site adds
or replaces only that page type (the saved file becomes version N+1); the key, the other page
types and their fields stay as they were. A list page whose records link to pages of a known
page type gets ``follow`` XPaths generated and checked on its seeds, so the crawl reaches them;
a list page that does not carry the key is a navigation page (``emit: false``). Every decision
is returned as a line for the person to read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import urljoin

from lxml import etree

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._text import did_you_mean
from anchorpath.authoring.reports import AuthoringResult
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import PageType, Provenance, Seed, SelectorFile

__all__ = ["Extension", "add_page_type", "follow_xpath"]


@dataclass(frozen=True)
class Extension:
    """The extended selector file and what was decided, one line each."""

    selector_file: SelectorFile
    decisions: tuple[str, ...]
    key_changed: bool = False


def _literal(text: str) -> str | None:
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return None


def _common_prefix(values: Sequence[str]) -> str:
    prefix = values[0]
    for v in values[1:]:
        i = 0
        while i < min(len(prefix), len(v)) and prefix[i] == v[i]:
            i += 1
        prefix = prefix[:i]
    if len(values) > 1 and prefix not in values:
        cut = max(prefix.rfind(c) for c in "/?&=")
        prefix = prefix[: cut + 1] if cut >= 0 else ""
    return prefix


def _links(doc: etree._Element, xpath: str, base: str) -> list[str]:
    out = []
    result = doc.xpath(xpath)
    for item in result if isinstance(result, list) else []:
        href = str(item).strip()
        if href and not href.startswith(("javascript:", "mailto:", "#")):
            out.append(urljoin(base, href))
    return out


def _hrefs(doc: etree._Element, anchors: str) -> list[str]:
    """The raw ``href`` of every element ``anchors`` selects."""
    result = doc.xpath(anchors)
    return [
        str(a.get("href") or "").strip()
        for a in (result if isinstance(result, list) else [])
        if isinstance(a, etree._Element)
    ]


def follow_xpath(result: AuthoringResult, target: PageType) -> str | None:
    """An XPath of the links on ``result``'s seed pages (inside its records, if it has a
    record root) that lead to pages of ``target``, or None when the seeds hold no such link.

    The XPath is checked on every seed: it must find every such link and nothing else.
    """
    pattern = re.compile(target.match)
    scope = result.page_type.record_root or ""
    anchors = f"{scope}//a[@href]" if scope else "//a[@href]"
    docs = []
    hrefs: list[str] = []
    for seed in result.seeds:
        try:
            doc = parse_html(seed.html, plain=True)
        except AnchorpathError:
            return None
        docs.append((doc, seed.url))
        hrefs += [h for h in _hrefs(doc, anchors) if h and pattern.search(urljoin(seed.url, h))]
    if not hrefs:
        return None
    prefix = _common_prefix(hrefs)
    lit = _literal(prefix) if prefix else None
    candidates = []
    if lit:
        candidates.append(f"{anchors[: -len('[@href]')]}[starts-with(@href, {lit})]/@href")
        candidates.append(f"{anchors[: -len('[@href]')]}[contains(@href, {lit})]/@href")
    candidates.append(f"{anchors}/@href")
    for xp in candidates:
        ok = True
        for doc, url in docs:
            found = set(_links(doc, xp, url))
            wanted = {
                urljoin(url, h)
                for h in _hrefs(doc, anchors)
                if h and pattern.search(urljoin(url, h))
            }
            if found != wanted:
                ok = False
                break
        if ok:
            return xp
    return None


def _follow_from_fields(listing: PageType) -> str | None:
    """A follow XPath from a list page type's own url field (record root + field XPath)."""
    if not listing.record_root:
        return None
    for spec in listing.fields.values():
        xp = spec.xpath.strip()
        if spec.type == "url" and not xp.startswith("/") and "|" not in xp:
            rel = xp[2:] if xp.startswith("./") else xp
            return f"{listing.record_root}/{rel}"
    return None


def add_page_type(
    existing: SelectorFile,
    result: AuthoringResult,
    *,
    key: Sequence[str] | None = None,
    start_urls: Sequence[str] | None = None,
) -> Extension:
    """``existing`` with ``result``'s page type added (or replacing the one of that name)."""
    pt = result.page_type
    decisions: list[str] = []
    page_types = dict(existing.page_types)
    verb = "replaced" if pt.name in page_types else "added"
    new_key = tuple(key) if key else existing.key
    key_changed = new_key != existing.key
    others = {n: p for n, p in page_types.items() if n != pt.name}

    if pt.record_root:
        targets = [p for p in others.values() if not p.record_root]
        follows = []
        for target in targets:
            xp = follow_xpath(result, target)
            if xp:
                follows.append(xp)
                decisions.append(f"follow: {pt.name} -> {target.name} via {xp}")
            else:
                decisions.append(
                    f"follow: no link to a {target.name!r} page ({target.match}) found in the "
                    f"records of the {pt.name!r} seeds; the crawl will not reach {target.name!r}"
                    " pages from it"
                )
        if follows:
            pt = replace(pt, follow=tuple(dict.fromkeys(follows)))
    else:
        for name, listing in others.items():
            if listing.record_root and not listing.follow:
                xp = _follow_from_fields(listing)
                if xp:
                    page_types[name] = replace(listing, follow=(xp,))
                    decisions.append(f"follow: {name} -> {pt.name} via {xp} (its url field)")
                else:
                    decisions.append(
                        f"follow: {name!r} has no link to {pt.name!r} pages; author {name!r} "
                        "again to generate one"
                    )
    page_types[pt.name] = pt
    decisions.insert(0, f"page type {pt.name!r} {verb} (match {pt.match!r})")
    keyed = [n for n, p in page_types.items() if all(k in p.fields for k in new_key)]
    for name, p in list(page_types.items()):
        if p.record_root and p.emit and name not in keyed and keyed:
            # Its rows could not be identified: it leads to the records, it does not hold them.
            page_types[name] = replace(p, emit=False)
            decisions.append(
                f"{name}: emit false (it lacks key field(s) {', '.join(new_key)}; a navigation"
                " page)"
            )

    missing = [k for k in new_key if not any(k in p.fields for p in page_types.values())]
    if missing:
        fields = [n for p in page_types.values() for n in p.fields]
        raise AuthoringError(
            f"key field(s) {', '.join(missing)} are in no page type" + did_you_mean(missing, fields)
        )
    fetch = existing.fetch
    if start_urls:
        fetch = replace(fetch, start_urls=tuple(start_urls))
    elif (
        pt.record_root
        and result.seeds
        and not any(re.search(pt.match, u) for u in fetch.start_urls)
    ):
        fetch = replace(fetch, start_urls=(result.seeds[0].url,))
        decisions.append(f"start URL: {result.seeds[0].url} (the first {pt.name!r} seed)")
    if pt.record_root and result.pagination:
        fetch = replace(fetch, pagination=result.pagination)
    if any(p.follow for p in page_types.values()) and fetch.max_depth < 1:
        fetch = replace(fetch, max_depth=1)
    prov = existing.provenance
    new_seeds = (Seed(s.url, s.sha256) for s in result.seeds)
    seeds = tuple(prov.seeds) + tuple(s for s in new_seeds if s not in prov.seeds)
    sf = replace(
        existing,
        fetch=fetch,
        page_types=page_types,
        key=new_key,
        provenance=Provenance(
            method=prov.method or "examples",
            author=prov.author,
            model=prov.model,
            prompt_hash=prov.prompt_hash,
            tool_version=prov.tool_version,
            seeds=seeds,
            notes=prov.notes,
        ),
    )
    return Extension(sf, tuple(decisions), key_changed)

"""Replay: both versions of a selector file extract the same pages; compare record by record.

Pure: pages are bytes already read (golden fixtures, archived WARC responses), extraction is
:func:`anchorpath.selectors.evaluate.extract`. On each page, the records of one page type are
paired in document order when both versions found as many, else by the record key, else in
order as far as they go; unpaired records only move the record counts. Per field, a value
*changed* (both versions have one and they differ), *appeared* (only the new version has one)
or *disappeared* (only the old one has).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anchorpath._errors import AnchorpathError
from anchorpath.review.model import (
    CATEGORIES,
    Category,
    FieldReplay,
    RecordCount,
    ReplayKind,
    ValueDelta,
    ValueExample,
)
from anchorpath.selectors.evaluate import (
    Record,
    compile_selectors,
    evaluate_page,
    extract,
    parse_html,
)
from anchorpath.selectors.model import SelectorFile

__all__ = ["EXAMPLES", "Page", "Replay", "extract_quietly", "replay"]

#: Examples kept per field and category (changed / appeared / disappeared).
EXAMPLES = 3


@dataclass(frozen=True)
class Page:
    """One page to replay: its URL (picks the page type), its bytes, where it came from."""

    url: str
    body: bytes
    kind: ReplayKind
    source: str


@dataclass
class _Tally:
    """Counts and first examples of one field while the pages are replayed."""

    compared: int = 0
    unchanged: int = 0
    counts: dict[Category, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    examples: dict[Category, list[ValueExample]] = field(
        default_factory=lambda: {c: [] for c in CATEGORIES}
    )

    def add(self, category: Category, example: ValueExample) -> None:
        self.counts[category] += 1
        if len(self.examples[category]) < EXAMPLES:
            self.examples[category].append(example)

    def result(self) -> FieldReplay:
        def delta(c: Category) -> ValueDelta:
            return ValueDelta(self.counts[c], tuple(self.examples[c]))

        return FieldReplay(
            self.compared, self.unchanged, delta("changed"), delta("appeared"), delta("disappeared")
        )


@dataclass(frozen=True)
class Replay:
    """What the replay found: per ``(page type, field)`` the value comparison, per page type
    the record counts, and pages that could not be evaluated."""

    fields: Mapping[tuple[str, str], FieldReplay]
    records: Mapping[str, RecordCount]
    problems: tuple[str, ...] = ()


def extract_quietly(sf: SelectorFile, page: Page) -> list[Record]:
    """Records of ``page`` under ``sf``; extraction warnings are part of the values already
    (flagged records), so they are not printed here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return extract(sf, page.body, page.url)


def _evaluate(sf: SelectorFile, doc: Any, url: str) -> list[Record]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(evaluate_page(compile_selectors(sf), doc, url, anchors=False).records)


def _empty(v: Any) -> bool:
    return v is None or v == "" or v == [] or v == {}


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _key(record: Record, key: Sequence[str]) -> tuple[str, ...] | None:
    parts = tuple(json.dumps(record.values.get(k), default=str) for k in key)
    if not key or any(p in ("null", '""') for p in parts):
        return None
    return parts


def pair(
    old: Sequence[Record], new: Sequence[Record], key: Sequence[str]
) -> list[tuple[Record | None, Record | None]]:
    """Pair the records one page type gave on one page (see the module docstring)."""
    if len(old) == len(new):
        return list(zip(old, new, strict=True))
    okeys = [_key(r, key) for r in old]
    nkeys = [_key(r, key) for r in new]
    if (
        all(okeys)
        and all(nkeys)
        and len(set(okeys)) == len(okeys)
        and len(set(nkeys)) == len(nkeys)
    ):
        by_key = dict(zip(nkeys, new, strict=True))
        out: list[tuple[Record | None, Record | None]] = []
        for k, r in zip(okeys, old, strict=True):
            out.append((r, by_key.pop(k, None)))
        out += [(None, r) for r in by_key.values()]
        return out
    n = min(len(old), len(new))
    pairs: list[tuple[Record | None, Record | None]] = list(zip(old[:n], new[:n], strict=True))
    pairs += [(r, None) for r in old[n:]]
    pairs += [(None, r) for r in new[n:]]
    return pairs


def _label(record: Record, key: Sequence[str], index: int) -> str:
    values = [record.values.get(k) for k in key]
    if key and all(not _empty(v) for v in values):
        return " / ".join(str(v) for v in values)
    return f"record {index + 1}"


def _by_type(records: Iterable[Record]) -> dict[str, list[Record]]:
    out: dict[str, list[Record]] = {}
    for r in records:
        out.setdefault(r.page_type, []).append(r)
    return out


def _field_names(old: SelectorFile | None, new: SelectorFile | None, page_type: str) -> list[str]:
    names: list[str] = []
    for sf in (new, old):
        pt = sf.page_types.get(page_type) if sf else None
        if pt is not None:
            names += [n for n in pt.fields if n not in names]
    return names


def replay(old: SelectorFile | None, new: SelectorFile | None, pages: Sequence[Page]) -> Replay:
    """Extract ``pages`` with both versions (a missing side extracts nothing) and compare."""
    key = list(new.key if new else old.key if old else ())
    tallies: dict[tuple[str, str], _Tally] = {}
    counts: dict[str, list[int]] = {}
    problems: list[str] = []
    for page in pages:
        try:
            doc = parse_html(page.body, plain=True)  # once, for both versions
        except AnchorpathError as exc:
            problems.append(f"{page.source}: {page.url}: {exc}")
            continue
        sides: list[list[Record]] = []
        for sf, label in ((old, "old"), (new, "new")):
            if sf is None:
                sides.append([])
                continue
            try:
                sides.append(_evaluate(sf, doc, page.url))
            except AnchorpathError as exc:
                problems.append(f"{page.source}: the {label} version cannot evaluate it: {exc}")
                sides.append([])
        old_types, new_types = _by_type(sides[0]), _by_type(sides[1])
        for pt in [*new_types, *(t for t in old_types if t not in new_types)]:
            orecs, nrecs = old_types.get(pt, []), new_types.get(pt, [])
            c = counts.setdefault(pt, [0, 0])
            c[0] += len(orecs)
            c[1] += len(nrecs)
            names = _field_names(old, new, pt)
            for i, (o, n) in enumerate(pair(orecs, nrecs, key)):
                if o is None or n is None:
                    continue
                label = _label(n, key, i)
                if label.startswith("record "):
                    label = _label(o, key, i)
                for name in names:
                    t = tallies.setdefault((pt, name), _Tally())
                    t.compared += 1
                    ov, nv = o.values.get(name), n.values.get(name)
                    example = ValueExample(page.url, label, ov, nv)
                    if (_empty(ov) and _empty(nv)) or _same(ov, nv):
                        t.unchanged += 1
                    elif _empty(ov):
                        t.add("appeared", example)
                    elif _empty(nv):
                        t.add("disappeared", example)
                    else:
                        t.add("changed", example)
    return Replay(
        {k: t.result() for k, t in tallies.items()},
        {pt: RecordCount(c[0], c[1]) for pt, c in counts.items()},
        tuple(problems),
    )

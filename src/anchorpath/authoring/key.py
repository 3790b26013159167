"""The default record key of a newly authored site, when ``--key`` does not name one.

A key identifies a record from run to run, so it must hold a different value in every record
of the seeds: a ``title`` key on a shop that sells two books titled "Game Over" merges them (or,
in a run, stores neither). The default is therefore the first field — required fields first,
in the order given — whose authored XPath reads a value in every record of every seed and no
value twice (on list pages: not twice on one page; two seed pages of search results may list
the same record); ``list`` fields are never keys. When no field does, there is no default: the
caller asks the person, or fails naming the repeats (``--yes``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from anchorpath.authoring.reports import AuthoringResult
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.model import FetchSpec, SelectorFile, Site

__all__ = ["KeyChoice", "default_key"]


@dataclass(frozen=True)
class KeyChoice:
    """The default key (None: no field identifies every record), why, and why each field
    tried before it is not a key (``{field: "'Game Over' on p1.html and p5.html"}``)."""

    key: tuple[str, ...] | None
    why: str
    rejected: Mapping[str, str] = field(default_factory=dict)

    def missing(self) -> str:
        """Why there is no default key, with every field's repeat or gap."""
        reasons = "; ".join(f"{n}: {why}" for n, why in self.rejected.items())
        return (
            "no field identifies every record of the seeds, so there is no default key "
            f"({reasons or 'no field to use'})"
        )

    def refusal(self) -> str:
        """The one-line error of ``--yes`` when there is no default key."""
        how = "choose it with --key FIELD (repeat --key for a key of several fields)"
        return f"{self.missing()}; {how}"


def _records(result: AuthoringResult) -> list[tuple[str, Mapping[str, object]]]:
    """(seed source, values) of every record the authored page type reads on its seeds."""
    pt = result.page_type
    sf = SelectorFile(
        site=Site("key", "key"),
        version=1,
        fetch=FetchSpec(start_urls=("about:blank",)),
        page_types={pt.name: pt},
        key=(next(iter(pt.fields)),),
    )
    compiled = compile_selectors(sf)
    out: list[tuple[str, Mapping[str, object]]] = []
    for seed in result.seeds:
        page = evaluate_page(
            compiled, parse_html(seed.html), seed.url, anchors=False, page_type=pt.name
        )
        out += [(seed.source, r.values) for r in page.records]
    return out


def _why_not(
    name: str, records: list[tuple[str, Mapping[str, object]]], *, per_page: bool
) -> str | None:
    """Why field ``name`` is no key on these records (None: it is one). ``per_page`` (list
    pages): a value repeated on two seed pages is one record seen twice (two searches find
    the same book), only a repeat within one page counts."""
    first: dict[str, str] = {}
    for source, values in records:
        value = values.get(name)
        if value is None or value == "" or value == []:
            return f"no value on {source}"
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if per_page:
            text = json.dumps([source, text])
        if text in first:
            where = source if first[text] == source else f"{first[text]} and {source}"
            return f"{value!r} twice ({where})"
        first[text] = source
    return None


def default_key(result: AuthoringResult) -> KeyChoice:
    """The first field, required ones first, with a value in every seed record and no value
    twice (see the module docstring)."""
    specs = result.page_type.fields
    order = [n for n, s in specs.items() if s.required] + [
        n for n, s in specs.items() if not s.required
    ]
    records = _records(result)
    rejected: dict[str, str] = {}
    for name in order:
        if specs[name].type == "list":
            continue
        why_not = _why_not(name, records, per_page=result.page_type.record_root is not None)
        if why_not is None:
            kind = "required field" if specs[name].required else "field"
            n = len(records)
            unique = f"the first {kind} with a different value in each of the {n} seed record(s)"
            skipped = "".join(f"; not {n}: {w}" for n, w in rejected.items())
            return KeyChoice((name,), f"default: {unique}{skipped}; set it with --key", rejected)
        rejected[name] = why_not
    return KeyChoice(None, "no field identifies every record", rejected)

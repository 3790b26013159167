"""The default record key of a newly authored site, when ``--key`` does not name one.

A key identifies a record from run to run, so it must hold a different value in every
*distinct* record of the seeds: a ``title`` key on a shop that sells two books titled "Game
Over" merges them (or, in a run, stores neither). Records that are identical in every field
are one record to the store (``runner/store/commit.py``: identical repeats are merged), so a row
shown twice never disqualifies a key. On list pages only a repeat within one page counts: two
seed pages of search results may both list one record.

The default is the first field — required fields first, in the order given — whose authored
XPath reads a value in every record of every seed and no value on two distinct records. When
no single field does, it is the smallest combination of fields that does (pairs before
triples, in that field order), which the caller prints (``--yes``) or offers as the answer to
a question (at a terminal). ``list`` fields join only when no combination without them
separates the records. When not even all the fields together do, the first field is still
the default if its only fault is seed records without a value (no value shared by two
distinct records): such rows have no key, which a run counts against the crawl's
completeness (it then withdraws nothing), so the caller writes the file as partial and
says so. Otherwise there is no default: the caller asks the person, or fails naming the
repeats (``--yes``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from anchorpath.authoring.reports import AuthoringResult
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.model import FetchSpec, SelectorFile, Site

__all__ = ["KeyChoice", "default_key"]

_EXCERPT = 60  # characters of a repeated value shown in a reason


@dataclass(frozen=True)
class KeyChoice:
    """The default key (None: not even all fields identify every record), why, and why each
    single field is not a key (``{field: "'Game Over' on 2 records (p1.html)"}``)."""

    key: tuple[str, ...] | None
    why: str
    rejected: Mapping[str, str] = field(default_factory=dict)
    #: Set when the key leaves some seed records without a key value (the first field, no
    #: value shared, but missing on some records): why the file is partial.
    gaps: str | None = None

    @property
    def combined(self) -> bool:
        """The default is a combination of fields, chosen because no one field is a key: a
        person at a terminal is asked to confirm it."""
        return self.key is not None and len(self.key) > 1

    def missing(self) -> str:
        """Why no single field is a key, with every field's repeat or gap."""
        reasons = "; ".join(f"{n}: {why}" for n, why in self.rejected.items())
        if self.key is not None:
            return f"no single field identifies every record of the seeds ({reasons})"
        return (
            "no field identifies every record of the seeds, so there is no default key "
            f"({reasons or 'no field to use'})"
        )

    def refusal(self) -> str:
        """The one-line error of ``--yes`` when there is no default key."""
        how = "choose it with --key FIELD (repeat --key for a key of several fields)"
        return f"{self.missing()}; {how}"


Record = tuple[str, Mapping[str, object]]  # (seed source, values)


def _records(result: AuthoringResult) -> list[Record]:
    """(seed source, values) of every distinct record the authored page type reads on its
    seeds: a record identical in every field to one before it (on its page, for list pages;
    anywhere, for detail pages) is the same record again and kept once."""
    pt = result.page_type
    sf = SelectorFile(
        site=Site("key", "key"),
        version=1,
        fetch=FetchSpec(start_urls=("about:blank",)),
        page_types={pt.name: pt},
        key=(next(iter(pt.fields)),),
    )
    compiled = compile_selectors(sf)
    per_page = pt.record_root is not None
    out: list[Record] = []
    seen: set[str] = set()
    for seed in result.seeds:
        page = evaluate_page(
            compiled, parse_html(seed.html), seed.url, anchors=False, page_type=pt.name
        )
        for r in page.records:
            ident = _canon([seed.source if per_page else "", r.values])
            if ident not in seen:
                seen.add(ident)
                out.append((seed.source, r.values))
    return out


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _excerpt(value: object) -> str:
    text = value if isinstance(value, str) else _canon(value)
    return repr(text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…")


def _why_not(names: Sequence[str], records: list[Record], *, per_page: bool) -> str | None:
    """Why the fields ``names`` together are no key on these distinct records (None: they
    are one). ``per_page`` (list pages): a value repeated on two seed pages is one record
    seen twice (two searches find the same book), only a repeat within one page counts."""
    carriers: dict[str, list[str]] = {}  # value -> sources of the records carrying it
    shown: dict[str, str] = {}
    for source, values in records:
        parts = [values.get(n) for n in names]
        for n, v in zip(names, parts, strict=True):
            if v is None or v == "" or v == []:
                return f"no value on {source}" if len(names) == 1 else f"no {n} on {source}"
        text = _canon([source, parts] if per_page else parts)
        carriers.setdefault(text, []).append(source)
        shown.setdefault(text, " + ".join(_excerpt(p) for p in parts))
    for text, sources in carriers.items():
        if len(sources) > 1:
            where = " and ".join(dict.fromkeys(sources))
            return f"{shown[text]} on {len(sources)} different records ({where})"
    return None


def default_key(result: AuthoringResult) -> KeyChoice:
    """The first field, required ones first, with a value in every seed record and none
    shared by two distinct records; else the smallest such combination of fields (see the
    module docstring)."""
    specs = result.page_type.fields
    order = [n for n, s in specs.items() if s.required] + [
        n for n, s in specs.items() if not s.required
    ]
    records = _records(result)
    per_page = result.page_type.record_root is not None
    n = len(records)
    rejected: dict[str, str] = {}
    plain = [name for name in order if specs[name].type != "list"]
    for name in plain:
        why_not = _why_not([name], records, per_page=per_page)
        if why_not is None:
            kind = "required field" if specs[name].required else "field"
            unique = (
                f"the first {kind} with a different value in each of the {n} distinct seed "
                "record(s)"
            )
            skipped = "".join(f"; not {f}: {w}" for f, w in rejected.items())
            return KeyChoice((name,), f"default: {unique}{skipped}; set it with --key", rejected)
        rejected[name] = why_not
    # No single field: the smallest combination, fields with a gap left out (a record
    # without a key value has no key); list fields only if nothing else separates them.
    filled = [f for f in order if not rejected.get(f, "").startswith("no value on ")]
    for pool, with_lists in ((plain, False), (order, True)):
        usable = [f for f in filled if f in pool]
        for size in range(2 if not with_lists else 1, len(usable) + 1):
            for combo in combinations(usable, size):
                if with_lists and all(specs[f].type != "list" for f in combo):
                    continue  # tried without list fields already
                if _why_not(combo, records, per_page=per_page) is None:
                    repeats = "; ".join(f"{f}: {w}" for f, w in rejected.items())
                    why = (
                        f"default: no single field identifies every record ({repeats}); "
                        f"{' + '.join(combo)} is the smallest combination with a different "
                        f"value in each of the {n} distinct seed record(s); set it with --key"
                    )
                    return KeyChoice(combo, why, rejected)
    return _with_gaps(plain[:1], records, rejected, per_page=per_page)


def _with_gaps(
    first: list[str], records: list[Record], rejected: dict[str, str], *, per_page: bool
) -> KeyChoice:
    """The first field as a key with gaps: when its only fault is seed records without a
    value and no two distinct records that have one share it; else no default."""
    none = KeyChoice(None, "no field identifies every record", rejected)
    if not first or not rejected[first[0]].startswith("no value on "):
        return none
    name = first[0]
    holding = [(s, v) for s, v in records if v.get(name) not in (None, "", [])]
    if not holding or _why_not([name], holding, per_page=per_page) is not None:
        return none
    lacking = [s for s, v in records if v.get(name) in (None, "", [])]
    short = (
        f"{len(lacking)} of the {len(records)} distinct seed record(s) have no {name} "
        f"({', '.join(dict.fromkeys(lacking))})"
    )
    gaps = (
        f"key {name!r}: {short}; a run counts such rows as records without a key and, its "
        "crawl then incomplete, withdraws no record: fix the field or choose --key"
    )
    why = (
        f"default: the first field, a different value in each of the {len(holding)} seed "
        f"record(s) that have one ({short}); set it with --key"
    )
    return KeyChoice((name,), why, rejected, gaps)

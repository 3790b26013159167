"""Authoring the fields of a detail page type (one record per page): ground the example
values, mutate around them, generate candidates from the document root and choose per
field. List fields are generalised like record roots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from lxml import etree

from anchorpath._errors import AuthoringError, GroundingError
from anchorpath.authoring.candidates.ground import (
    DocIndex,
    Target,
    consistent_targets,
    ground_value,
    grounding_note,
    norm,
    targets_at,
)
from anchorpath.authoring.candidates.scoping import scoped_variants
from anchorpath.authoring.candidates.xpath_common import XCandidate, value_suffix
from anchorpath.authoring.candidates.xpathgen import generate_candidates
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.pages.records import root_candidates
from anchorpath.authoring.reports import FieldReport, FieldRequest
from anchorpath.authoring.scoring.choose import (
    as_str,
    choose_xpath,
    field_report,
    field_spec,
    finalize_report,
    label_ambiguity,
    same_everywhere,
)
from anchorpath.authoring.scoring.mutate import Mutant, mutate_tree
from anchorpath.authoring.scoring.verify import Expectation
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.model import Anchor, FieldSpec, Normalize


def author_detail(
    seeds: Sequence[SeedPage],
    docs: list[etree._Element],
    idx: list[DocIndex],
    fields: Sequence[FieldRequest],
    ex: list[Mapping[str, Any]],
    options: AuthoringOptions,
    *,
    read_nodes: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[dict[str, FieldSpec], dict[str, FieldReport], list[str]]:
    """Specs, reports and problems for the fields of a detail page type (``options``: strict,
    the mutation operators and their RNG seed).

    ``read_nodes`` (seed source -> field -> element path) names the node a reader was shown to
    read a value at (LLM perturbation grounding): on that seed, that field is grounded there
    only, so the chosen XPath selects that node rather than another one with the same text."""
    problems: list[str] = []
    # (field, seed index) -> targets of each value of a list field, in value order
    list_targets: dict[tuple[str, int], list[list[Target]]] = {}
    grounded: dict[str, list[list[Target]]] = {}
    wants: dict[str, list[Any]] = {}
    for f in fields:
        found = _ground_field(f, seeds, idx, ex, options, read_nodes, problems, list_targets)
        if found is not None:
            grounded[f.name], wants[f.name] = found
    types = {f.name: f.type for f in fields}
    mutants = _mutants(docs, grounded, types, list_targets, options)
    specs: dict[str, FieldSpec] = {}
    reports: dict[str, FieldReport] = {}
    for f in fields:
        if f.name not in grounded:
            continue
        values = wants[f.name]
        cands = _field_candidates(f, grounded[f.name], values, list_targets, docs)
        ftype = f.type
        seed_exps = [
            [Expectation(docs[i], values[i] or None, ftype, seeds[i].url)]
            for i in range(len(seeds))
        ]

        def mexps(
            _: int, values: list[Any] = values, ftype: str = ftype
        ) -> list[list[tuple[Mutant, list[Expectation]]]]:
            return [
                [
                    (m, [Expectation(m.doc, values[i] or None, ftype, seeds[i].url)])
                    for m in mutants[i]
                ]
                for i in range(len(seeds))
            ]

        best, ranked, probs = choose_xpath(f.name, cands, seed_exps, mexps)
        rep = field_report(f, best, ranked, len(cands), probs)
        if best is None:
            if options.strict:
                raise AuthoringError(probs[0])
            problems += probs
            reports[f.name] = rep
            continue
        rep = replace(rep, problems=rep.problems + tuple(label_ambiguity(f.name, rep, seeds, docs)))
        problems += list(rep.problems)
        reports[f.name] = rep
        rep = finalize_report(rep, f.type, docs)
        rep = replace(rep, problems=rep.problems + tuple(same_everywhere(f.name, values)))
        problems += list(rep.problems[-1:]) if same_everywhere(f.name, values) else []
        reports[f.name] = rep
        specs[f.name] = field_spec(f, rep, [v for v in values if v])
    return specs, reports, problems


def _ground_field(
    f: FieldRequest,
    seeds: Sequence[SeedPage],
    idx: list[DocIndex],
    ex: list[Mapping[str, Any]],
    options: AuthoringOptions,
    read_nodes: Mapping[str, Mapping[str, str]] | None,
    problems: list[str],
    list_targets: dict[tuple[str, int], list[list[Target]]],
) -> tuple[list[list[Target]], list[Any]] | None:
    """The structurally consistent targets of one field on every seed (empty where the seed
    gives no value) and its example values; None when the field is left out (a value not
    found, no value on any seed). Problems are appended; the targets of each value of a list
    field are recorded in ``list_targets``."""
    per_seed: list[list[Target]] = []
    values: list[Any] = []
    for s, ix, e in zip(seeds, idx, ex, strict=True):
        raw = e.get(f.name)
        want: Any = (
            [v for v in (as_str(x) for x in raw) if v] if isinstance(raw, list) else as_str(raw)
        )
        values.append(want)
        if not want:
            per_seed.append([])
            continue
        try:
            if isinstance(want, list):
                per_value = [
                    ground_value(ix, v, field=f.name, page=s.source, ftype=f.type) for v in want
                ]
                list_targets[(f.name, len(per_seed))] = per_value
                ts = [t for vs in per_value for t in vs]
            else:
                ts = _ground_one(f, s, ix, want, read_nodes, problems)
        except GroundingError as exc:
            if options.strict:
                raise
            problems.append(str(exc))
            return None
        per_seed.append(ts)
    if not per_seed:
        return None
    if not any(values):
        problems.append(f"field {f.name!r}: no example value on any seed; left out")
        return None
    present = [i for i, v in enumerate(values) if v]
    limit = 6 * max((len(v) for v in values if isinstance(v, list)), default=1)
    kept, notes = consistent_targets([per_seed[i] for i in present], limit=limit)
    full: list[list[Target]] = [[] for _ in seeds]
    for i, ts in zip(present, kept, strict=True):
        full[i] = ts
    problems += [f"field {f.name!r}: {n}" for n in notes]
    return full, values


def _ground_one(
    f: FieldRequest,
    s: SeedPage,
    ix: DocIndex,
    want: str,
    read_nodes: Mapping[str, Mapping[str, str]] | None,
    problems: list[str],
) -> list[Target]:
    """The targets of a single-valued field on one seed, steered to the node a reader read
    it at; how the value was found is noted in ``problems``."""
    ts = ground_value(ix, want, field=f.name, page=s.source, ftype=f.type)
    read = (read_nodes or {}).get(s.source, {}).get(f.name)
    ts = _steer(ts, read, problems, f"field {f.name!r} on page {s.source}")
    note = grounding_note(ts, want, field=f.name, page=s.source)
    if note:
        problems.append(note)
    return ts


def _mutants(
    docs: list[etree._Element],
    grounded: Mapping[str, list[list[Target]]],
    types: Mapping[str, str],
    list_targets: Mapping[tuple[str, int], list[list[Target]]],
    options: AuthoringOptions,
) -> list[list[Mutant]]:
    """One mutation set per seed, clustered around the best-looking target of every field
    (``options``: the mutation operators and their RNG seed)."""
    mutants: list[list[Mutant]] = []
    for i, doc in enumerate(docs):
        # List fields are left out: a sibling inserted next to a list item *is* a new item.
        targets = list(
            dict.fromkeys(
                t.element
                for name, g in grounded.items()
                if types[name] != "list"
                for t in g[i][:4]
                if t.zone == "body"
            )
        )
        # ... but decoys and same-tag blocks cluster around list items too.
        items = list(
            dict.fromkeys(
                vs[0].element
                for (name, j), per_value in list_targets.items()
                if j == i and name in grounded
                for vs in per_value
                if vs and vs[0].zone == "body"
            )
        )
        mutants.append(
            mutate_tree(
                doc,
                targets=targets,
                operators=options.operators,
                seed=options.mutation_seed + i,
                list_targets=[x for x in items if x not in targets],
            )
        )
    return mutants


def _field_candidates(
    f: FieldRequest,
    per_seed_t: list[list[Target]],
    values: list[Any],
    list_targets: Mapping[tuple[str, int], list[list[Target]]],
    docs: list[etree._Element],
) -> dict[tuple[str, Normalize], tuple[XCandidate, set[int]]]:
    """The XPath candidates of one field, each with the seeds it was generated on."""
    cands: dict[tuple[str, Normalize], tuple[XCandidate, set[int]]] = {}
    for i, ts in enumerate(per_seed_t):
        if f.type == "list":
            keep = set(map(id, ts))  # structurally consistent targets only
            per_value = [
                [t for t in vs if id(t) in keep] or vs for vs in list_targets.get((f.name, i), [])
            ]
            generated = _list_candidates(per_value, docs[i])
        else:
            vn = norm(values[i]) if isinstance(values[i], str) else ""
            generated = [c for t in ts[:4] for c in generate_candidates(t, docs[i], value_norm=vn)]
        for c in generated:
            key = (c.xpath, c.normalize)
            if key in cands:
                cands[key][1].add(i)
            else:
                cands[key] = (c, {i})
    return cands


def _steer(targets: list[Target], read: str | None, problems: list[str], what: str) -> list[Target]:
    """Only the targets at the node ``read`` (when given and one is there); else all, noted.

    A node that holds the value only inside a longer text (``"Value Books / 2008 /
    Paperback"``) does not override one holding exactly the value: the normalisation such a
    match needs is learnt from the seeds alone, a whole node needs none (the review then says
    where the model read it)."""
    if not read or len(targets) < 2:
        return targets
    at = targets_at(targets, read)
    if at and not any(t.exact for t in at) and any(t.exact for t in targets):
        return targets
    if at:
        return at
    where = targets[0].describe()
    problems.append(f"{what}: the node read, {read}, holds none of the value's places ({where}, …)")
    return targets


def _list_candidates(
    per_value: Sequence[Sequence[Target]], doc: etree._Element
) -> list[XCandidate]:
    """A list field: its item nodes (one per value) are generalised like record roots."""
    if not per_value or not all(per_value):
        return []
    first = per_value[0][0]
    items = [first]
    for vs in per_value[1:]:
        # Prefer the item read the same way and with the same tag as the first one.
        same = [t for t in vs if t.mode == first.mode and t.element.tag == first.element.tag]
        items.append((same or list(vs))[0])
    suffix = value_suffix(first)
    out = []
    for rc in root_candidates([t.element for t in items]):
        anchor = Anchor("structure") if rc.kind == "structure" else None
        out.append(XCandidate(rc.xpath + suffix, rc.kind, anchor, Normalize(), rc.positional))
    # A decoy copy of the list's block (same classes) placed earlier takes the first match.
    return out + scoped_variants(out, doc)

"""The top-level authoring API: seeds + field list + example values -> verified selectors.

Deterministic and LLM-free. For every field: ground the example values to DOM nodes on every
seed (``ground.py``), generate anchor-first XPath candidates (``xpathgen.py``), keep those that
reproduce the examples exactly on every seed, score them under synthetic DOM mutations
(``mutate.py`` / ``verify.py``) and keep the best plus up to two fallbacks. List pages get a
record root induced from the example records (``records.py``) and field XPaths relative to it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from anchorpath._errors import AnchorpathError, AuthoringError, GroundingError
from anchorpath._version import __version__
from anchorpath.authoring.ground import (
    DocIndex,
    Target,
    consistent_targets,
    ground_value,
    norm,
)
from anchorpath.authoring.mutate import mutate_tree
from anchorpath.authoring.records import (
    RootCandidate,
    detect_pagination,
    induce_roots,
    root_candidates,
    root_result_ok,
)
from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.verify import Expectation, Scored, compiled, leave_one_out, reproduces
from anchorpath.authoring.xpathgen import (
    XCandidate,
    generate_candidates,
    literal,
    scoped_variants,
    value_suffix,
)
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import (
    FIELD_TYPES,
    Anchor,
    FetchSpec,
    FieldSpec,
    Normalize,
    PageType,
    Pagination,
    Provenance,
    Seed,
    SelectorFile,
    Site,
)

__all__ = [
    "AuthoringResult",
    "CandidateScore",
    "Examples",
    "FieldReport",
    "FieldRequest",
    "assemble_site",
    "author_page_type",
    "author_site",
]

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


@dataclass(frozen=True)
class AuthoringResult:
    """One authored page type with per-field reports and everything worth telling a person."""

    page_type: PageType
    fields: Mapping[str, FieldReport]
    problems: tuple[str, ...] = ()
    pagination: Pagination | None = None
    seeds: tuple[SeedPage, ...] = ()
    elapsed: float = 0.0

    @property
    def record_root(self) -> str | None:
        return self.page_type.record_root


# -- helpers ------------------------------------------------------------------------------------

#: Candidates scored under mutation per field (best by prior); the rest only verified on seeds.
MAX_SCORED = 16
MAX_PREVIEW = 48


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


def _as_str(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, float) and v == int(v):
        v = int(v)
    s = str(v)
    return s if s.strip() else None


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


def _match_regex(seeds: Sequence[SeedPage]) -> str:
    """The longest common path prefix of the seed URLs (query included), as a regex."""
    parts = [urlsplit(s.url) for s in seeds]
    tails = [p.path + ("?" + p.query if p.query else "") for p in parts]
    prefix = tails[0]
    for t in tails[1:]:
        i = 0
        while i < min(len(prefix), len(t)) and prefix[i] == t[i]:
            i += 1
        prefix = prefix[:i]
    if len(seeds) > 1:
        # Cut back to a separator so ``/item/12`` and ``/item/13`` give ``/item/``.
        cut = max(prefix.rfind(c) for c in "/?&=")
        prefix = prefix[: cut + 1] if cut >= 0 else prefix
    return re.escape(prefix) if prefix else ".*"


def _fallbacks(best: Scored, ranked: Sequence[Scored]) -> tuple[str, ...]:
    """Up to two more XPaths with the same normalisation, preferring other anchors."""
    same = [
        s
        for s in ranked
        if s is not best
        and s.candidate.normalize == best.candidate.normalize
        and s.all_ok
        and s.candidate.xpath != best.candidate.xpath
    ]

    def family(s: Scored) -> tuple[str, str | None]:
        a = s.candidate.anchor
        return (s.candidate.kind, a.value if a else None)

    picked: list[Scored] = []
    fams = {family(best)}
    # Fallbacks run when the primary finds nothing, typically after a restyle renamed every
    # class: if the primary leans on a class, keep one fallback that does not.
    if "@class" in best.candidate.xpath:
        plain = next((s for s in same if "@class" not in s.candidate.xpath), None)
        if plain is not None:
            picked.append(plain)
            fams.add(family(plain))
    for s in same:
        if family(s) not in fams and len(picked) < 2:
            picked.append(s)
            fams.add(family(s))
    for s in same:
        if s not in picked and len(picked) < 2:
            picked.append(s)
    return tuple(s.candidate.xpath for s in picked)


def _score_mutants(
    scored: Sequence[Scored],
    mutants: Sequence[Sequence[tuple[Any, Sequence[Expectation]]]],
) -> None:
    """Fill ``mut_pass``/``mut_total`` per seed: a mutant passes when every expectation
    (one per page, or one per example record) holds."""
    for s in scored:
        s.mut_pass = []
        s.mut_total = []
        for per_seed in mutants:
            ok = 0
            for _m, exps in per_seed:
                if all(reproduces(s.candidate.xpath, s.candidate.normalize, e) for e in exps):
                    ok += 1
            s.mut_pass.append(ok)
            s.mut_total.append(len(per_seed))


def _choose(
    fname: str,
    cands: Mapping[tuple[str, Normalize], tuple[XCandidate, set[int]]],
    seed_exps: Sequence[Sequence[Expectation]],
    mutant_exps: Callable[[int], Sequence[Sequence[tuple[Any, Sequence[Expectation]]]]],
) -> tuple[Scored | None, list[Scored], list[str]]:
    """Verify candidates on the seeds, score the survivors under mutation, rank them."""
    scored = []
    for cand, origins in cands.values():
        s = Scored(cand, origins)
        s.seed_ok = [
            all(reproduces(cand.xpath, cand.normalize, e) for e in exps) for exps in seed_exps
        ]
        scored.append(s)
    passing = sorted((s for s in scored if s.all_ok), key=lambda s: s.candidate.prior)
    problems: list[str] = []
    if not passing:
        near = max(scored, key=lambda s: sum(s.seed_ok), default=None)
        hint = (
            f"; closest: {near.candidate.xpath} (right on {sum(near.seed_ok)}/"
            f"{len(near.seed_ok)} seeds)"
            if near
            else ""
        )
        problems.append(
            f"field {fname!r}: no XPath reproduces the examples on every seed "
            f"({len(scored)} candidates tried){hint}"
        )
        return None, scored, problems
    # Two stages keep this fast: every passing candidate (up to MAX_PREVIEW, by prior) is
    # tried on the first seed's mutants; the best MAX_SCORED of those on all seeds' mutants.
    mutants = mutant_exps(0)
    preview = passing[:MAX_PREVIEW]
    if len(preview) > MAX_SCORED:
        first = next((i for i, m in enumerate(mutants) if m), 0)
        only_first = [m if i == first else [] for i, m in enumerate(mutants)]
        _score_mutants(preview, only_first)
        preview = sorted(preview, key=lambda s: s.rank_key())[:MAX_SCORED]
    _score_mutants(preview, mutants)
    ranked = sorted(preview, key=lambda s: s.rank_key())
    return ranked[0], ranked, problems


def _field_report(
    f: FieldRequest,
    best: Scored | None,
    ranked: list[Scored],
    considered: int,
    problems: list[str],
) -> FieldReport:
    loo, notes = leave_one_out(ranked) if best else (None, [])
    ranking = tuple(
        CandidateScore(
            s.candidate.xpath,
            s.candidate.kind,
            s.all_ok,
            round(s.robustness(), 3),
            s.candidate.anchor,
            s.candidate.normalize,
        )
        for s in ranked[:10]
    )
    if best is None:
        return FieldReport(
            f.name,
            None,
            candidates_considered=considered,
            ranking=ranking,
            problems=tuple(problems),
        )
    return FieldReport(
        f.name,
        best.candidate.xpath,
        _fallbacks(best, ranked),
        round(best.robustness(), 3),
        loo,
        considered,
        best.candidate.anchor,
        best.candidate.normalize,
        ranking,
        tuple(problems + notes),
    )


def _reads_markup(xpath: str, contexts: Sequence[etree._Element]) -> bool:
    """Whether the XPath returns an element with child elements (e.g. ``<br>``) anywhere."""
    xp = compiled(xpath)
    if xp is None:
        return False
    for ctx in contexts:
        res = xp(ctx)
        if isinstance(res, list) and any(
            isinstance(r, etree._Element) and any(isinstance(c.tag, str) for c in r) for r in res
        ):
            return True
    return False


def _finalize(rep: FieldReport, ftype: str, contexts: Sequence[etree._Element]) -> FieldReport:
    """Read elements with markup inside as ``normalize-space(…)``: the same text the runner
    would coerce them to, without an ExtractionWarning on every page. Verification already
    checked the unwrapped path's cardinality."""
    if ftype == "list" or rep.xpath is None:
        return rep

    def wrap(x: str) -> str:
        return f"normalize-space({x})" if _reads_markup(x, contexts) else x

    return replace(rep, xpath=wrap(rep.xpath), fallbacks=tuple(wrap(x) for x in rep.fallbacks))


def _same_everywhere(fname: str, values: Sequence[Any]) -> list[str]:
    given = [json.dumps(v, ensure_ascii=False) for v in values if v]
    if len(given) > 1 and len(set(given)) == 1:
        return [
            f"field {fname!r}: the example value is the same on every seed; verification "
            "cannot tell an XPath for the field from one for that constant (add a seed with "
            "another value)"
        ]
    return []


def _spec(f: FieldRequest, rep: FieldReport, examples: list[Any]) -> FieldSpec:
    anchor = rep.anchor
    if anchor is not None and anchor.kind == "label-text" and not anchor.value:
        anchor = None
    return FieldSpec(
        name=f.name,
        xpath=rep.xpath or "",
        type=f.type,  # type: ignore[arg-type]
        required=f.required,
        description=f.description,
        anchor=anchor,
        normalize=rep.normalize,
        fallbacks=rep.fallbacks,
        robustness=rep.robustness,
        examples=tuple(examples[:5]),
    )


def _label_ambiguity(
    fname: str, rep: FieldReport, seeds: Sequence[SeedPage], docs: Sequence[etree._Element]
) -> list[str]:
    """Report label anchors whose text occurs more than once on a seed (first one is used)."""
    a = rep.anchor
    if a is None or a.kind != "label-text" or not a.value:
        return []
    out = []
    lit = literal(a.value)
    for s, d in zip(seeds, docs, strict=True):
        n = d.xpath(f"count(//*[normalize-space()={lit}][not(*[normalize-space()={lit}])])")
        if isinstance(n, float) and n > 1:
            how = (
                "the XPath relies on the first one"
                if rep.xpath
                and rep.xpath.startswith(("/descendant::", "./descendant::"))
                and "normalize-space()=" in rep.xpath.split("]")[0]
                else "the XPath scopes it to its container"
            )
            out.append(
                f"field {fname!r}: ambiguous anchor: label {a.value!r} occurs {int(n)} "
                f"times on {s.source}; {how}"
            )
    return out


# -- detail pages -------------------------------------------------------------------------------


def _author_detail(
    seeds: Sequence[SeedPage],
    docs: list[etree._Element],
    idx: list[DocIndex],
    fields: Sequence[FieldRequest],
    ex: list[Mapping[str, Any]],
    *,
    mutation_seed: int,
    operators: Sequence[str] | None,
    strict: bool,
) -> tuple[dict[str, FieldSpec], dict[str, FieldReport], list[str]]:
    problems: list[str] = []
    grounded: dict[str, list[list[Target]]] = {}
    wants: dict[str, list[Any]] = {}
    # (field, seed index) -> targets of each value of a list field, in value order
    list_targets: dict[tuple[str, int], list[list[Target]]] = {}
    for f in fields:
        per_seed: list[list[Target]] = []
        values: list[Any] = []
        for s, ix, e in zip(seeds, idx, ex, strict=True):
            raw = e.get(f.name)
            want: Any = (
                [v for v in (_as_str(x) for x in raw) if v]
                if isinstance(raw, list)
                else _as_str(raw)
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
                    ts = ground_value(ix, want, field=f.name, page=s.source, ftype=f.type)
            except GroundingError as exc:
                if strict:
                    raise
                problems.append(str(exc))
                per_seed = []
                break
            per_seed.append(ts)
        if not per_seed:
            continue
        if not any(values):
            problems.append(f"field {f.name!r}: no example value on any seed; left out")
            continue
        present = [i for i, v in enumerate(values) if v]
        limit = 6 * max((len(v) for v in values if isinstance(v, list)), default=1)
        kept, notes = consistent_targets([per_seed[i] for i in present], limit=limit)
        full: list[list[Target]] = [[] for _ in seeds]
        for i, ts in zip(present, kept, strict=True):
            full[i] = ts
        grounded[f.name] = full
        wants[f.name] = values
        problems += [f"field {f.name!r}: {n}" for n in notes]
    # One mutation set per seed, clustered around the best-looking target of every field.
    types = {f.name: f.type for f in fields}
    mutants: list[list[Any]] = []
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
                operators=operators,
                seed=mutation_seed + i,
                list_targets=[x for x in items if x not in targets],
            )
        )
    specs: dict[str, FieldSpec] = {}
    reports: dict[str, FieldReport] = {}
    for f in fields:
        if f.name not in grounded:
            continue
        per_seed_t = grounded[f.name]
        values = wants[f.name]
        cands: dict[tuple[str, Normalize], tuple[XCandidate, set[int]]] = {}
        for i, ts in enumerate(per_seed_t):
            if f.type == "list":
                keep = set(map(id, ts))  # structurally consistent targets only
                per_value = [
                    [t for t in vs if id(t) in keep] or vs
                    for vs in list_targets.get((f.name, i), [])
                ]
                generated = _list_candidates(per_value, docs[i])
            else:
                vn = norm(values[i]) if isinstance(values[i], str) else ""
                generated = [
                    c for t in ts[:4] for c in generate_candidates(t, docs[i], value_norm=vn)
                ]
            for c in generated:
                key = (c.xpath, c.normalize)
                if key in cands:
                    cands[key][1].add(i)
                else:
                    cands[key] = (c, {i})
        ftype = f.type
        seed_exps = [
            [Expectation(docs[i], values[i] or None, ftype, seeds[i].url)]
            for i in range(len(seeds))
        ]

        def mexps(
            _: int, values: list[Any] = values, ftype: str = ftype
        ) -> list[list[tuple[Any, list[Expectation]]]]:
            return [
                [
                    (m, [Expectation(m.doc, values[i] or None, ftype, seeds[i].url)])
                    for m in mutants[i]
                ]
                for i in range(len(seeds))
            ]

        best, ranked, probs = _choose(f.name, cands, seed_exps, mexps)
        rep = _field_report(f, best, ranked, len(cands), probs)
        if best is None:
            if strict:
                raise AuthoringError(probs[0])
            problems += probs
            reports[f.name] = rep
            continue
        rep = replace(
            rep, problems=rep.problems + tuple(_label_ambiguity(f.name, rep, seeds, docs))
        )
        problems += list(rep.problems)
        reports[f.name] = rep
        rep = _finalize(rep, f.type, docs)
        rep = replace(rep, problems=rep.problems + tuple(_same_everywhere(f.name, values)))
        problems += list(rep.problems[-1:]) if _same_everywhere(f.name, values) else []
        reports[f.name] = rep
        specs[f.name] = _spec(f, rep, [v for v in values if v])
    return specs, reports, problems


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


# -- list pages ---------------------------------------------------------------------------------


def _author_list(
    seeds: Sequence[SeedPage],
    docs: list[etree._Element],
    idx: list[DocIndex],
    fields: Sequence[FieldRequest],
    ex: list[Mapping[str, Any]],
    *,
    mutation_seed: int,
    operators: Sequence[str] | None,
    strict: bool,
) -> tuple[str, dict[str, FieldSpec], dict[str, FieldReport], list[str]]:
    problems: list[str] = []
    # values[i][f] = list of values (one per example record) on seed i
    values: list[dict[str, list[str | None]]] = []
    for s, e in zip(seeds, ex, strict=True):
        per: dict[str, list[str | None]] = {}
        n = None
        for f in fields:
            raw = e.get(f.name)
            if raw is None:
                continue
            lst = raw if isinstance(raw, list) else [raw]
            per[f.name] = [_as_str(x) for x in lst]
            if n is not None and len(lst) != n:
                raise AuthoringError(
                    f"{s.source}: field {f.name!r} has {len(lst)} example values, other "
                    f"fields {n}; list-page examples need one value per record for every field"
                )
            n = len(lst)
        if not n or n < 2:
            raise AuthoringError(
                f"{s.source}: list pages need at least two example records per page (got {n or 0})"
            )
        values.append(per)
    names = [f.name for f in fields if any(f.name in v for v in values)]
    types = {f.name: f.type for f in fields}
    # Ground every value; grounded[i][r][f] = candidate targets.
    grounded: list[list[dict[str, list[Target]]]] = []
    for i, (s, ix) in enumerate(zip(seeds, idx, strict=True)):
        recs = []
        nrec = len(next(iter(values[i].values())))
        for r in range(nrec):
            rec: dict[str, list[Target]] = {}
            for name in names:
                v = values[i].get(name, [None] * nrec)[r]
                if not v:
                    rec[name] = []
                    continue
                try:
                    rec[name] = ground_value(
                        ix, v, field=name, page=f"{s.source} (record {r + 1})", ftype=types[name]
                    )
                except GroundingError as exc:
                    if strict:
                        raise
                    problems.append(str(exc))
                    rec[name] = []
            recs.append(rec)
        grounded.append(recs)
    # Record roots per seed.
    roots: list[list[etree._Element]] = []
    for i, recs in enumerate(grounded):
        per_record = [[[t.element for t in rec[n]] for n in names] for rec in recs]
        rr = induce_roots(per_record)
        if rr is None:
            raise AuthoringError(
                f"{seeds[i].source}: cannot find a repeating record element holding the example "
                "records (are the values of different records really in different rows?)"
            )
        roots.append(rr)
    # Record-root XPath.
    rcands: dict[str, RootCandidate] = {}
    for rr in roots:
        for c in root_candidates(rr):
            rcands.setdefault(c.xpath, c)
    counts: dict[str, list[int]] = {}
    ok_roots = []
    for c in rcands.values():
        xp = compiled(c.xpath)
        if xp is None:
            continue
        good = True
        cs = []
        for d, rr in zip(docs, roots, strict=True):
            res = xp(d)
            found = (
                [x for x in res if isinstance(x, etree._Element)] if isinstance(res, list) else []
            )
            if not root_result_ok(found, rr):
                good = False
                break
            cs.append(len(found))
        if good:
            ok_roots.append(c)
            counts[c.xpath] = cs
    if not ok_roots:
        raise AuthoringError(
            "no record-root XPath selects exactly the example records' rows "
            f"on every seed ({len(rcands)} candidates tried)"
        )
    # Mutations around the records and their value nodes.
    mutants = []
    for i, doc in enumerate(docs):
        targets = [t[0].element for rec in grounded[i] for t in rec.values() if t]
        mutants.append(
            mutate_tree(
                doc, targets=targets, records=roots[i], operators=operators, seed=mutation_seed + i
            )
        )

    def root_score(c: RootCandidate) -> float:
        xp = compiled(c.xpath)
        ok = total = 0
        for i, ms in enumerate(mutants):
            for m in ms:
                total += 1
                assert xp is not None
                res = xp(m.doc)
                found = (
                    [x for x in res if isinstance(x, etree._Element)]
                    if isinstance(res, list)
                    else []
                )
                ok += root_result_ok(found, m.records, counts[c.xpath][i])
        return ok / total if total else 1.0

    scored_roots = sorted(
        ((root_score(c), c) for c in ok_roots), key=lambda sc: (-sc[0], sc[1].prior)
    )
    root_xpath = scored_roots[0][1].xpath
    # Fields relative to the roots.
    specs: dict[str, FieldSpec] = {}
    reports: dict[str, FieldReport] = {}
    for f in fields:
        if f.name not in names:
            continue
        cands: dict[tuple[str, Normalize], tuple[XCandidate, set[int]]] = {}
        for i, recs in enumerate(grounded):
            for r, rec in enumerate(recs):
                root = roots[i][r]
                for t in rec[f.name][:4]:
                    if root not in t.element.iterancestors() and t.element is not root:
                        continue
                    for xc in generate_candidates(
                        t, root, relative=True, value_norm=norm(values[i][f.name][r] or "")
                    ):
                        key = (xc.xpath, xc.normalize)
                        if key in cands:
                            cands[key][1].add(i)
                        else:
                            cands[key] = (xc, {i})
        seed_exps = [
            [
                Expectation(roots[i][r], values[i][f.name][r], f.type, seeds[i].url)
                for r in range(len(roots[i]))
            ]
            for i in range(len(seeds))
        ]

        def mexps(_: int, f: FieldRequest = f) -> list[list[tuple[Any, list[Expectation]]]]:
            return [
                [
                    (
                        m,
                        [
                            Expectation(m.records[r], values[i][f.name][r], f.type, seeds[i].url)
                            for r in range(len(m.records))
                        ],
                    )
                    for m in mutants[i]
                ]
                for i in range(len(seeds))
            ]

        best, ranked, probs = _choose(f.name, cands, seed_exps, mexps)
        rep = _field_report(f, best, ranked, len(cands), probs)
        reports[f.name] = rep
        problems += list(rep.problems)
        if best is None:
            if strict:
                raise AuthoringError(probs[0])
            continue
        flat = [v for i in range(len(seeds)) for v in values[i][f.name] if v]
        rep = _finalize(rep, f.type, [r for rr in roots for r in rr])
        same = _same_everywhere(f.name, flat)
        rep = replace(rep, problems=rep.problems + tuple(same))
        problems += same
        reports[f.name] = rep
        specs[f.name] = _spec(f, rep, flat)
    return root_xpath, specs, reports, problems


# -- public API ---------------------------------------------------------------------------------


def _is_list_page(fields: Sequence[FieldRequest], ex: Sequence[Mapping[str, Any]]) -> bool:
    types = {f.name: f.type for f in fields}
    return any(isinstance(v, list) and types.get(k) != "list" for e in ex for k, v in e.items())


def author_page_type(
    seeds: Sequence[SeedPage],
    fields: Sequence[FieldRequest],
    examples: Examples,
    *,
    list_page: bool | None = None,
    mutation_seed: int = 0,
    operators: Sequence[str] | None = None,
    name: str | None = None,
    match: str | None = None,
    strict: bool = True,
) -> AuthoringResult:
    """Author one page type from seeds of one template and example values.

    ``examples`` maps each seed's ``source`` (or ``url``, or file name) to ``{field: value}``;
    on list pages (``list_page=True``, or auto-detected when values are lists for non-list
    fields) each value is a list with one entry per example record (≥ 2 records per page).
    ``operators`` selects the mutation operators used for robustness scoring (default: all of
    ``mutate.OPERATORS``), ``mutation_seed`` seeds their RNG. With ``strict`` (default) a value
    that grounds nowhere raises :class:`GroundingError` naming field and page, and a field no
    XPath reproduces raises :class:`AuthoringError`; otherwise such fields are left out and the
    reasons go to ``problems``.
    """
    t0 = time.perf_counter()
    if not seeds:
        raise AuthoringError("no seed pages given")
    _check_fields(fields)
    ex = _examples_for(seeds, examples)
    docs = []
    for s in seeds:
        try:
            docs.append(parse_html(s.html))
        except AnchorpathError as exc:
            raise AuthoringError(f"{s.source}: cannot parse seed page: {exc}") from exc
    idx = [DocIndex(d, s.url) for d, s in zip(docs, seeds, strict=True)]
    is_list = _is_list_page(fields, ex) if list_page is None else list_page
    pagination = None
    root_xpath = None
    if is_list:
        root_xpath, specs, reports, problems = _author_list(
            seeds,
            docs,
            idx,
            fields,
            ex,
            mutation_seed=mutation_seed,
            operators=operators,
            strict=strict,
        )
        nxt = detect_pagination(list(zip(docs, [s.url for s in seeds], strict=True)))
        pagination = Pagination(nxt) if nxt else None
    else:
        specs, reports, problems = _author_detail(
            seeds,
            docs,
            idx,
            fields,
            ex,
            mutation_seed=mutation_seed,
            operators=operators,
            strict=strict,
        )
    if not specs:
        raise AuthoringError("no field could be authored: " + "; ".join(problems[:3]))
    ordered = {f.name: specs[f.name] for f in fields if f.name in specs}
    pt = PageType(
        name=name or ("list" if is_list else "detail"),
        match=match or _match_regex(seeds),
        fields=ordered,
        record_root=root_xpath,
    )
    return AuthoringResult(
        pt,
        reports,
        tuple(dict.fromkeys(problems)),
        pagination,
        tuple(seeds),
        round(time.perf_counter() - t0, 3),
    )


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
    site_id = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._") or "site"
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
        raise AuthoringError(f"key field(s) {', '.join(missing)} not authored")
    urls = list(start_urls) if start_urls else [s.url for s in main.seeds[:1]] or ["about:blank"]
    pagination = next((r.pagination for r in results if r.pagination), None)
    seeds = tuple(Seed(s.url, s.sha256) for r in results for s in r.seeds)
    prov = Provenance(method="examples", author=author, tool_version=__version__, seeds=seeds)
    return SelectorFile(
        site=Site(site_id, site_name or name),
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
    *,
    key: Sequence[str] | None = None,
    start_urls: Sequence[str] | None = None,
    list_page: bool | None = None,
    mutation_seed: int = 0,
    operators: Sequence[str] | None = None,
    page_type: str | None = None,
    match: str | None = None,
    author: str | None = None,
    strict: bool = True,
) -> SelectorFile:
    """Author a one-page-type site: ``author_page_type`` + ``assemble_site``.

    ``key`` defaults to the first required field, else the first field; ``start_urls``
    default to the first seed URL; provenance records method ``examples`` and each seed's
    sha256.
    """
    result = author_page_type(
        seeds,
        fields,
        examples,
        list_page=list_page,
        mutation_seed=mutation_seed,
        operators=operators,
        name=page_type,
        match=match,
        strict=strict,
    )
    return assemble_site(name, [result], key=key, start_urls=start_urls, author=author)

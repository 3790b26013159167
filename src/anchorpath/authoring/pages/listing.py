"""Authoring a list page type (several records per page): ground every example record,
induce and score the record-root XPath, then choose each field's XPath relative to the
record roots."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

from lxml import etree

from anchorpath._errors import AuthoringError, GroundingError
from anchorpath.authoring.candidates.ground import (
    DocIndex,
    Target,
    ground_value,
    grounding_note,
    itext,
    norm,
)
from anchorpath.authoring.candidates.xpath_common import (
    XCandidate,
    class_predicate,
    stable_classes,
)
from anchorpath.authoring.candidates.xpathgen import generate_candidates
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.pages.records import (
    RootCandidate,
    induce_roots,
    probe_path,
    root_candidates,
    root_result_ok,
    similar_records,
)
from anchorpath.authoring.reports import FieldReport, FieldRequest
from anchorpath.authoring.scoring.choose import (
    as_str,
    choose_xpath,
    field_report,
    field_spec,
    finalize_report,
    same_everywhere,
)
from anchorpath.authoring.scoring.mutate import Mutant, mutate_tree
from anchorpath.authoring.scoring.verify import Expectation, Scored, compiled, read_values
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.model import FieldSpec, Normalize

#: ``values[i][field]``: the example values on seed ``i``, one per example record.
_Values = list[dict[str, list[str | None]]]
#: ``grounded[i][r][field]``: the candidate targets of example record ``r`` on seed ``i``.
_Grounded = list[list[dict[str, list[Target]]]]


def author_list(
    seeds: Sequence[SeedPage],
    docs: list[etree._Element],
    idx: list[DocIndex],
    fields: Sequence[FieldRequest],
    ex: list[Mapping[str, Any]],
    options: AuthoringOptions,
) -> ListAuthored:
    """Record-root XPath, specs, reports, problems and shortfalls for a list page type
    (``options``: strict, the mutation operators and their RNG seed).

    Phases: read the example records, ground their values, induce the record roots, choose
    the record-root XPath (verified on the seeds, scored under mutations around the records),
    then author each field relative to the roots. One odd example costs that example, not
    the page type: an example record that does not sit in a record like the others is left
    out, and a field no XPath reproduces on every seed keeps the one right on most example
    values; both are named in ``shortfalls`` (the file is partial).
    """
    values = _record_values(seeds, ex, fields)
    names = [f.name for f in fields if any(f.name in v for v in values)]
    strict = options.strict
    grounded, problems = _ground_records(seeds, idx, fields, names, values, strict=strict)
    shortfalls: list[str] = []
    roots = _record_roots(seeds, grounded, names, values, shortfalls)
    fit = _fit_roots(seeds, docs, grounded, names, values, roots, problems, shortfalls)
    problems += shortfalls
    keep = fit.seeds
    seeds, docs = [seeds[i] for i in keep], [docs[i] for i in keep]
    grounded, values = [grounded[i] for i in keep], [values[i] for i in keep]
    roots, probe, ok_roots, counts = [roots[i] for i in keep], fit.probe, fit.ok, fit.counts
    mutants = _record_mutants(docs, grounded, roots, options)
    similar = [
        similar_records(d, rr, probe) if probe else len(rr)
        for d, rr in zip(docs, roots, strict=True)
    ]
    root_xpath = _best_root(ok_roots, counts, mutants, similar, probe).xpath
    problems += _count_report(seeds, counts[root_xpath], similar)
    rows = [r for d in docs for r in _elements(_xpath(root_xpath)(d))]
    specs: dict[str, FieldSpec] = {}
    reports: dict[str, FieldReport] = {}
    for f in fields:
        if f.name not in names:
            continue
        rep, spec, field_problems = _author_field(
            f, seeds, grounded, roots, values, mutants, rows, strict=strict
        )
        reports[f.name] = rep
        problems += field_problems
        if spec is not None:
            specs[f.name] = spec
            shortfalls += [w for w in spec.warnings if _NOT_EVERY_SEED in w]
    return ListAuthored(root_xpath, specs, reports, problems, shortfalls, tuple(keep))


#: Words of the warning of a field kept although it is right on most, not all, seeds.
_NOT_EVERY_SEED = "no XPath reproduces the examples on every seed"


@dataclass(frozen=True)
class ListAuthored:
    """What ``author_list`` found: the record root, each field's spec and report, everything
    worth telling (``problems``) and what the file does not reproduce of the examples
    (``shortfalls``: left-out example records, fields right on most seeds only)."""

    record_root: str
    specs: dict[str, FieldSpec]
    reports: dict[str, FieldReport]
    problems: list[str]
    shortfalls: list[str]
    #: The indexes of the seeds authored from (all but a seed of another template).
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class _Fit:
    """Record-root candidates fitting the example rows of the seeds ``seeds`` (indexes),
    the probe they were checked with and the rows each selects per kept seed."""

    seeds: list[int]
    probe: str | None
    ok: list[RootCandidate]
    counts: dict[str, list[int]]


def _fit_roots(
    seeds: Sequence[SeedPage],
    docs: list[etree._Element],
    grounded: _Grounded,
    names: list[str],
    values: _Values,
    roots: list[list[etree._Element]],
    problems: list[str],
    shortfalls: list[str],
) -> _Fit:
    """Record-root candidates selecting exactly the example records' rows on every seed.

    When none does, one odd example or one odd seed costs itself, not the page type (named
    in ``shortfalls``, the file is partial):

    1. an example record whose value sits at another path inside its row than the other
       examples' values on that seed (a sponsored row copied with the results) is left out
       (from ``grounded``, ``values`` and ``roots`` too), the others' roots induced and
       fitted again;
    2. seeds of two templates (no root fits them all): the largest set of seeds that one
       root fits is kept, the first seeds first on a tie, and each seed left out is named.
    """
    probe = _probe(grounded, names, roots)
    ok, counts, tried = _seed_verified_roots(docs, roots, probe, problems)
    if ok:
        return _Fit(list(range(len(seeds))), probe, ok, counts)
    odd = _odd_records(grounded, names, roots)
    if any(odd):
        g2, r2 = [list(x) for x in grounded], [list(x) for x in roots]
        v2 = [{n: list(v) for n, v in d.items()} for d in values]
        said = []
        for i, rs in enumerate(odd):
            for r in rs:
                shown = next((v2[i][n][r] for n in names if v2[i].get(n, [None])[r]), "?")
                said.append(
                    f"{seeds[i].source}: example record {r + 1} ({shown!r}) has its value "
                    "at another place in its row than the other examples (a sponsored or "
                    "featured row?); left out, the others authored"
                )
            for r in sorted(rs, reverse=True):
                del g2[i][r], r2[i][r]
                for n in v2[i]:
                    del v2[i][n][r]
        for i, recs in enumerate(g2):  # the roots the remaining examples agree on
            again = induce_roots([[[t.element for t in rec[n]] for n in names] for rec in recs])
            r2[i] = again if again is not None else r2[i]
        probe = _probe(g2, names, r2)
        ok, counts, _ = _seed_verified_roots(docs, r2, probe, problems)
        if ok:
            grounded[:], roots[:], values[:] = g2, r2, v2
            shortfalls += said
            return _Fit(list(range(len(seeds))), probe, ok, counts)
    for size in range(len(seeds) - 1, 0, -1):
        for keep in combinations(range(len(seeds)), size):
            sub = [roots[i] for i in keep]
            probe = _probe([grounded[i] for i in keep], names, sub)
            ok, counts, _ = _seed_verified_roots([docs[i] for i in keep], sub, probe, problems)
            if ok:
                left = [seeds[i].source for i in range(len(seeds)) if i not in keep]
                shortfalls.append(
                    f"no record root fits the example records of every seed; authored from "
                    f"{', '.join(seeds[i].source for i in keep)}, left out {', '.join(left)} "
                    "(a page of another template?)"
                )
                return _Fit(list(keep), probe, ok, counts)
    raise AuthoringError(
        "no record-root XPath selects exactly the example records' rows "
        f"on every seed ({tried} candidates tried)"
    )


def _odd_records(
    grounded: _Grounded, names: list[str], roots: list[list[etree._Element]]
) -> list[list[int]]:
    """Per seed, the example records whose first value sits at a path inside their row
    (:func:`probe_path`) that a strict majority of the seed's other examples do not share;
    none on a seed where fewer than two examples would remain."""
    out: list[list[int]] = []
    for recs, rr in zip(grounded, roots, strict=True):
        paths: list[str | None] = []
        for rec, root in zip(recs, rr, strict=True):
            node = next((rec[n][0].element for n in names if rec.get(n)), None)
            inside = node is not None and (node is root or root in node.iterancestors())
            paths.append(probe_path(root, node) if node is not None and inside else None)
        known = [p for p in paths if p is not None]
        top = max(sorted(set(known)), key=known.count) if known else None
        odd = [r for r, p in enumerate(paths) if p is not None and p != top]
        majority = top is not None and 2 * known.count(top) > len(known)
        out.append(odd if majority and len(paths) - len(odd) >= 2 else [])
    return out


def _record_values(
    seeds: Sequence[SeedPage], ex: list[Mapping[str, Any]], fields: Sequence[FieldRequest]
) -> _Values:
    """Each seed's example values per field, one per record; every field must give the same
    number of records, at least two."""
    values: _Values = []
    for s, e in zip(seeds, ex, strict=True):
        per: dict[str, list[str | None]] = {}
        n = None
        for f in fields:
            raw = e.get(f.name)
            if raw is None:
                continue
            lst = raw if isinstance(raw, list) else [raw]
            per[f.name] = [as_str(x) for x in lst]
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
    return values


def _ground_records(
    seeds: Sequence[SeedPage],
    idx: list[DocIndex],
    fields: Sequence[FieldRequest],
    names: list[str],
    values: _Values,
    *,
    strict: bool,
) -> tuple[_Grounded, list[str]]:
    """Ground every example value of every record; values that cannot be grounded are
    problems (errors when ``strict``)."""
    types = {f.name: f.type for f in fields}
    problems: list[str] = []
    grounded: _Grounded = []
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
                    where = f"{s.source} (record {r + 1})"
                    rec[name] = ground_value(ix, v, field=name, page=where, ftype=types[name])
                    note = grounding_note(rec[name], v, field=name, page=where)
                    if note:
                        problems.append(note)
                except GroundingError as exc:
                    if strict:
                        raise
                    problems.append(str(exc))
                    rec[name] = []
            recs.append(rec)
        grounded.append(recs)
    return grounded, problems


def _record_roots(
    seeds: Sequence[SeedPage],
    grounded: _Grounded,
    names: list[str],
    values: _Values,
    shortfalls: list[str],
) -> list[list[etree._Element]]:
    """Per seed, the repeating elements (one per example record) holding the records.

    When the records only line up without one of the examples (a sponsored row or a
    featured box copied with the others), that example record is left out (from
    ``grounded`` and ``values`` too) and named in ``shortfalls``; an error when fewer than
    two would remain.
    """
    roots: list[list[etree._Element]] = []
    for i, recs in enumerate(grounded):
        per_record = [[[t.element for t in rec[n]] for n in names] for rec in recs]
        rr = induce_roots(per_record)
        if rr is None:
            misfit = _misfit(per_record)
            if misfit is None:
                raise AuthoringError(
                    f"{seeds[i].source}: cannot find a repeating record element holding the "
                    "example records (are the values of different records really in different "
                    "rows?)"
                )
            r, rest = misfit
            shown = next((values[i][n][r] for n in names if values[i].get(n, [None])[r]), "?")
            where = next((t.describe() for n in names for t in recs[r][n]), "nowhere")
            msg = (
                f"{seeds[i].source}: example record {r + 1} ({shown!r}, found at {where}) does "
                f"not sit in a record like the other {len(recs) - 1} examples"
            )
            if len(rest) < 2:
                raise AuthoringError(msg)
            shortfalls.append(msg + "; left out, the others authored")
            del recs[r]
            for n in values[i]:
                del values[i][n][r]
            rr = rest
        roots.append(rr)
    return roots


def _misfit(
    per_record: list[list[list[etree._Element]]],
) -> tuple[int, list[etree._Element]] | None:
    """The one example record without which the others line up as records, with their roots."""
    if len(per_record) < 3:
        return None
    for r in range(len(per_record)):
        rest = induce_roots(per_record[:r] + per_record[r + 1 :])
        if rest is not None:
            return r, rest
    return None


def _probe(grounded: _Grounded, names: list[str], roots: list[list[etree._Element]]) -> str | None:
    """The tag path from a record root to its first field's node (``h3/a``), the most common
    over the example records, its last step qualified by a stable class all those nodes share
    (``div[…'url'…]``): every record of the template holds it, a footer block does not."""
    found: list[tuple[str, etree._Element]] = []
    for recs, rr in zip(grounded, roots, strict=True):
        for rec, root in zip(recs, rr, strict=True):
            node = next((rec[n][0].element for n in names if rec.get(n)), None)
            if node is not None and (node is root or root in node.iterancestors()):
                found.append((probe_path(root, node), node))
    if not found:
        return None
    probes = [p for p, _ in found]
    probe = max(sorted(set(probes)), key=probes.count)
    if probe == ".":
        return probe
    nodes = [n for p, n in found if p == probe]
    common = set(stable_classes(nodes[0]))
    for n in nodes[1:]:
        common &= set(stable_classes(n))
    return f"{probe}[{class_predicate(min(common))}]" if common else probe


def _count_report(seeds: Sequence[SeedPage], found: list[int], similar: list[int]) -> list[str]:
    """Count plausibility, per seed: records selected, and a warning when the page holds more
    elements alike to the example records than the record root selects."""
    out = [
        "record root selects "
        + ", ".join(f"{n} record(s) on {s.source}" for n, s in zip(found, seeds, strict=True))
    ]
    for n, m, s in zip(found, similar, seeds, strict=True):
        if n < m:
            out.append(
                f"{s.source}: record root selects {n} records but the page has {m} elements "
                "alike to the example records: some records of the template may be missed"
            )
    return out


def _xpath(expr: str) -> etree.XPath:
    """``expr`` compiled (one the authoring generated and evaluated already)."""
    xp = compiled(expr)
    assert xp is not None
    return xp


def _elements(res: object) -> list[etree._Element]:
    return [x for x in res if isinstance(x, etree._Element)] if isinstance(res, list) else []


#: Rows that hold no text, or an ad frame: what a list interleaves with its records
#: (spacers, ad slots). A record root may leave them out with this predicate.
NOT_FILLER = "[normalize-space()][not(descendant::iframe or descendant::ins or descendant::embed)]"


def _seed_verified_roots(
    docs: list[etree._Element],
    roots: list[list[etree._Element]],
    probe: str | None,
    problems: list[str],
) -> tuple[list[RootCandidate], dict[str, list[int]], int]:
    """Record-root candidates that select exactly the example records' rows on every seed
    (maybe none), the number of rows each selects per seed, and how many were tried.

    Rule: when none does because a candidate's extra rows are empty or ad-shaped (spacers,
    ad slots between the records), the candidate narrowed by :data:`NOT_FILLER` is tried,
    and kept with a note in ``problems`` when it selects exactly the records."""
    rcands: dict[str, RootCandidate] = {}
    for rr in roots:
        for c in root_candidates(rr, probe):
            rcands.setdefault(c.xpath, c)
    ok_roots, counts = _exact_roots(docs, roots, probe, rcands.values())
    if not ok_roots:
        narrowed = [
            RootCandidate(c.xpath + NOT_FILLER, c.kind, c.positional + 1)
            for c in rcands.values()
            if _extras_are_filler(docs, roots, c.xpath, probe)
        ]
        ok_roots, counts = _exact_roots(docs, roots, probe, narrowed)
        if ok_roots:
            problems.append(
                "record root: no XPath selects exactly the example records' rows; the rows "
                "between them with no text or an ad frame (iframe, ins, embed) are left out "
                f"with {NOT_FILLER}"
            )
    return ok_roots, counts, len(rcands)


def _exact_roots(
    docs: list[etree._Element],
    roots: list[list[etree._Element]],
    probe: str | None,
    cands: Iterable[RootCandidate],
) -> tuple[list[RootCandidate], dict[str, list[int]]]:
    counts: dict[str, list[int]] = {}
    ok_roots = []
    for c in cands:
        xp = compiled(c.xpath)
        if xp is None:
            continue
        cs = []
        for d, rr in zip(docs, roots, strict=True):
            found = _elements(xp(d))
            if not root_result_ok(found, rr, probe=probe):
                break
            cs.append(len(found))
        else:
            ok_roots.append(c)
            counts[c.xpath] = cs
    return ok_roots, counts


def _is_filler(el: etree._Element) -> bool:
    return not itext(el).strip() or any(True for _ in el.iter("iframe", "ins", "embed"))


def _extras_are_filler(
    docs: list[etree._Element], roots: list[list[etree._Element]], xpath: str, probe: str | None
) -> bool:
    """``xpath`` selects the example rows on every seed as a record root must, once its
    empty or ad-shaped rows are set aside, and some such rows besides."""
    xp = compiled(xpath)
    if xp is None:
        return False
    extra = 0
    for d, rr in zip(docs, roots, strict=True):
        found = _elements(xp(d))
        kept = [f for f in found if not _is_filler(f)]
        if not root_result_ok(kept, rr, probe=probe):
            return False
        extra += len(found) - len(kept)
    return extra > 0


def _record_mutants(
    docs: list[etree._Element],
    grounded: _Grounded,
    roots: list[list[etree._Element]],
    options: AuthoringOptions,
) -> list[list[Mutant]]:
    """Per seed, the synthetic mutations around the records and their value nodes."""
    mutants = []
    for i, doc in enumerate(docs):
        targets = [t[0].element for rec in grounded[i] for t in rec.values() if t]
        mutants.append(
            mutate_tree(
                doc,
                targets=targets,
                records=roots[i],
                operators=options.operators,
                seed=options.mutation_seed + i,
            )
        )
    return mutants


def _best_root(
    ok_roots: list[RootCandidate],
    counts: dict[str, list[int]],
    mutants: list[list[Mutant]],
    similar: list[int],
    probe: str | None,
) -> RootCandidate:
    """The record-root candidate covering the most records alike to the examples (records
    beyond the look-alikes count against it), then surviving the most mutations, then by
    prior."""

    def coverage(c: RootCandidate) -> int:
        return sum(min(n, m) - max(0, n - m) for n, m in zip(counts[c.xpath], similar, strict=True))

    def root_score(c: RootCandidate) -> float:
        xp = compiled(c.xpath)
        ok = total = 0
        for i, ms in enumerate(mutants):
            for m in ms:
                total += 1
                assert xp is not None
                found = _elements(xp(m.doc))
                ok += root_result_ok(found, m.records, counts[c.xpath][i], probe=probe)
        return ok / total if total else 1.0

    best_cover = max(coverage(c) for c in ok_roots)
    covering = [c for c in ok_roots if coverage(c) == best_cover]
    scored_roots = sorted(
        ((root_score(c), c) for c in covering), key=lambda sc: (-sc[0], sc[1].prior)
    )
    return scored_roots[0][1]


def _author_field(
    f: FieldRequest,
    seeds: Sequence[SeedPage],
    grounded: _Grounded,
    roots: list[list[etree._Element]],
    values: _Values,
    mutants: list[list[Mutant]],
    rows: list[etree._Element],
    *,
    strict: bool,
) -> tuple[FieldReport, FieldSpec | None, list[str]]:
    """One field's XPath relative to the record roots: its report, its spec (None when no
    candidate reproduces the examples; an error when ``strict``) and its problems.

    Rule: among the XPaths that reproduce the examples, the one giving a value on more of the
    seeds' record rows (``rows``, all the record root selects) wins, then the usual ranking:
    a cover image's ``alt`` that some rows lack loses to the link text every row has."""
    cands = _field_candidates(f.name, grounded, roots, values)
    seed_exps = [
        [
            Expectation(roots[i][r], values[i][f.name][r], f.type, seeds[i].url)
            for r in range(len(roots[i]))
        ]
        for i in range(len(seeds))
    ]

    def mexps(_: int) -> list[list[tuple[Mutant, list[Expectation]]]]:
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

    best, ranked, probs = choose_xpath(f.name, cands, seed_exps, mexps, most=True)
    if best is not None:
        ranked = _by_row_coverage(ranked, rows)
        best = ranked[0]
    rep = field_report(f, best, ranked, len(cands), probs)
    if best is not None and not best.all_ok:
        rep = replace(rep, warnings=(probs[0], *rep.warnings))
    problems = list(rep.problems)
    if best is None:
        if strict:
            raise AuthoringError(probs[0])
        return rep, None, problems
    flat = [v for i in range(len(seeds)) for v in values[i][f.name] if v]
    rep = finalize_report(rep, f.type, [r for rr in roots for r in rr])
    same = same_everywhere(f.name, flat)
    rep = replace(rep, problems=rep.problems + tuple(same))
    return rep, field_spec(f, rep, flat), problems + same


def _by_row_coverage(ranked: list[Scored], rows: Sequence[etree._Element]) -> list[Scored]:
    """``ranked`` ordered by the number of ``rows`` on which the candidate reads a non-empty
    value, most first (a stable sort: the ranking decides among equals)."""

    def covered(s: Scored) -> int:
        n = 0
        for row in rows:
            got = read_values(s.candidate.xpath, row, s.candidate.normalize)
            n += bool(got and got[0])
        return n

    return sorted(ranked, key=lambda s: -covered(s))


def _field_candidates(
    name: str, grounded: _Grounded, roots: list[list[etree._Element]], values: _Values
) -> dict[tuple[str, Normalize], tuple[XCandidate, set[int]]]:
    """Candidates relative to the record root from every grounded target (up to four per
    record) inside its record, with the seeds each was proposed on."""
    cands: dict[tuple[str, Normalize], tuple[XCandidate, set[int]]] = {}
    for i, recs in enumerate(grounded):
        for r, rec in enumerate(recs):
            root = roots[i][r]
            for t in rec[name][:4]:
                if root not in t.element.iterancestors() and t.element is not root:
                    continue
                for xc in generate_candidates(
                    t, root, relative=True, value_norm=norm(values[i][name][r] or "")
                ):
                    key = (xc.xpath, xc.normalize)
                    if key in cands:
                        cands[key][1].add(i)
                    else:
                        cands[key] = (xc, {i})
    return cands

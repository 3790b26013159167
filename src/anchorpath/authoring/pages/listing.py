"""Authoring a list page type (several records per page): ground every example record,
induce and score the record-root XPath, then choose each field's XPath relative to the
record roots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from lxml import etree

from anchorpath._errors import AuthoringError, GroundingError
from anchorpath.authoring.candidates.ground import DocIndex, Target, ground_value, norm
from anchorpath.authoring.candidates.xpath_common import XCandidate
from anchorpath.authoring.candidates.xpathgen import generate_candidates
from anchorpath.authoring.pages.records import (
    RootCandidate,
    induce_roots,
    root_candidates,
    root_result_ok,
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
from anchorpath.authoring.scoring.mutate import mutate_tree
from anchorpath.authoring.scoring.verify import Expectation, compiled
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.model import FieldSpec, Normalize


def author_list(
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
    """Record-root XPath, specs, reports and problems for a list page type."""
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

        best, ranked, probs = choose_xpath(f.name, cands, seed_exps, mexps)
        rep = field_report(f, best, ranked, len(cands), probs)
        reports[f.name] = rep
        problems += list(rep.problems)
        if best is None:
            if strict:
                raise AuthoringError(probs[0])
            continue
        flat = [v for i in range(len(seeds)) for v in values[i][f.name] if v]
        rep = finalize_report(rep, f.type, [r for rr in roots for r in rr])
        same = same_everywhere(f.name, flat)
        rep = replace(rep, problems=rep.problems + tuple(same))
        problems += same
        reports[f.name] = rep
        specs[f.name] = field_spec(f, rep, flat)
    return root_xpath, specs, reports, problems

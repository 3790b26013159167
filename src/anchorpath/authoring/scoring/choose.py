"""Choosing one field's XPath: verify the candidates on the seeds, score the survivors
under synthetic mutations, rank them, pick fallbacks, and turn the choice into a report
and a :class:`FieldSpec`. Shared by detail and list pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from lxml import etree

from anchorpath.authoring.candidates.xpath_common import XCandidate, literal
from anchorpath.authoring.reports import CandidateScore, FieldReport, FieldRequest
from anchorpath.authoring.scoring.mutate import Mutant
from anchorpath.authoring.scoring.verify import (
    Expectation,
    Scored,
    compiled,
    leave_one_out,
    reproduces,
)
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.model import FieldSpec, Normalize

#: Candidates scored under mutation per field (best by prior); the rest only verified on seeds.
MAX_SCORED = 16
MAX_PREVIEW = 48


def as_str(v: Any) -> str | None:
    """An example value as text (``12.0`` -> ``12``); None for missing or blank."""
    if v is None:
        return None
    if isinstance(v, float) and v == int(v):
        v = int(v)
    s = str(v)
    return s if s.strip() else None


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
    mutants: Sequence[Sequence[tuple[Mutant, Sequence[Expectation]]]],
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


def choose_xpath(
    fname: str,
    cands: Mapping[tuple[str, Normalize], tuple[XCandidate, set[int]]],
    seed_exps: Sequence[Sequence[Expectation]],
    mutant_exps: Callable[[int], Sequence[Sequence[tuple[Mutant, Sequence[Expectation]]]]],
    *,
    most: bool = False,
) -> tuple[Scored | None, list[Scored], list[str]]:
    """Verify candidates on the seeds, score the survivors under mutation, rank them.

    Rule: an XPath right on every seed wins. With ``most`` (list pages, where one odd example
    record must not cost the field), when none is, the candidate reproducing the most example
    values is taken if it is right on at least one whole seed and on more than half of all
    the example values; ``problems`` then starts with a warning saying so (the caller reports
    the file as partial).
    """
    scored = []
    for cand, origins in cands.values():
        s = Scored(cand, origins)
        per = [[reproduces(cand.xpath, cand.normalize, e) for e in exps] for exps in seed_exps]
        s.seed_ok = [all(x) for x in per]
        s.values_ok = sum(sum(x) for x in per)
        scored.append(s)
    passing = sorted((s for s in scored if s.all_ok), key=lambda s: s.candidate.prior)
    problems: list[str] = []
    if not passing:
        total = sum(len(exps) for exps in seed_exps)
        near = max(scored, key=lambda s: (sum(s.seed_ok), s.values_ok), default=None)
        hint = (
            f"; closest: {near.candidate.xpath} (right on {sum(near.seed_ok)}/"
            f"{len(near.seed_ok)} seeds, {near.values_ok}/{total} example values)"
            if near
            else ""
        )
        msg = (
            f"field {fname!r}: no XPath reproduces the examples on every seed "
            f"({len(scored)} candidates tried)"
        )
        most_ok = [s for s in scored if any(s.seed_ok) and 2 * s.values_ok > total]
        if not most or not most_ok:
            return None, scored, [msg + hint]
        top = max(s.values_ok for s in most_ok)
        passing = sorted(
            (s for s in most_ok if s.values_ok == top), key=lambda s: s.candidate.prior
        )
        problems.append(
            f"{msg}; kept the best, right on {top}/{total} example values "
            f"({sum(passing[0].seed_ok)}/{len(seed_exps)} seeds whole)"
        )
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


def field_report(
    f: FieldRequest,
    best: Scored | None,
    ranked: list[Scored],
    considered: int,
    problems: list[str],
) -> FieldReport:
    """The :class:`FieldReport` for one field from its ranked candidates."""
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
    warnings: tuple[str, ...] = ()
    if best.candidate.positional:
        warnings = (
            f"positional XPath ({best.candidate.positional} positional step(s)): no anchor "
            "reproduced the examples; a redesign may silently shift it to another node",
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
        tuple(problems + notes + [f"field {f.name!r}: {w}" for w in warnings]),
        warnings,
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


def finalize_report(
    rep: FieldReport, ftype: str, contexts: Sequence[etree._Element]
) -> FieldReport:
    """Read elements with markup inside as ``normalize-space(…)``: the same text the runner
    would coerce them to, without an ExtractionWarning on every page. Verification already
    checked the unwrapped path's cardinality."""
    if ftype == "list" or rep.xpath is None:
        return rep

    def wrap(x: str) -> str:
        return f"normalize-space({x})" if _reads_markup(x, contexts) else x

    return replace(rep, xpath=wrap(rep.xpath), fallbacks=tuple(wrap(x) for x in rep.fallbacks))


def same_everywhere(fname: str, values: Sequence[Any]) -> list[str]:
    """A warning when the example value is identical on every seed."""
    given = [json.dumps(v, ensure_ascii=False) for v in values if v]
    if len(given) > 1 and len(set(given)) == 1:
        return [
            f"field {fname!r}: the example value is the same on every seed; verification "
            "cannot tell an XPath for the field from one for that constant (add a seed with "
            "another value)"
        ]
    return []


def field_spec(f: FieldRequest, rep: FieldReport, examples: list[Any]) -> FieldSpec:
    """The :class:`FieldSpec` written to the selector file for one authored field."""
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
        warnings=rep.warnings,
    )


def label_ambiguity(
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

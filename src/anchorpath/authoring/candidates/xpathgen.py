"""XPath candidate generators, anchors first (in the spirit of Robula+).

For one grounded target node the generators propose, in order of preference:

1. **attribute anchors** — the target or an ancestor with a stable id, ``data-*``, ``itemprop``,
   ``name``, ``aria-label``, ``role``, ``property`` or stable class, then the shortest way down;
2. **label-text anchors** — the nearest short text acting as a label (``th``, ``dt``,
   ``label``, ``strong``/``b``, a ``span``/``div`` ending in ``:``, a table column header, or a
   label sharing the value's own text node, a bare ``By:`` text before the value element) and
   the axis that reaches the value
   (``following-sibling::td[1]``, ``parent::*/following-sibling::*[1]``, a header-anchored
   column, …);
3. **neighbour anchors** — the target told apart by a child or the nearest sibling with a
   stable class/attribute (``h2[span[@class~='subtitle']]``,
   ``h3[@class~='author']/preceding-sibling::h2[1]``): no first-of-tag step to shift;
4. **structural paths** — first-of-tag, then positional, then the absolute path (last resort
   and the benchmark's baseline).

Label and attribute anchors are also proposed *scoped by the nearest stable container*
(``/descendant::ul[@class~='details'][1]/descendant::strong[.='ISBN'][1]/…``, the nearest
stable id too): a decoy repeating the label earlier in the page takes an unscoped first match.
The longer scoped forms lose ties, so only mutation scoring (``decoy_label``) promotes them.

Auto-generated ids and classes (hash-like, digits) are never used as anchors. All generated
forms stop early (``/descendant::th[…][1]``) instead of scanning the whole tree with ``//``.
Candidates are *proposals*: ``scoring.verify`` decides which reproduce the examples.

Where the families live: ``attr_anchors.py`` (1 and 3), ``label_anchors.py`` (2),
``scoping.py`` (container-scoped variants), ``xpath_common.py`` (shared building blocks and
:class:`XCandidate`); JSON-LD and structural paths, and :func:`generate_candidates`, which
runs them all, are here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from lxml import etree

from anchorpath.authoring.candidates.attr_anchors import attribute_anchors, neighbour_anchors
from anchorpath.authoring.candidates.ground import Target
from anchorpath.authoring.candidates.label_anchors import label_anchors
from anchorpath.authoring.candidates.scoping import (
    scoped_variants,
)
from anchorpath.authoring.candidates.xpath_common import (
    ANY_HEADING,
    HEADINGS,
    XCandidate,
    absolute_xpath,
    child_steps,
    descendant_prefix,
    down_paths,
    first_match,
    literal,
    query_form,
    residue_normalizations,
    tag_of,
    value_suffix,
)
from anchorpath.selectors.model import Anchor, Normalize

__all__ = [
    "generate_candidates",
]


def _jsonld_candidate(target: Target, relative: bool) -> Iterator[XCandidate]:
    script = target.element
    raw = script.text or ""
    key = target.json_key or ""
    m = re.search(r'"' + re.escape(key) + r'"\s*:\s*"', raw)
    if not m:
        return
    opener = m.group(0)
    doc_expr = (
        f"{descendant_prefix(relative)}script[@type='application/ld+json'][{target.text_index}]"
    )
    yield XCandidate(
        f"substring-before(substring-after({doc_expr}, {literal(opener)}), '\"')",
        "jsonld",
        Anchor("attribute", key, attribute="json-ld"),
    )


def _structural(target: Target, ctx: etree._Element, relative: bool) -> Iterator[XCandidate]:
    el = target.element
    pfx = descendant_prefix(relative)
    suffix = value_suffix(target)
    tag = tag_of(el)
    norms = residue_normalizations(target)
    ctx_q = query_form(relative)
    if tag in HEADINGS:
        heads = ctx.xpath(ctx_q(f"{pfx}{ANY_HEADING}"))
        if isinstance(heads, list) and el in heads:
            k = heads.index(el) + 1
            for nz in norms:
                yield XCandidate(
                    f"{pfx}{ANY_HEADING}[{k}]{suffix}",
                    "structure",
                    Anchor("structure"),
                    nz,
                    0 if k == 1 else 1,
                )
    all_tag = ctx.xpath(ctx_q(f"{pfx}{tag}"))
    if isinstance(all_tag, list) and el in all_tag:
        k = all_tag.index(el) + 1
        for nz in norms:
            yield XCandidate(
                f"{pfx}{tag}[{k}]{suffix}", "structure", Anchor("structure"), nz, 0 if k == 1 else 1
            )
    if relative:
        steps = child_steps(ctx, el)
        if steps is not None:
            for nz in norms:
                yield XCandidate(
                    "." + steps[0] + suffix, "structure", Anchor("structure"), nz, steps[1]
                )
    else:
        path = absolute_xpath(el)
        for nz in norms:
            yield XCandidate(path + suffix, "absolute", Anchor("structure"), nz, path.count("["))


def generate_candidates(
    target: Target, ctx: etree._Element, *, relative: bool = False, value_norm: str = ""
) -> list[XCandidate]:
    """Every candidate XPath for ``target``, evaluated from ``ctx`` (document root, or the
    record root when ``relative``), deduplicated, in generator order."""
    out: list[XCandidate] = []
    if target.mode == "jsonld":
        out += _jsonld_candidate(target, relative)
        return out
    suffix = value_suffix(target)
    norms = residue_normalizations(target)
    for expr, kind, anchor, pos in attribute_anchors(target.element, ctx, relative):
        a_el = first_match(ctx, expr if relative else expr.lstrip("/"))
        if a_el is None:
            continue
        for down, dpos in down_paths(a_el, target.element):
            axis = (down.lstrip("/") + suffix) or None
            for nz in norms:
                out.append(
                    XCandidate(
                        expr + down + suffix,
                        kind,
                        Anchor(anchor.kind, anchor.value, anchor.attribute, axis),
                        nz,
                        pos + dpos,
                    )
                )
    out += label_anchors(target, ctx, relative, value_norm)
    out += neighbour_anchors(target, ctx, relative)
    if not relative:
        out += scoped_variants(out, ctx)
    out += _structural(target, ctx, relative)
    penalty = (target.zone != "body") + (
        target.mode == "element" and any(isinstance(c.tag, str) for c in target.element)
    )
    # A value cut out of running text ("Read all <title> reviews") is weaker evidence than
    # one after a label ("ISBN-13: …"): it pays in the ranking, not just on ties.
    label_residue = target.prefix.strip().endswith(":") and not target.suffix.strip()
    demerit = 0.0 if target.exact or label_residue else 0.1
    if target.zone != "body":
        # <title>/meta copies of a visible value gain the site's name or change with SEO;
        # the visible node wins unless it is far less robust.
        demerit += 0.25
    nth_text = f"/text()[normalize-space()][{target.text_index}]"
    out = [
        replace(
            c,
            penalty=penalty,
            # Anchors before positions: each positional step costs robustness in the ranking.
            demerit=demerit + 0.05 * min(c.positional, 4),
            positional=c.positional
            + (
                1
                if target.mode == "text"
                and (target.text_index or 1) > 1
                and c.xpath.endswith(nth_text)
                else 0
            ),
        )
        for c in out
    ]
    seen: set[tuple[str, Normalize]] = set()
    unique = []
    for c in out:
        k = (c.xpath, c.normalize)
        if k not in seen:
            seen.add(k)
            unique.append(c)
    return unique

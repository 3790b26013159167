"""Verification: does an XPath reproduce the examples, and how well does it survive change?

Reading a value here mirrors ``anchorpath.selectors.evaluate`` (element → its text, white space
collapsed, strip regexes applied) so that what passes here extracts the same way at run time.
On top of that it is *strict*: a single-valued field must yield exactly one node (nothing
spurious), a list field exactly the example list.

* seed reproduction: every seed, every example value, exactly (after normalisation);
* leave-one-seed-out: would authoring from the other seeds alone still have picked an XPath
  that is right on the held-out seed?
* robustness: the share of applicable mutations (``scoring.mutate``) under which the candidate
  still returns exactly the right value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from anchorpath.authoring.candidates.ground import itext, norm
from anchorpath.selectors.model import Normalize
from anchorpath.selectors.normalize import apply_strips, clean_text, convert

__all__ = [
    "Expectation",
    "Scored",
    "compiled",
    "leave_one_out",
    "read_values",
    "reproduces",
    "same_value",
]


@lru_cache(maxsize=8192)
def compiled(expr: str) -> etree.XPath | None:
    """The compiled XPath, or None if it does not compile (a generator bug, never fatal)."""
    try:
        return etree.XPath(expr)
    except etree.XPathError:
        return None


def _text(item: Any) -> str:
    if isinstance(item, etree._Element):
        return itext(item) if not hasattr(item, "text_content") else str(item.text_content())
    return str(item)


def read_values(expr: str, ctx: etree._Element, nz: Normalize) -> list[str] | None:
    """Cleaned texts the expression yields from ``ctx`` (one per node); None on error."""
    xp = compiled(expr)
    if xp is None:
        return None
    try:
        res = xp(ctx)
    except etree.XPathError:
        return None
    if isinstance(res, bool):
        return None
    items: list[Any] = res if isinstance(res, list) else [res]
    out = []
    for it in items:
        if isinstance(it, float):
            it = str(int(it)) if it == int(it) else str(it)
        t = clean_text(_text(it), nz.whitespace)
        if not t:
            if isinstance(it, etree._Element):
                out.append("")  # an empty element still counts as a (spurious) node
            continue
        out.append(apply_strips(t, nz))
    return out


def same_value(got: str, want: str, ftype: str = "string", base_url: str = "") -> bool:
    """Equal after normalisation (and, for typed fields, equal once converted)."""
    if norm(got) == norm(want):
        return True
    if ftype == "url" or got.startswith(("/", "./", "../", "?")):
        return norm(urljoin(base_url, got)) == norm(urljoin(base_url, want))
    if ftype in ("integer", "number", "date", "datetime"):
        try:
            nz = Normalize()
            return bool(convert(got, ftype, nz, base_url) == convert(want, ftype, nz, base_url))
        except ValueError:
            return False
    return False


@dataclass(frozen=True)
class Expectation:
    """What one context (a page, or a record root) must yield for one field.

    ``want`` None means the field is absent there: the XPath must find nothing.
    """

    ctx: etree._Element
    want: str | list[str] | None
    ftype: str = "string"
    base_url: str = ""


def reproduces(expr: str, nz: Normalize, exp: Expectation) -> bool:
    got = read_values(expr, exp.ctx, nz)
    if got is None:
        return False
    if exp.want is None:
        return not [g for g in got if g]
    if isinstance(exp.want, list):
        return len(got) == len(exp.want) and all(
            same_value(g, w, exp.ftype, exp.base_url) for g, w in zip(got, exp.want, strict=True)
        )
    return len(got) == 1 and same_value(got[0], exp.want, exp.ftype, exp.base_url)


@dataclass
class Scored:
    """Verification outcome of one candidate: per-seed reproduction and mutation survival."""

    candidate: Any  # xpathgen.XCandidate
    origins: set[int]
    seed_ok: list[bool] = field(default_factory=list)
    mut_pass: list[int] = field(default_factory=list)  # per seed
    mut_total: list[int] = field(default_factory=list)
    values_ok: int = 0  # example values reproduced, over all seeds

    @property
    def all_ok(self) -> bool:
        return all(self.seed_ok)

    def robustness(self, seeds: Sequence[int] | None = None) -> float:
        idx = range(len(self.mut_total)) if seeds is None else seeds
        total = sum(self.mut_total[i] for i in idx)
        return sum(self.mut_pass[i] for i in idx) / total if total else 1.0

    def rank_key(self, seeds: Sequence[int] | None = None) -> tuple[float, int, int, int]:
        prior = self.candidate.prior
        demerit = getattr(self.candidate, "demerit", 0.0)
        return (-round(self.robustness(seeds) - demerit, 6), *prior)


def leave_one_out(scored: Sequence[Scored]) -> tuple[bool | None, list[str]]:
    """For each seed: pick the best candidate using only the other seeds' evidence and check
    it on the held-out seed. Returns (all held-out seeds right, notes)."""
    if not scored or len(scored[0].seed_ok) < 2:
        return None, []
    n = len(scored[0].seed_ok)
    notes = []
    ok_all = True
    for h in range(n):
        others = [i for i in range(n) if i != h]
        pool = [s for s in scored if s.origins & set(others) and all(s.seed_ok[i] for i in others)]
        if not pool:
            ok_all = False
            notes.append(f"seed {h + 1} held out: no candidate from the other seeds works on them")
            continue
        best = min(pool, key=lambda s: s.rank_key(others))
        if not best.seed_ok[h]:
            ok_all = False
            notes.append(f"seed {h + 1} held out: {best.candidate.xpath} fails on it")
    return ok_all, notes

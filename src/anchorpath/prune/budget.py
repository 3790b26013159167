"""Meeting a token budget by relevance, not by cutting the end of the page.

Chunks are scored and the best kept, in page order, until the budget is full. A chunk scores for
naming a requested field (``list_price`` → "list", "price"), for sitting right after one (a
label in one chunk, its value in the next), for varying between seeds (text that is the same on
every seed is template: a label at best, boilerplate at worst), for being the page title or a
heading, and for being short (label/value pairs); long chunks score lower. The budget is never
met by truncating a chunk. Gaps are marked with one ``…`` line so the model knows text was left
out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from anchorpath.prune.markdown import PrunedPage, collapse, join_chunks
from anchorpath.prune.tokens import estimate_tokens

__all__ = ["PromptPage", "field_terms", "fit_budget", "template_chunks"]

_TERM = re.compile(r"[^\W_]{3,}", re.UNICODE)


@dataclass(frozen=True)
class PromptPage:
    """The Markdown one seed contributes to a prompt, and what pruning and the budget cost."""

    page: PrunedPage
    markdown: str
    tokens: int
    tokens_full: int  # pruned, before the budget
    kept: tuple[int, ...]  # chunk indexes kept

    @property
    def tokens_raw(self) -> int:
        return self.page.tokens_raw

    def occurrences(self, value: str) -> int:
        v = collapse(value)
        return self.markdown.count(v) if v else 0

    def perturbed(self, edits: Sequence[tuple[str, int, str]]) -> str:
        """The Markdown with occurrence ``k`` (0-based) of ``value`` replaced by ``new``, for
        every ``(value, k, new)`` in ``edits``; occurrences are counted in the unedited text."""
        spots: list[tuple[int, int, str]] = []
        for value, k, new in edits:
            v = collapse(value)
            start = -1
            for _ in range(k + 1):
                start = self.markdown.find(v, start + 1)
                if start < 0:
                    break
            if start >= 0:
                spots.append((start, start + len(v), new))
        spots.sort()
        out, pos = [], 0
        for a, b, new in spots:
            if a < pos:
                continue  # overlapping edits: keep the first
            out += [self.markdown[pos:a], new]
            pos = b
        out.append(self.markdown[pos:])
        return "".join(out)


def field_terms(names: Iterable[str]) -> list[str]:
    """Words of the field names (and descriptions) worth looking for, lower case."""
    terms: list[str] = []
    for name in names:
        for t in _TERM.findall(name.replace("_", " ").lower()):
            if t not in terms:
                terms.append(t)
    return terms


def template_chunks(pages: Sequence[PrunedPage]) -> set[str]:
    """Chunks that occur on every page (template text), when there are at least two pages."""
    if len(pages) < 2:
        return set()
    common = {c.markdown for c in pages[0].chunks}
    for p in pages[1:]:
        common &= {c.markdown for c in p.chunks}
    return common


def _score(page: PrunedPage, terms: Sequence[str], template: set[str]) -> list[float]:
    hits = [sum(1 for t in terms if t in c.markdown.lower()) for c in page.chunks]
    scores = []
    for c, h in zip(page.chunks, hits, strict=True):
        s = 3.0 * min(h, 3)
        if c.index > 0 and hits[c.index - 1]:
            s += 1.5
        s += -2.0 if c.markdown in template and not h else 2.0
        if c.index == 0 and c.markdown.startswith("Page title:"):
            s += 3.0
        if c.markdown.startswith("#"):
            s += 2.0
        s += 1.0 if c.tokens <= 40 else (-1.0 if c.tokens > 300 else 0.0)
        scores.append(s)
    return scores


def fit_budget(
    page: PrunedPage,
    budget: int,
    terms: Sequence[str] = (),
    template: set[str] | None = None,
) -> PromptPage:
    """Keep the most relevant chunks of ``page`` within ``budget`` tokens (see module doc)."""
    full = page.tokens
    if full <= budget:
        kept = tuple(c.index for c in page.chunks)
    else:
        scores = _score(page, terms, template or set())
        order = sorted(page.chunks, key=lambda c: (-scores[c.index], c.index))
        chosen: set[int] = set()
        total = 0
        for c in order:
            cost = c.tokens + 1
            if total + cost <= budget:
                chosen.add(c.index)
                total += cost
        kept = tuple(sorted(chosen))
    markdown = join_chunks(page.chunks, kept)
    return PromptPage(page, markdown, estimate_tokens(markdown), full, kept)

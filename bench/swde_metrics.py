"""SWDE value normalisation and page-level precision / recall / F1 (pure, stdlib only).

SWDE's ground truth stores raw text-node strings, so a value can carry entities (``&#34;``,
``&nbsp;``), odd white space, punctuation left over from a label that sat in another node
(``": 9780316125581"``) or the label itself when label and value share one text node
(``"Date Posted: 05/20/2011"``). Comparison is therefore done on a canonical form:

1. HTML entities decoded (twice: SWDE has double-escaped ``&amp;#34;``), Unicode NFKC;
2. white space (incl. NBSP) collapsed and stripped;
3. leading punctuation removed (``": x"`` → ``"x"``);
4. a leading ``Label:`` removed only when the label *is the attribute's name*
   (``Date Posted:`` for ``date_posted``, ``ISBN-13:`` for ``isbn_13``), so that a title such as
   ``"Know Your Bible: All 66 Books"`` is never cut;
5. compared case-insensitively.

Page-level metric, per attribute (the usual SWDE measure): over the evaluated pages,
``precision = correct / pages with a prediction`` and ``recall = correct / pages with a gold
value``. Two notions of a correct page are counted:

* **top-1** (the SWDE convention, as in the published figures): the first predicted value is one
  of the gold values — or the prediction is *exact* (below), so extracting all the authors of a
  book is never worse than extracting the first one;
* **exact**: the canonical set of predicted values equals the canonical set of gold values, or —
  for multi-valued attributes extracted as one string — both, concatenated in order with
  separators dropped, are the same characters (``"Alex Harris, Brett Harris"`` vs
  ``["Alex Harris", "Brett Harris"]``). Exact also punishes extra, wrong values.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FieldScore",
    "canon",
    "clean_example",
    "f1",
    "label_key",
    "page_correct",
    "page_top1",
    "score_field",
    "values_of",
]

_WS = re.compile(r"[\s\u00a0\u2000-\u200b\u3000\ufeff]+")
# Label residue left when the label sat in another node: ": x", "- x", "| x", "# x" …
_LEAD_PUNCT = re.compile(r"^[\s:;,|/\-–—•·]+")
# "Label: value" where the label is a few words (letters, digits, -, space, /).
_LABEL = re.compile(r"^([A-Za-z][A-Za-z0-9 \-/#.()]{0,40}?)\s*:\s*(.+)$", re.DOTALL)
_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)


def label_key(text: str) -> str:
    """Letters and digits only, lower case: ``"ISBN-13"`` and ``"isbn_13"`` → ``"isbn13"``."""
    return _NON_ALNUM.sub("", text.lower())


def _unescape(text: str) -> str:
    # SWDE has double-escaped values (``&amp;#34;``); two rounds are enough and stable.
    return html.unescape(html.unescape(text))


def clean_example(value: str, attribute: str | None = None) -> str:
    """The value as a person would type it: entities decoded, white space collapsed, label
    residue dropped. Case is kept (this is what both systems are given as examples)."""
    text = unicodedata.normalize("NFKC", _unescape(value))
    text = _WS.sub(" ", text).strip()
    text = _LEAD_PUNCT.sub("", text)
    if attribute is not None:
        m = _LABEL.match(text)
        if m and label_key(m.group(1)) == label_key(attribute):
            text = _LEAD_PUNCT.sub("", m.group(2).strip())
    return text.strip()


def canon(value: Any, attribute: str | None = None) -> str:
    """Canonical comparison form of one value (see the module docstring)."""
    if value is None:
        return ""
    return clean_example(str(value), attribute).casefold()


def values_of(value: Any) -> list[str]:
    """An extracted value as a list of strings (None → [], scalar → [scalar])."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def _canon_list(values: Iterable[Any], attribute: str | None) -> list[str]:
    out: list[str] = []
    for v in values:
        c = canon(v, attribute)
        if c and c not in out:
            out.append(c)
    return out


def page_top1(predicted: Sequence[Any], gold: Sequence[Any], attribute: str | None) -> bool:
    """True when the first predicted value is one of the gold values (or the whole prediction
    is exact)."""
    p = _canon_list(predicted, attribute)
    g = _canon_list(gold, attribute)
    if not p or not g:
        return False
    return p[0] in g or page_correct(predicted, gold, attribute)


def page_correct(predicted: Sequence[Any], gold: Sequence[Any], attribute: str | None) -> bool:
    """True when the prediction for one page and attribute is exact (see module docstring)."""
    p = _canon_list(predicted, attribute)
    g = _canon_list(gold, attribute)
    if not p or not g:
        return False
    if set(p) == set(g):
        return True
    # One string for several gold values (or the other way round): same characters in order.
    return label_key("".join(p)) == label_key("".join(g)) != ""


def f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@dataclass
class FieldScore:
    """Page-level counts for one attribute; ``failures`` keeps a few wrong pages to print
    (wrong under top-1; ``exact_failures`` the same for the exact measure)."""

    attribute: str
    pages: int = 0
    predicted: int = 0
    gold: int = 0
    correct: int = 0
    correct_exact: int = 0
    correct_pages: set[str] = field(default_factory=set)  # top-1 correct, for fragility
    failures: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    exact_failures: list[tuple[str, list[str], list[str]]] = field(default_factory=list)

    def add(self, page: str, predicted: Sequence[Any], gold: Sequence[Any], keep: int = 5) -> bool:
        p = _canon_list(predicted, self.attribute)
        g = _canon_list(gold, self.attribute)
        self.pages += 1
        self.predicted += bool(p)
        self.gold += bool(g)
        ok = page_top1(predicted, gold, self.attribute)
        exact = page_correct(predicted, gold, self.attribute)
        self.correct += ok
        self.correct_exact += exact
        if ok:
            self.correct_pages.add(page)
        case = (page, [str(x) for x in predicted], [str(x) for x in gold])
        if not ok and (p or g) and len(self.failures) < keep:
            self.failures.append(case)
        if not exact and (p or g) and len(self.exact_failures) < keep:
            self.exact_failures.append(case)
        return ok

    def _prf(self, correct: int) -> tuple[float, float, float]:
        if self.predicted == 0:
            precision = 1.0 if self.gold == 0 else 0.0
        else:
            precision = correct / self.predicted
        recall = 1.0 if self.gold == 0 else correct / self.gold
        return precision, recall, f1(precision, recall)

    @property
    def precision(self) -> float:
        return self._prf(self.correct)[0]

    @property
    def recall(self) -> float:
        return self._prf(self.correct)[1]

    @property
    def f1(self) -> float:
        return self._prf(self.correct)[2]

    @property
    def f1_exact(self) -> float:
        return self._prf(self.correct_exact)[2]


def score_field(
    attribute: str,
    predictions: Mapping[str, Sequence[Any]],
    gold: Mapping[str, Sequence[Any]],
) -> FieldScore:
    """Score one attribute over the pages in ``gold`` (a page missing from ``predictions``
    counts as predicting nothing)."""
    score = FieldScore(attribute)
    for page in sorted(gold):
        score.add(page, predictions.get(page, []), gold[page])
    return score

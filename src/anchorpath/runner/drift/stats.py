"""The statistics of one run, as the drift gate sees it (pure, no I/O).

:func:`field_stats` summarises one page type's records (plus the run's pages) into a
:class:`RunStats`; :func:`merge_stats` combines page types. Values are kept as short hashes, token
shapes (:func:`shape_signature`) and, for a field holding one text throughout, hashed word tokens
and character bigrams — never as text. ``RunStats.to_dict`` / ``from_dict`` is the stored
baseline's JSON form. The model that compares runs is in :mod:`anchorpath.runner.drift.check`.
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from anchorpath.selectors.evaluate import PageResult
from anchorpath.selectors.model import PageType

__all__ = [
    "MAX_FINGERPRINT",
    "MAX_SHAPES",
    "MAX_VALUES",
    "FieldStats",
    "PageTypeStats",
    "RunStats",
    "TextFacts",
    "field_stats",
    "merge_stats",
    "shape_signature",
]

#: How many distinct shape signatures a field keeps (the rest are counted as "other").
MAX_SHAPES = 60
#: How many distinct values (as short hashes) a field keeps; categorical fields fit in this.
MAX_VALUES = 40
#: How many token / bigram hashes a constant value keeps (sorted, so the cut is stable).
MAX_FINGERPRINT = 128


@dataclass
class FieldStats:
    """Statistics of one field's values over the records of one page type in one run."""

    count: int = 0  # records seen
    filled: int = 0  # records with a non-empty value
    len_mean: float = 0.0
    len_std: float = 0.0
    numeric: int = 0  # filled values that are numbers
    dates: int = 0  # filled values that parse as dates
    distinct: int = 0  # distinct filled values
    shapes: dict[str, int] = field(default_factory=dict)  # signature -> count (top MAX_SHAPES)
    shape_other: int = 0  # filled values whose signature is not in ``shapes``
    shape_singletons: int = 0  # filled values whose signature occurs once in this run
    values: dict[str, int] = field(default_factory=dict)  # value hash -> count (top MAX_VALUES)
    value_other: int = 0  # filled values not in ``values``
    pattern_ok: int | None = None  # filled values matching FieldSpec.pattern (None: no pattern)
    anchor_pages: int = 0  # pages where the field's anchor label was looked for
    anchor_present: int = 0  # ... and found
    # Only when every filled value of this run is one and the same text (a candidate template
    # text): hashes of its word tokens and character bigrams, to tell a copy edit of that text
    # from other text taking its place (see ``features.constant_test``).
    const_tokens: list[str] = field(default_factory=list)
    const_grams: list[str] = field(default_factory=list)
    # Template text added to the values: the token prefix / suffix (up to three white-space
    # separated tokens) shared by more than half of the run's distinct values and by at least
    # two, with how many share it ("" and 0: none). Only such shared text is kept, never a
    # value (see :func:`affix`).
    prefix: str = ""
    prefix_n: int = 0
    suffix: str = ""
    suffix_n: int = 0
    # Character-class profile: mean share of digits, punctuation and upper-case letters per
    # filled value (empty: no filled value).
    profile: list[float] = field(default_factory=list)
    # Filled values that are also the text of an element of the page's navigation, header or
    # footer (template text); None: not looked at (fixtures, runs stored before).
    template: int | None = None

    @property
    def empty_ratio(self) -> float:
        return 1.0 - self.filled / self.count if self.count else 1.0

    @property
    def distinct_ratio(self) -> float:
        return self.distinct / self.filled if self.filled else 0.0

    @property
    def numeric_share(self) -> float:
        return self.numeric / self.filled if self.filled else 0.0

    @property
    def date_share(self) -> float:
        return self.dates / self.filled if self.filled else 0.0

    def summary(self) -> dict[str, float | None]:
        """The headline numbers (for reports)."""
        return {
            "count": self.count,
            "empty_ratio": round(self.empty_ratio, 4),
            "len_mean": round(self.len_mean, 2),
            "len_std": round(self.len_std, 2),
            "numeric_share": round(self.numeric_share, 4),
            "date_share": round(self.date_share, 4),
            "distinct_ratio": round(self.distinct_ratio, 4),
            "pattern_share": round(self.pattern_ok / self.filled, 4)
            if self.pattern_ok is not None and self.filled
            else None,
            "anchor_share": round(self.anchor_present / self.anchor_pages, 4)
            if self.anchor_pages
            else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FieldStats:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        known["shapes"] = dict(known.get("shapes", {}))
        known["values"] = dict(known.get("values", {}))
        known["const_tokens"] = list(known.get("const_tokens", []))
        known["const_grams"] = list(known.get("const_grams", []))
        known["profile"] = [float(x) for x in known.get("profile", [])]
        return cls(**known)


@dataclass
class PageTypeStats:
    """One page type's statistics in one run: structural signals plus per-field statistics."""

    pages: int = 0  # pages of this type seen (0: unknown, e.g. a seeded baseline)
    records: int = 0
    root_pages: int = 0  # pages with a record root
    root_total: int = 0  # record-root matches summed over those pages
    root_zero: int = 0  # pages where the record root matched nothing
    # short hashes of the pages' URLs (sorted, at most MAX_VALUES): which pages the run saw
    page_keys: list[str] = field(default_factory=list)
    fields: dict[str, FieldStats] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PageTypeStats:
        return cls(
            pages=d.get("pages", 0),
            records=d.get("records", 0),
            root_pages=d.get("root_pages", 0),
            root_total=d.get("root_total", 0),
            root_zero=d.get("root_zero", 0),
            page_keys=list(d.get("page_keys", [])),
            fields={k: FieldStats.from_dict(v) for k, v in d.get("fields", {}).items()},
        )


@dataclass
class RunStats:
    """Statistics of one run (or one fixture set): per page type, plus pages no type matched.

    ``run_id`` labels the run in reports and baseline history (the pipeline sets it).
    """

    page_types: dict[str, PageTypeStats] = field(default_factory=dict)
    total_pages: int = 0
    unmatched_pages: int = 0
    run_id: str | None = None
    seeded: bool = False  # built from fixtures, not from a run
    #: a person accepted the run after review (``anchorpath accept``): the live site's
    #: reference, which outranks the seed (see ``drift.check.check_drift``)
    reviewed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (round-trips through :meth:`from_dict`)."""
        out: dict[str, Any] = _plain(self)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunStats:
        return cls(
            page_types={k: PageTypeStats.from_dict(v) for k, v in d.get("page_types", {}).items()},
            total_pages=d.get("total_pages", 0),
            unmatched_pages=d.get("unmatched_pages", 0),
            run_id=d.get("run_id"),
            seeded=d.get("seeded", False),
            reviewed=d.get("reviewed", False),
        )


_LEAVES = (str, int, float, bool, type(None))
#: the exact types of ``_LEAVES``: a set lookup on ``type(v)`` spares most values a call
_LEAF = frozenset(_LEAVES)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain(obj: Any) -> Any:
    """``dataclasses.asdict`` of the statistics, several times faster (called for every run's
    report and baseline): dataclasses to dicts, containers rebuilt, other values deep-copied.
    The leaves in a dataclass, list or dict are taken as they are, without a call."""
    if isinstance(obj, _LEAVES):
        return obj
    leaf = _LEAF
    cls = type(obj)
    if cls is dict:
        return {
            k if type(k) in leaf else _plain(k): v if type(v) in leaf else _plain(v)
            for k, v in obj.items()
        }
    if cls is list:
        return [v if type(v) in leaf else _plain(v) for v in obj]
    if is_dataclass(obj) and not isinstance(obj, type):
        names = _FIELD_NAMES.get(cls)
        if names is None:
            names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(obj))
        out = {}
        for name in names:
            v = getattr(obj, name)
            out[name] = v if type(v) in leaf else _plain(v)
        return out
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return cls(*[_plain(v) for v in obj])
    if isinstance(obj, list | tuple):
        return cls(_plain(v) for v in obj)
    if isinstance(obj, dict):
        return cls((_plain(k), _plain(v)) for k, v in obj.items())
    return copy.deepcopy(obj)


_NUMBER = re.compile(r"^[+\-−]?[$€£¥₩]?\s?\d[\d,. ]*(?:[%]|[A-Za-z]{0,3})?$")
# One pattern for the three date shapes read without strptime (alternatives in this order).
_DATE_RX = re.compile(
    r"\d{4}[-./]\s?\d{1,2}[-./]\s?\d{1,2}\.?(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?"
    r"|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$"
    r"|\d{4}년\s?\d{1,2}월\s?\d{1,2}일"
)
_MONTH_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%b. %d, %Y")
_DIGIT_FORMATS = ("%Y%m%d",)
# Only a text with an (English, C-locale) month name, or of digits and spaces only, can match
# one of these formats: strptime, slow, is tried on those only.
_MAYBE_DATE = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|^[\d\s]+$", re.I)


def _is_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return bool(_NUMBER.match(str(value).strip()))


def _is_date(text: str, digits: int, letters: int) -> bool:
    """Whether the (stripped) ``text``, holding so many digits and letters, reads as a date."""
    if _DATE_RX.match(text):
        return True
    if len(text) > 20 or not digits or not _MAYBE_DATE.search(text):
        return False
    # A month name is letters; ``%Y%m%d`` is digits only: try the formats that can match.
    for fmt in _MONTH_FORMATS if letters else _DIGIT_FORMATS:
        try:
            datetime.strptime(text, fmt)
        except ValueError:
            continue
        return True
    return False


def _char_class(ch: str) -> str:
    if ch.isdigit():
        return "9"
    if ch.isalpha():
        if ch.isascii():
            return "A" if ch.isupper() else "a"
        name = unicodedata.name(ch, "")
        if name.startswith(("HANGUL", "CJK", "HIRAGANA", "KATAKANA")):
            return "H"
        return "A" if ch.isupper() else ("a" if ch.islower() else "L")
    return ch


class _ShapeTable(dict[int, str]):
    """A ``str.translate`` table of characters to their classes (:func:`_char_class`), filled
    on first sight of a character: the per-character work runs once per process, not per
    value. White space stays white space (no class is white space)."""

    def __missing__(self, code: int) -> str:
        out = self[code] = _char_class(chr(code))
        return out


_SHAPE_TABLE = _ShapeTable()
_RUNS = re.compile(r"(.)\1*", re.DOTALL)  # a character and its repeats: findall keeps one
_SHAPE_TOKENS = 3


def shape_signature(value: Any, tokens: int = _SHAPE_TOKENS) -> str:
    """RAPTURE-style token shape: character classes, repeats collapsed, first ``tokens`` tokens."""
    parts = str(value).split(None, tokens)  # the first ``tokens`` tokens, then the rest if any
    return _shape(" ".join(parts[:tokens]).translate(_SHAPE_TABLE), len(parts) > tokens)


def _shape(classes: str, more: bool) -> str:
    """The signature of tokens already read as classes (classes repeat within a token only)."""
    sig = "".join(_RUNS.findall(classes))
    return sig + "…" if more else sig


def _value_hash(text: str) -> str:
    """A short stable digest: baselines keep value identities, not the values themselves."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"\w+")


def _fingerprint(text: str) -> tuple[list[str], list[str]]:
    """Hashed word tokens and character bigrams of ``text`` (case-folded, every digit run
    read as ``0`` so a version or count bump, "4.0" → "6.0", is an edit, not new text)."""
    folded = _DIGITS.sub("0", text.casefold())
    words = _WORD.findall(folded)
    tokens = sorted(set(words))[:MAX_FINGERPRINT]
    letters = "".join(words)
    grams = sorted({letters[i : i + 2] for i in range(len(letters) - 1)})[:MAX_FINGERPRINT]
    return [_short_hash(t) for t in tokens], [_short_hash(g) for g in grams]


@lru_cache(maxsize=8192)
def _short_hash(text: str) -> str:
    """A 32-bit digest of a token or bigram (collisions among ≤ MAX_FINGERPRINT items are
    negligible); tokens and bigrams recur across fields and runs: the digests are kept."""
    return _value_hash(text)[:8]


def _affix_ok(tokens: tuple[str, ...]) -> bool:
    """An affix worth calling template text: two tokens or more, or one token that is not a
    plain word (``Forbes.com``, ``|``, ``-``) — a shared first word like "The" is not."""
    text = " ".join(tokens)
    if not any(ch.isalnum() for ch in text) and len(tokens) < 2:
        return False
    return len(tokens) >= 2 or not tokens[0].isalpha()


def affix(texts: Sequence[str], *, suffix: bool) -> tuple[str, int]:
    """The token prefix (or suffix) of one to three tokens that most of the distinct ``texts``
    share as a proper part (a value equal to it does not count): ``(text, how many)``, or
    ``("", 0)`` when none is shared by more than half of them and by at least two."""
    return _affix([t.split() for t in sorted({t for t in texts if t})], suffix=suffix)


def _affix(tokens: Sequence[list[str]], *, suffix: bool) -> tuple[str, int]:
    """:func:`affix` of the distinct texts, sorted and split into tokens."""
    if len(tokens) < 2:  # nothing is shared by two
        return "", 0
    best: tuple[str, ...] = ()
    best_n = 0
    for width in (3, 2, 1):  # longest first: it wins ties
        counts = Counter(
            [tuple(tk[-width:] if suffix else tk[:width]) for tk in tokens if len(tk) > width]
        )
        for tokens_, n in counts.most_common(3):
            if n > best_n and _affix_ok(tokens_):
                best, best_n = tokens_, n
                break
    if best_n < 2 or best_n <= 0.5 * len(tokens):
        return "", 0
    return " ".join(best)[:80], best_n


_PUNCT = re.compile(r"[^\w\s]")


class _TextFacts(NamedTuple):
    """What the statistics read of one distinct filled text."""

    shape: str
    digest: str
    numeric: bool  # as a str value (see ``_is_numeric``)
    date: bool
    profile: tuple[float, float, float]  # digit, punctuation and upper-case shares


def _text_facts(text: str) -> _TextFacts:
    # One translation gives the shape and the profile: digits are "9", letters "A" (upper
    # case), "a", "H" (no Hangul, CJK or kana letter is upper case) or "L"; other characters
    # stay themselves.
    classes = text.translate(_SHAPE_TABLE)
    parts = classes.split(None, _SHAPE_TOKENS)
    n = max(1, len(text))
    digits = classes.count("9")
    upper = classes.count("A")
    letters = upper + classes.count("a") + classes.count("H") + classes.count("L")
    return _TextFacts(
        shape=_shape(" ".join(parts[:_SHAPE_TOKENS]), len(parts) > _SHAPE_TOKENS),
        digest=_value_hash(text),
        numeric=bool(_NUMBER.match(text)),
        date=_is_date(text, digits, letters),
        profile=(digits / n, len(_PUNCT.findall(text)) / n, upper / letters if letters else 0.0),
    )


class TextFacts:
    """What the statistics read of each distinct text of a run's values, gathered while the
    run is crawled (a page's records as they arrive: the crawl then waits for its next turn
    anyway) instead of all at once after its last page. A pure cache: :func:`field_stats`
    reads every text it lacks itself, with the same result."""

    def __init__(self) -> None:
        self._facts: dict[str, _TextFacts] = {}

    def add(self, values: Iterable[Any]) -> None:
        """Read the texts of ``values`` (one record's values, say) not read yet."""
        known = self._facts
        for v in values:
            t = v.strip() if type(v) is str else _as_text(v).strip()
            if t and t not in known:
                known[t] = _text_facts(t)

    def get(self, text: str) -> _TextFacts:
        """The facts of the (stripped, non-empty) ``text``."""
        known = self._facts.get(text)
        return known if known is not None else _text_facts(text)


def _profile(facts: Sequence[_TextFacts]) -> list[float]:
    """Mean digit, punctuation and upper-case shares of the filled texts (in their order; see
    ``FieldStats.profile``)."""
    if not facts:
        return []
    digits = punct = upper = 0.0
    for f in facts:
        d, p, u = f.profile
        digits += d
        punct += p
        upper += u
    k = len(facts)
    return [round(digits / k, 4), round(punct / k, 4), round(upper / k, 4)]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value if v is not None)
    return str(value)


def _field_stats(
    values: Sequence[Any],
    pattern: re.Pattern[str] | None,
    anchor: tuple[int, int],
    template: Sequence[bool] | None = None,
    known: TextFacts | None = None,
) -> FieldStats:
    texts = [v.strip() if type(v) is str else _as_text(v).strip() for v in values]
    plain = [t for t in texts if t]
    lengths = [len(t) for t in plain]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    var = sum((x - mean) ** 2 for x in lengths) / len(lengths) if lengths else 0.0
    # Every distinct text is read once (fields repeat values: categories, template text).
    seen = Counter(plain)  # in order of first occurrence, as the counters below
    read = _text_facts if known is None else known.get
    facts = {t: read(t) for t in seen}
    shapes: Counter[str] = Counter()
    values_seen: Counter[str] = Counter()
    for t, c in seen.items():
        shapes[facts[t].shape] += c
        values_seen[facts[t].digest] += c
    top = dict(shapes.most_common(MAX_SHAPES))
    top_values = dict(values_seen.most_common(MAX_VALUES))
    tokens: list[str] = []
    grams: list[str] = []
    if len(values_seen) == 1:
        tokens, grams = _fingerprint(plain[0])
    split = [t.split() for t in sorted(seen)]
    prefix, prefix_n = _affix(split, suffix=False)
    suffix_, suffix_n = _affix(split, suffix=True)
    # A str value is numeric as its text is; other values (numbers, lists) are read one by one.
    others = [v for v, t in zip(values, texts, strict=True) if t and type(v) is not str]
    numeric = sum(1 for v in others if _is_numeric(v))
    as_str = seen
    if others:
        as_str = Counter(t for v, t in zip(values, texts, strict=True) if t and type(v) is str)
    numeric += sum(c for t, c in as_str.items() if facts[t].numeric)
    in_template = None
    if template is not None:
        in_template = sum(1 for t, hit in zip(texts, template, strict=True) if t and hit)
    return FieldStats(
        count=len(values),
        filled=len(plain),
        len_mean=mean,
        len_std=math.sqrt(var),
        numeric=numeric,
        dates=sum(c for t, c in seen.items() if facts[t].date),
        distinct=len(seen),
        shapes=top,
        shape_other=len(plain) - sum(top.values()),
        shape_singletons=sum(1 for c in shapes.values() if c == 1),
        values=top_values,
        value_other=len(plain) - sum(top_values.values()),
        pattern_ok=sum(c for t, c in seen.items() if pattern.search(t)) if pattern else None,
        anchor_pages=anchor[0],
        anchor_present=anchor[1],
        const_tokens=tokens,
        const_grams=grams,
        prefix=prefix,
        prefix_n=prefix_n,
        suffix=suffix_,
        suffix_n=suffix_n,
        profile=_profile([facts[t] for t in plain]),
        template=in_template,
    )


def field_stats(
    records: list[dict[str, Any]],
    page_type: PageType,
    page_results: list[PageResult],
    template: Sequence[Collection[str]] | None = None,
    known: TextFacts | None = None,
) -> RunStats:
    """Statistics of one page type's records (``Record.values`` dicts) in one run.

    ``page_results`` may hold every page of the run: pages of other types are ignored except
    for the count of pages no page type matched. ``template`` (one entry per record, when the
    run looked) names the fields whose value is also the text of the page's navigation,
    header or footer (:func:`anchorpath.runner.drift.template.template_fields`). Combine
    several page types with :func:`merge_stats`. ``known`` holds texts already read
    (:class:`TextFacts`).
    """
    own = [p for p in page_results if p.page_type == page_type.name]
    roots = [p.record_root_count for p in own if p.record_root_count is not None]
    pts = PageTypeStats(
        pages=len(own),
        records=len(records),
        root_pages=len(roots),
        root_total=sum(roots),
        root_zero=sum(1 for r in roots if r == 0),
        page_keys=sorted({_value_hash(p.url) for p in own})[:MAX_VALUES],
    )
    for name, spec in page_type.fields.items():
        pattern = None
        if spec.pattern:
            try:
                pattern = re.compile(spec.pattern)
            except re.error:  # the selector loader validates patterns; be lenient here
                pattern = None
        seen = [p.anchors_present[name] for p in own if name in p.anchors_present]
        pts.fields[name] = _field_stats(
            [r.get(name) for r in records],
            pattern,
            (len(seen), sum(seen)),
            None if template is None else [name in t for t in template],
            known,
        )
    return RunStats(
        page_types={page_type.name: pts},
        total_pages=len(page_results),
        unmatched_pages=sum(1 for p in page_results if p.page_type is None),
    )


def merge_stats(parts: Iterable[RunStats]) -> RunStats:
    """One RunStats from per-page-type ones (page counts are taken as the largest seen)."""
    out = RunStats()
    for part in parts:
        out.page_types.update(part.page_types)
        out.total_pages = max(out.total_pages, part.total_pages)
        out.unmatched_pages = max(out.unmatched_pages, part.unmatched_pages)
        out.run_id = out.run_id or part.run_id
        out.seeded = out.seeded or part.seeded
        out.reviewed = out.reviewed or part.reviewed
    return out

"""Pure value normalisation and typing for extracted text."""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from anchorpath.selectors.model import Normalize

__all__ = ["DEFAULT_DATE_FORMATS", "apply_strips", "clean_text", "convert"]

_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")
_NOT_NUMBER = re.compile(r"[^\d,.\-+eE]")

DEFAULT_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y.%m.%d",
    "%Y/%m/%d",
    "%Y. %m. %d.",
    "%Y. %m. %d",
    "%Y.%m.%d.",
    "%Y년 %m월 %d일",
    "%Y%m%d",
    "%d.%m.%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
)
DEFAULT_DATETIME_FORMATS = (
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y.%m.%d %H:%M:%S",
    "%Y.%m.%d %H:%M",
)


def clean_text(text: str, whitespace: bool = True) -> str:
    """Collapse white space (including NBSP, ideographic space, zero-width) and strip."""
    if whitespace:
        return _WS.sub(" ", text).strip()
    return text.strip()


@lru_cache(maxsize=512)
def _rx(pattern: str, where: str) -> re.Pattern[str]:
    return re.compile(f"^(?:{pattern})" if where == "prefix" else f"(?:{pattern})$")


@lru_cache(maxsize=512)
def _capture(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def apply_strips(text: str, norm: Normalize) -> str:
    """The value inside a node's text: affixes stripped, then the capture regex applied (its
    first group, else the whole match; no match gives an empty value)."""
    if norm.strip_prefix:
        text = _rx(norm.strip_prefix, "prefix").sub("", text, count=1).strip()
    if norm.strip_suffix:
        text = _rx(norm.strip_suffix, "suffix").sub("", text, count=1).strip()
    if norm.capture:
        m = _capture(norm.capture).search(text)
        if m is None:
            return ""
        text = (m.group(1) if m.re.groups else m.group(0)).strip()
    return text


def _number(text: str, locale: str) -> float:
    t = text.replace(" ", "").replace("\u202f", "")
    t = _NOT_NUMBER.sub("", t)
    t = t.replace(".", "").replace(",", ".") if locale in ("de", "fr") else t.replace(",", "")
    if not t:
        raise ValueError("no digits")
    return float(t)


def _date(text: str, formats: tuple[str, ...], kind: str) -> str:
    fmts = formats or (
        DEFAULT_DATETIME_FORMATS + DEFAULT_DATE_FORMATS
        if kind == "datetime"
        else DEFAULT_DATE_FORMATS
    )
    for fmt in fmts:
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.isoformat() if kind == "datetime" else parsed.date().isoformat()
    try:  # ISO forms strptime formats do not cover (offsets, fractions)
        if kind == "datetime":
            return datetime.fromisoformat(text).isoformat()
        return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise ValueError(f"no date format matches {text!r}")


def convert(text: str, kind: str, norm: Normalize, base_url: str) -> Any:
    """Type one cleaned string; raises ValueError with a short reason when it does not fit."""
    if kind in ("string", "list"):
        return text
    if kind == "integer":
        value = _number(text, norm.number_locale)
        if value != int(value):
            raise ValueError(f"{text!r} is not a whole number")
        return int(value)
    if kind == "number":
        return _number(text, norm.number_locale)
    if kind in ("date", "datetime"):
        return _date(text, norm.date_formats, kind)
    if kind == "url":
        return urljoin(base_url, text)
    raise ValueError(f"unknown type {kind!r}")

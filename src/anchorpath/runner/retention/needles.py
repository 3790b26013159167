"""What a deletion must remove wherever it is: the forgotten keys and the values only their
records carry (a value other records share is not theirs alone), in the encodings pages and
files hold them (UTF-8, CP949/EUC-KR, percent-encoded in URLs, HTML-escaped)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from anchorpath.selectors.decode import decode_html

__all__ = ["Needles", "leaves"]

#: Values shorter than this are too common to look for (a year, "ND", a count).
MIN_VALUE_LENGTH = 4
_ENCODINGS = ("utf-8", "cp949", "euc-jp", "shift_jis", "gb18030")


def leaves(value: Any) -> Iterable[str]:
    """Every string (and number, as text) inside a JSON value."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


@dataclass(frozen=True)
class Needles:
    """The texts a deletion looks for: the keys, and the values only their records carry."""

    texts: tuple[str, ...]

    @classmethod
    def of(cls, keys: Iterable[str], values: Iterable[str], others: Iterable[str]) -> Needles:
        shared = set(others)
        found = {k for k in keys if k}
        found |= {v for v in values if len(v) >= MIN_VALUE_LENGTH and v not in shared}
        return cls(tuple(sorted(found, key=lambda t: (-len(t), t))))

    def in_text(self, text: str) -> bool:
        """Whether ``text`` holds a needle, also HTML-escaped or percent-encoded (a URL)."""
        if not self.texts:
            return False
        forms = [text]
        if "&" in text:
            forms.append(html.unescape(text))
        if "%" in text:
            forms += [unquote(text), unquote(text, encoding="cp949", errors="replace")]
        return any(t in form for form in forms for t in self.texts)

    def in_page(self, body: bytes, charset: str | None) -> bool:
        """Whether a page's bytes hold a needle (decoded as a browser would)."""
        return self.in_bytes(body) or self.in_text(decode_html(body, charset)[0])

    def in_bytes(self, data: bytes) -> bool:
        """Whether raw bytes hold a needle in a common encoding or percent-encoded."""
        for text in self.texts:
            for codec in _ENCODINGS:
                try:
                    if text.encode(codec) in data:
                        return True
                except UnicodeEncodeError:
                    continue
            for form in (quote(text, safe=""), quote(text.encode("cp949", "ignore"), safe="")):
                if form and form.encode() in data:
                    return True
            if json.dumps(text)[1:-1].encode() in data:  # \\uXXXX escapes in JSON text
                return True
        return False

    def redact(self, text: str) -> str:
        for t in self.texts:
            text = text.replace(t, "[forgotten]")
        return text

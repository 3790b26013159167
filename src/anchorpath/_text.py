"""Page-derived text made safe for a terminal or a cron mail.

Keys, values, reasons and URLs that came from a fetched page may hold terminal escape
sequences (``\\x1b[2J`` clears the screen, OSC 8 forges links), other control characters or
bidirectional overrides that reorder what a person reads. Everything printed from a page goes
through :func:`terminal_safe` first: escape sequences are removed whole, line breaks and tabs
become spaces, and any other control or bidi-override character is dropped.

A value that is repeated in a failure line or an error (an extracted value, an endpoint's
body, a path a file names) goes through :func:`excerpt`: quoted, every control, bidi or
non-printable character escaped (nothing reaches the terminal raw, nothing is hidden), and
cut to :data:`EXCERPT_CHARS` characters, so a line never carries a whole file. A file name
from elsewhere (a pull request's, a path a selector file names) goes through
:func:`quote_name`: as is when plain, else quoted and escaped the way git quotes odd names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["EXCERPT_CHARS", "did_you_mean", "excerpt", "quote_name", "terminal_safe"]

#: Longest excerpt of a value that a failure line or error message repeats.
EXCERPT_CHARS = 80

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clear screen
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def terminal_safe(text: object) -> str:
    """``str(text)`` without escape sequences, control characters or bidi overrides."""
    s = str(text)
    if s.isprintable():
        return s
    s = _SEQUENCES.sub("", s)
    out = []
    for ch in s:
        if ch in "\t\n\r\x0b\x0c":
            out.append(" ")
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A short, escaped excerpt of ``value`` (a string quoted, anything else as JSON): at
    most ``limit`` characters of it, then ``…`` and how many more there were."""
    quoted = isinstance(value, str | bytes)
    if isinstance(value, bytes):
        text = value.decode("utf-8", "replace")
    elif isinstance(value, str):
        text = value
    else:
        import json

        text = json.dumps(value, ensure_ascii=False, default=str)
    cut = text[:limit]
    out = []
    for ch in cut:
        if quoted and ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ch not in _BIDI:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    more = f"… (+{len(text) - limit} chars)" if len(text) > limit else ""
    body = "".join(out)
    return f'"{body}"{more}' if quoted else f"{body}{more}"


def quote_name(name: object, limit: int = 4 * EXCERPT_CHARS) -> str:
    """A file name as git prints one: as is when every character is printable (letters of
    any script included) and none is a quote or backslash, else in double quotes with C
    escapes; cut past ``limit`` characters either way."""
    text = str(name)
    if (
        len(text) <= limit
        and text.isprintable()
        and not any(ch in _BIDI or ch in '"\\' for ch in text)
    ):
        return text
    return excerpt(text, limit)


def did_you_mean(names: Iterable[str], known: Iterable[str]) -> str:
    """`` (did you mean 'isbn'?)`` for the ``names`` close to one of ``known`` (a typo), else
    `` (known: a, b)`` when there are few known names, else nothing: to end an error about
    unknown names."""
    import difflib

    wrong = list(names)
    choices = list(dict.fromkeys(known))
    close = []
    for name in wrong:
        match = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
        if match:
            close.append(f"{match[0]!r}" if len(wrong) == 1 else f"{match[0]!r} for {name!r}")
    if close:
        return f" (did you mean {', '.join(close)}?)"
    if choices and len(choices) <= 12:
        return f" (known: {', '.join(choices)})"
    return ""

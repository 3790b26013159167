"""Page-derived text made safe for a terminal or a cron mail.

Keys, values, reasons and URLs that came from a fetched page may hold terminal escape
sequences (``\\x1b[2J`` clears the screen, OSC 8 forges links), other control characters or
bidirectional overrides that reorder what a person reads. Everything printed from a page goes
through :func:`terminal_safe` first: escape sequences are removed whole, line breaks and tabs
become spaces, and any other control or bidi-override character is dropped.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["terminal_safe"]

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

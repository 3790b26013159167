"""64-bit SimHash (Charikar 2002) for long free-text fields.

Manku, Jain & Das Sarma (2007) found that 64-bit fingerprints with a Hamming distance of at
most k = 3 identify near-duplicate web documents well. The runner uses it so that a reworded
punctuation mark or a doubled space in a long 비고/remarks text is *not* reported as a change.

Features are lower-cased word tokens (``\\w+``, so Hangul and other scripts count) plus word
bigrams, which keeps word order mattering a little; each feature is hashed with blake2b (stable
across processes, unlike ``hash()``).
"""

from __future__ import annotations

import hashlib
import itertools
import re

__all__ = [
    "LONG_TEXT_MIN_CHARS",
    "MAX_DISTANCE",
    "hamming",
    "is_long_text",
    "near_duplicate",
    "simhash",
]

#: Hamming distance at or below which two texts are the same text (Manku et al.: k = 3).
MAX_DISTANCE = 3
#: A string value is "long free text" (compared by SimHash) from this many characters on.
LONG_TEXT_MIN_CHARS = 200

_WORD = re.compile(r"\w+", re.UNICODE)
_MASK = (1 << 64) - 1


def _features(text: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(text)]
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


def _h64(feature: str) -> int:
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")


def simhash(text: str) -> int:
    """The 64-bit SimHash fingerprint of ``text`` (0 for text without word characters)."""
    weights = [0] * 64
    for feature in _features(text):
        h = _h64(feature)
        for bit in range(64):
            weights[bit] += 1 if (h >> bit) & 1 else -1
    out = 0
    for bit, w in enumerate(weights):
        if w > 0:
            out |= 1 << bit
    return out & _MASK


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit fingerprints."""
    return (a ^ b).bit_count()


def near_duplicate(a: str, b: str, k: int = MAX_DISTANCE) -> bool:
    """True when the SimHash fingerprints of ``a`` and ``b`` differ in at most ``k`` bits."""
    return a == b or hamming(simhash(a), simhash(b)) <= k


def is_long_text(a: object, b: object) -> bool:
    """Both values are strings long enough to be compared as free text rather than exactly."""
    return (
        isinstance(a, str)
        and isinstance(b, str)
        and len(a) >= LONG_TEXT_MIN_CHARS
        and len(b) >= LONG_TEXT_MIN_CHARS
    )

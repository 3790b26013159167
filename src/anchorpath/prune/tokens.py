"""A tokenizer-free token estimate, the same for raw HTML and prompts so ratios are fair.

Latin script averages about four characters per token in BPE vocabularies; CJK and Hangul are
about one token per character. No model's vocabulary is assumed.
"""

from __future__ import annotations

__all__ = ["estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text``: ASCII characters / 4 plus one per other character."""
    ascii_chars = sum(1 for c in text if c < "\x80")
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)

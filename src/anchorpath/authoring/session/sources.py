"""Where a session gets the values of a field it is asked to add or to ask about again.

A :class:`ValueSource` answers "what is field F on each seed?". :class:`ExampleValues` answers
from example values a person gave (``--examples``); an LLM-backed source answers from the
model's proposals (checked by the same verbatim and grounding guards as authoring). A source
that cannot answer returns None and the session asks the person for the values instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage

__all__ = ["ExampleValues", "ValueSource"]


class ValueSource(Protocol):
    """Proposes the value of a field on every seed (None: no proposal)."""

    #: Shown to the person ("examples", "LLM gpt-x").
    name: str

    def values(
        self, field: FieldRequest, pages: Sequence[SeedPage], *, again: bool = False
    ) -> list[Any] | None:
        """One value per seed (None where the field is absent), or None if it has no answer.
        ``again``: the person asked again; a model is re-asked without its cached answer."""
        ...

    def cost(self) -> str | None:
        """The running cost so far, for progress displays (None: free)."""
        ...


class ExampleValues:
    """Values from an examples mapping ``{seed source or URL or file name: {field: value}}``."""

    name = "examples"

    def __init__(self, examples: Mapping[str, Mapping[str, Any]]) -> None:
        self.examples = examples
        self._by_name = {Path(k).name: v for k, v in examples.items()}

    def _for(self, page: SeedPage) -> Mapping[str, Any]:
        return (
            self.examples.get(page.source)
            or self.examples.get(page.url)
            or self._by_name.get(Path(page.source).name)
            or {}
        )

    def values(
        self, field: FieldRequest, pages: Sequence[SeedPage], *, again: bool = False
    ) -> list[Any] | None:
        if again:
            return None  # the same examples would give the same answer
        out = [self._for(p).get(field.name) for p in pages]
        return out if any(v not in (None, "", []) for v in out) else None

    def cost(self) -> str | None:
        return None

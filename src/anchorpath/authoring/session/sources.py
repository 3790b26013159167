"""Where a session gets the values of a field it is asked to add or to ask about again.

A :class:`ValueSource` answers "what is field F on each seed?". :class:`ExampleValues` answers
from example values a person gave (``--examples``); an LLM-backed source answers from the
model's proposals (checked by the same verbatim and grounding guards as authoring). A source
that cannot answer returns None and the session asks the person for the values instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from anchorpath._config import LLMConfig
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage

if TYPE_CHECKING:  # the model's package is imported only when a model is asked
    from anchorpath.authoring.llm.client import LLMClient

__all__ = ["ExampleValues", "LLMValues", "ValueSource"]


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


class LLMValues:
    """Values the model proposes for one field at a time, through the same checks as LLM
    authoring (verbatim guard with one re-ask, perturbation grounding). Answers come from the
    response cache when they can; asking again bypasses it. Every call is in the ledger."""

    def __init__(self, client: LLMClient, llm: LLMConfig) -> None:
        self.client = client
        self.llm = llm
        self.name = f"LLM {getattr(client, 'model', '')}".strip()
        self.notes: list[str] = []

    def values(
        self, field: FieldRequest, pages: Sequence[SeedPage], *, again: bool = False
    ) -> list[Any] | None:
        from anchorpath.authoring.llm.cache import CachedClient
        from anchorpath.authoring.llm.propose import propose

        client = self.client
        if again and isinstance(client, CachedClient):
            client = CachedClient(client.inner, None, client.ledger)  # no cache, same ledger
        props = propose(client, pages, [field], self.llm)
        self.notes = list(props.problems)
        out = [props.examples.get(p.source, {}).get(field.name) for p in pages]
        return out if any(v not in (None, "", []) for v in out) else None

    def cost(self) -> str | None:
        ledger = getattr(self.client, "ledger", None)
        if ledger is None:
            return None
        t = ledger.totals
        return f"{t.calls} LLM call(s), ~${t.cost:.4f}"

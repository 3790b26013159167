"""The cost ledger: one JSON line per LLM call or cache hit, one file per site.

Each line: time, site, ``event`` (``call`` or ``hit``), purpose (``fields``, ``values``,
``reask``, ``perturb``), seed, model, endpoint host, prompt/completion tokens (from the
response's ``usage``), HTTP attempts, latency and the estimated cost in USD from the configured
prices (per million tokens). Totals for the current authoring are kept in memory. No prompt text
and no credential is ever written here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import LLMError
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest

__all__ = ["Ledger", "LedgerTotals"]


@dataclass
class LedgerTotals:
    calls: int = 0  # answers that came from the endpoint
    hits: int = 0  # answers that came from the cache
    attempts: int = 0  # HTTP requests (retries and re-asks included)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0

    def summary(self) -> str:
        return (
            f"{self.calls} LLM call(s), {self.hits} cache hit(s), "
            f"{self.prompt_tokens}+{self.completion_tokens} tokens, ~${self.cost:.4f}"
        )


class Ledger:
    """Appends to ``path`` (created with its directory on first use)."""

    def __init__(
        self,
        path: str | Path | None,
        *,
        site: str,
        price_input: float = 0.0,
        price_output: float = 0.0,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.site = site
        self.price_input = price_input
        self.price_output = price_output
        self.totals = LedgerTotals()
        self.by_purpose: dict[str, int] = {}

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_input + completion_tokens * self.price_output) / 1e6

    def record(self, request: ChatRequest, answer: ChatAnswer, *, endpoint: str) -> None:
        t = self.totals
        cost = 0.0 if answer.cached else self.cost(answer.prompt_tokens, answer.completion_tokens)
        if answer.cached:
            t.hits += 1
        else:
            t.calls += 1
            t.attempts += answer.attempts
            t.prompt_tokens += answer.prompt_tokens
            t.completion_tokens += answer.completion_tokens
            t.cost += cost
            t.latency += answer.latency
            self.by_purpose[request.purpose] = self.by_purpose.get(request.purpose, 0) + 1
        if self.path is None:
            return
        line = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "site": self.site,
            "event": "hit" if answer.cached else "call",
            "purpose": request.purpose,
            "seed": request.seed,
            "model": answer.model,
            "endpoint": endpoint,
            "mode": answer.mode,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "attempts": 0 if answer.cached else answer.attempts,
            "latency_s": 0.0 if answer.cached else answer.latency,
            "cost_usd": round(cost, 6),
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise LLMError(f"{self.path}: cannot write the LLM ledger: {exc}") from exc

"""The response cache: every answer stored under sha256(rendered prompt, schema, model,
temperature, top_p) in the ``llm`` namespace of a
:class:`~anchorpath.fetch.cache.DiskStore` directory (the one key/value store of anchorpath,
also the fetcher's), so authoring again with the same inputs makes no call at all and writes
the same selector file.

:class:`CachedClient` wraps any :class:`~anchorpath.authoring.llm.client.LLMClient` and records
every call and hit in the :class:`~anchorpath.authoring.llm.ledger.Ledger`. Only the answer
data and its usage figures are stored (no headers, no credentials), and only for an answer
that passed its asker's checks (:attr:`ChatRequest.accept`) and is at most
:data:`MAX_CACHED_BYTES` as JSON: a rejected or hostile answer is asked again next time, it
never fills the disk.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from anchorpath._errors import LLMError, StoreError
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest, LLMClient
from anchorpath.authoring.llm.ledger import Ledger
from anchorpath.fetch.cache import DiskStore

__all__ = ["MAX_CACHED_BYTES", "CachedClient", "cache_key"]

#: Largest answer stored (as JSON); an honest value answer is a few KiB.
MAX_CACHED_BYTES = 256 * 1024


#: The store's namespace of the answers (the fetcher's are ``robots`` and ``validators``).
_NAMESPACE = "llm"


def cache_key(request: ChatRequest, model: str, temperature: float, top_p: float) -> str:
    """sha256 of the rendered prompt, the schema, the model, temperature and top_p."""
    blob = json.dumps(
        [request.rendered(), request.schema_json(), model, float(temperature), float(top_p)],
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedClient:
    """An :class:`LLMClient` that answers from ``cache_dir`` when it can (``None``: no cache)."""

    def __init__(self, inner: LLMClient, cache_dir: str | Path | None, ledger: Ledger) -> None:
        self.inner = inner
        self.ledger = ledger
        self._cache: DiskStore | None = None
        if cache_dir is not None:
            try:
                self._cache = DiskStore(cache_dir)
            except StoreError as exc:
                raise LLMError(f"{cache_dir}: cannot open the LLM response cache: {exc}") from exc

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def endpoint(self) -> str:
        return self.inner.endpoint

    @property
    def temperature(self) -> float:
        return self.inner.temperature

    @property
    def top_p(self) -> float:
        return self.inner.top_p

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()

    def complete(self, request: ChatRequest) -> ChatAnswer:
        key = cache_key(request, self.model, self.temperature, self.top_p)
        if self._cache is not None:
            stored = self._cache.get(_NAMESPACE, key)
            if isinstance(stored, dict) and "data" in stored:
                answer = ChatAnswer(
                    stored["data"],
                    str(stored.get("model", self.model)),
                    int(stored.get("prompt_tokens", 0)),
                    int(stored.get("completion_tokens", 0)),
                    mode=str(stored.get("mode", "")),
                    cached=True,
                )
                self.ledger.record(request, answer, endpoint=self.endpoint)
                return answer
        answer = self.inner.complete(request)
        if self._cache is not None and _cacheable(request, answer):
            self._cache.set(
                _NAMESPACE,
                key,
                {
                    "data": answer.data,
                    "model": answer.model,
                    "prompt_tokens": answer.prompt_tokens,
                    "completion_tokens": answer.completion_tokens,
                    "mode": answer.mode,
                },
            )
        answer = replace(answer, cached=False)
        self.ledger.record(request, answer, endpoint=self.endpoint)
        return answer


def _cacheable(request: ChatRequest, answer: ChatAnswer) -> bool:
    """Passed the asker's checks and small enough to keep."""
    if request.accept is not None and not request.accept(answer.data):
        return False
    size = len(json.dumps(answer.data, ensure_ascii=False, default=str).encode("utf-8"))
    return size <= MAX_CACHED_BYTES

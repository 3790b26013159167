"""What an LLM call is: a request (messages + JSON Schema), an answer (validated JSON + usage),
and the small :class:`LLMClient` Protocol every backend implements.

Backends: :class:`~anchorpath.authoring.llm.openai_client.OpenAIClient` (any OpenAI-compatible
endpoint), :class:`~anchorpath.authoring.llm.fake.FakeClient` (in memory, for tests), and
:class:`~anchorpath.authoring.llm.cache.CachedClient`, which wraps either with the response
cache and the cost ledger. Answers are data: nothing in them is executed or fetched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = ["ChatAnswer", "ChatRequest", "LLMClient", "Message", "Purpose", "schema_problems"]

#: Why a call was made (recorded in the ledger).
Purpose = Literal["fields", "values", "reask", "perturb", "check"]


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatRequest:
    """One structured-output question: the answer must be JSON matching ``schema``."""

    messages: tuple[Message, ...]
    schema: Mapping[str, Any]
    schema_name: str
    purpose: Purpose = "values"
    seed: str | None = None  # which seed page the question is about (ledger only)
    #: Whether an answer passed the asker's checks (values on the page, within the caps):
    #: only such answers are cached. Not part of the question (nor of the cache key).
    accept: Callable[[Any], bool] | None = field(default=None, compare=False, repr=False)

    def rendered(self) -> str:
        """The prompt exactly as sent, as one string (part of the cache key)."""
        return "\n".join(f"<{m.role}>\n{m.content}" for m in self.messages)

    def schema_json(self) -> str:
        return json.dumps(self.schema, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class ChatAnswer:
    """A validated answer and what it cost."""

    data: Any
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    attempts: int = 1  # HTTP requests made (retries and the re-ask included)
    mode: str = "json_schema"  # json_schema | json_object | fake
    cached: bool = False


class LLMClient(Protocol):
    """An endpoint answering :class:`ChatRequest` s with schema-valid JSON.

    ``model``, ``temperature`` and ``top_p`` are part of the cache key; ``endpoint`` (a host,
    never a URL with credentials) goes into provenance.
    """

    @property
    def model(self) -> str: ...

    @property
    def endpoint(self) -> str: ...

    @property
    def temperature(self) -> float: ...

    @property
    def top_p(self) -> float: ...

    def complete(self, request: ChatRequest) -> ChatAnswer: ...


def schema_problems(data: Any, schema: Mapping[str, Any]) -> list[str]:
    """Why ``data`` does not match ``schema`` (empty when it does), at most five reasons."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in err.path) or "(root)"
        out.append(f"{where}: {err.message}")
        if len(out) == 5:
            break
    return out

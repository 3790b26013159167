"""``anchorpath llm check``: is the configured endpoint usable for authoring?

One tiny structured question through the client authoring uses (no cache, no retries), so
what it reports is what authoring will meet: whether the endpoint answers, which model
answered, whether it takes ``response_format`` ``json_schema`` (structured outputs) or only
``json_object``, how long one answer took, and where the API key came from (never the key).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from anchorpath._config import LLMConfig
from anchorpath._errors import LLMError
from anchorpath.authoring.llm.client import ChatRequest, Message

__all__ = ["CHECK_REQUEST", "EndpointCheck", "check_endpoint"]

#: The question: a one-word answer under a one-property schema (a handful of tokens).
CHECK_REQUEST = ChatRequest(
    messages=(
        Message("system", "You answer in JSON."),
        Message("user", 'Reply with exactly {"answer": "ok"}.'),
    ),
    schema={
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    },
    schema_name="check",
    purpose="check",
)


@dataclass(frozen=True)
class EndpointCheck:
    """What one check found. ``problem`` is None when the endpoint is usable."""

    base_url: str
    model_asked: str
    api_key_from: str | None  # the variable that held the key; None: no key (local servers)
    problem: str | None = None
    model: str | None = None  # the model that answered (as the endpoint names it)
    structured: str | None = None  # json_schema | json_object
    structured_note: str = ""
    seconds: float | None = None
    requests: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None


def _key_source(config: LLMConfig, env: Mapping[str, str]) -> str | None:
    from anchorpath.authoring.llm.openai_client import API_KEY_ENV

    for name in (API_KEY_ENV, config.api_key_env):
        if env.get(name):
            return name
    return None


def check_endpoint(config: LLMConfig, *, env: Mapping[str, str] | None = None) -> EndpointCheck:
    """Ask the endpoint of ``config`` :data:`CHECK_REQUEST` once (a rejected ``json_schema``
    and a malformed answer each cost one more request, as in authoring)."""
    from anchorpath.authoring.llm.openai_client import OpenAIClient

    env = os.environ if env is None else env
    head = EndpointCheck(config.base_url, config.model, _key_source(config, env))
    # No retries: a check says what is wrong now, at once.
    client = OpenAIClient(replace(config, max_retries=0), env=env)
    t0 = time.perf_counter()
    try:
        answer = client.complete(CHECK_REQUEST)
    except LLMError as exc:
        return replace(head, problem=str(exc), seconds=time.perf_counter() - t0)
    finally:
        client.close()
    if config.structured == "json_object":
        note = 'json_object, as configured (structured = "json_object")'
    elif client.mode == "json_schema":
        note = "json_schema: structured outputs supported"
    else:
        note = (
            "json_object only: json_schema was rejected, answers are validated against the "
            'schema instead; structured = "json_object" skips the rejected first request'
        )
    return replace(
        head,
        model=answer.model,
        structured=client.mode,
        structured_note=note,
        seconds=answer.latency,
        requests=answer.attempts,
    )

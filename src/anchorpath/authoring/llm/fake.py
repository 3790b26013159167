"""An in-memory :class:`~anchorpath.authoring.llm.client.LLMClient` for tests: answers come
from a function of the request, nothing leaves the process (no HTTP at all). Answers are
validated against the request's schema like a real endpoint's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anchorpath._errors import LLMError
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest, schema_problems

__all__ = ["FakeClient"]


class FakeClient:
    """``answer(request) -> data``; every request is kept in ``requests``."""

    def __init__(
        self,
        answer: Callable[[ChatRequest], Any],
        *,
        model: str = "fake-model",
        endpoint: str = "fake.invalid",
        temperature: float = 0.0,
        top_p: float = 1.0,
    ) -> None:
        self._answer = answer
        self._model = model
        self._endpoint = endpoint
        self._temperature = temperature
        self._top_p = top_p
        self.requests: list[ChatRequest] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def endpoint(self) -> str:
        return self._endpoint

    @property
    def temperature(self) -> float:
        return self._temperature

    @property
    def top_p(self) -> float:
        return self._top_p

    def complete(self, request: ChatRequest) -> ChatAnswer:
        self.requests.append(request)
        data = self._answer(request)
        problems = schema_problems(data, request.schema)
        if problems:
            raise LLMError(f"fake model: answer does not match the schema: {problems[0]}")
        tokens = sum(len(m.content) for m in request.messages) // 4
        return ChatAnswer(data, self._model, tokens, 16, mode="fake")

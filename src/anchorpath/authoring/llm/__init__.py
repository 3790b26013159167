"""LLM-assisted authoring: an OpenAI-compatible client with a response cache and a cost
ledger, field and value proposals checked against the DOM (verbatim guard, perturbation
grounding), and the glue that hands verified values to the example-value core.

The runner never imports this package (import-linter enforces it); the LLM only proposes
field names and values at authoring time and nothing it answers is executed or fetched.
"""

from __future__ import annotations

from anchorpath.authoring.llm.author import (
    LLMAuthoring,
    LLMPageType,
    author_page_type_with_llm,
    author_with_llm,
    ledger_path,
    llm_provenance,
    make_client,
)
from anchorpath.authoring.llm.cache import CachedClient, cache_key
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest, LLMClient, Message
from anchorpath.authoring.llm.fake import FakeClient
from anchorpath.authoring.llm.ledger import Ledger, LedgerTotals
from anchorpath.authoring.llm.propose import (
    FieldProposal,
    Proposals,
    SeedPrompt,
    ValueVerdict,
    prepare_pages,
    propose,
    propose_fields,
    propose_values,
    value_schema,
)

__all__ = [
    "CachedClient",
    "ChatAnswer",
    "ChatRequest",
    "FakeClient",
    "FieldProposal",
    "LLMAuthoring",
    "LLMClient",
    "LLMPageType",
    "Ledger",
    "LedgerTotals",
    "Message",
    "Proposals",
    "SeedPrompt",
    "ValueVerdict",
    "author_page_type_with_llm",
    "author_with_llm",
    "cache_key",
    "ledger_path",
    "llm_provenance",
    "make_client",
    "prepare_pages",
    "propose",
    "propose_fields",
    "propose_values",
    "value_schema",
]

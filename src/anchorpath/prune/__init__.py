"""What a model (or a person reading a prompt) sees of a page: the DOM pruned to Markdown,
with stable node ids, within a token budget met by relevance.

Pure (lxml + markdownify, no I/O) and below both authoring and the runner: LLM authoring prunes
seed pages with it, the drift bundle's ``prompt.md`` prunes the failing pages with it, and the
runner never imports an LLM module to get there.

:func:`prune_page` drops what cannot hold a field value (scripts, styles, SVG, iframes, hidden
nodes, link-heavy boilerplate such as navigation, headers, footers and asides), renders the rest
with ``markdownify`` (tables kept) and cuts it into chunks; :func:`fit_budget` keeps the most
relevant chunks, in page order, until the budget is met. Every text span keeps the id of its
node and the node's absolute path in the seed's DOM, so an answer maps back to DOM nodes and a
node's text can be perturbed in the Markdown (perturbation grounding).
"""

from __future__ import annotations

from anchorpath.prune.budget import PromptPage, fit_budget, template_chunks
from anchorpath.prune.markdown import Chunk, PrunedPage, Span, prune_page
from anchorpath.prune.tokens import estimate_tokens

__all__ = [
    "Chunk",
    "PromptPage",
    "PrunedPage",
    "Span",
    "estimate_tokens",
    "fit_budget",
    "prune_page",
    "template_chunks",
]

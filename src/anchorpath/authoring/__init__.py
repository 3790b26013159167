"""Authoring: turn seed pages and example values into a verified selector file.

Deterministic and LLM-free at its core (an LLM, when used, only supplies the example values).
The runner never imports this package.
"""

from __future__ import annotations

from anchorpath.authoring.induce import (
    AuthoringResult,
    CandidateScore,
    Examples,
    FieldReport,
    FieldRequest,
    assemble_site,
    author_page_type,
    author_site,
)
from anchorpath.authoring.seeds import SeedPage, load_seed, seed_from_html

__all__ = [
    "AuthoringResult",
    "CandidateScore",
    "Examples",
    "FieldReport",
    "FieldRequest",
    "SeedPage",
    "assemble_site",
    "author_page_type",
    "author_site",
    "load_seed",
    "seed_from_html",
]

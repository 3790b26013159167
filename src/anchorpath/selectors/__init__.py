"""Selector files: the model, its JSON Schema, loading/saving, and pure evaluation.

Imported as ``anchorpath.selectors`` only; the repo's top-level ``selectors/`` folder is data.
"""

from __future__ import annotations

from anchorpath.selectors.evaluate import (
    PageResult,
    Record,
    compile_selectors,
    evaluate_page,
    extract,
)
from anchorpath.selectors.load import (
    dump_selector_file,
    load_selector_file,
    parse_selector_data,
    save_selector_file,
    validate_data,
)
from anchorpath.selectors.model import FieldSpec, PageType, SelectorFile

__all__ = [
    "FieldSpec",
    "PageResult",
    "PageType",
    "Record",
    "SelectorFile",
    "compile_selectors",
    "dump_selector_file",
    "evaluate_page",
    "extract",
    "load_selector_file",
    "parse_selector_data",
    "save_selector_file",
    "validate_data",
]

"""anchorpath: describe a website's records once, collect them every day."""

from __future__ import annotations

from anchorpath._errors import AnchorpathError
from anchorpath._version import __version__
from anchorpath.selectors.evaluate import Record, extract
from anchorpath.selectors.load import load_selector_file, save_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "AnchorpathError",
    "Record",
    "SelectorFile",
    "__version__",
    "extract",
    "load_selector_file",
    "save_selector_file",
]

"""anchorpath: describe a website's records once, collect them every day.

The Python API (stable; README "Python API"): :func:`load`, :func:`extract`, :func:`run`,
:func:`records`, the types they return and the :class:`AnchorpathError` tree. Importing the
package loads the selector layer only; the runner is imported when :func:`run` or
:func:`records` is called, or when :class:`RunResult` is first looked up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anchorpath._errors import (
    AnchorpathError,
    ArchiveError,
    AuthoringError,
    BrowserError,
    BundleError,
    ConfigError,
    DeadlineExceeded,
    DecodeError,
    ExtractionError,
    FetchError,
    FetchFailed,
    GroundingError,
    LLMError,
    NoPageTypeError,
    OriginBlocked,
    ReviewError,
    RobotsDisallowed,
    RunError,
    SelectorEvaluationError,
    SelectorFileError,
    SelectorValidationError,
    SiteStopped,
    StoreError,
    UnsafeRequest,
    WorkerFailed,
)
from anchorpath._version import __version__
from anchorpath.api import RecordRows, extract, load, records, run
from anchorpath.selectors.evaluate import Record
from anchorpath.selectors.load import save_selector_file
from anchorpath.selectors.model import SelectorFile

if TYPE_CHECKING:
    from anchorpath.runner.run_types import RunResult

__all__ = [
    "AnchorpathError",
    "ArchiveError",
    "AuthoringError",
    "BrowserError",
    "BundleError",
    "ConfigError",
    "DeadlineExceeded",
    "DecodeError",
    "ExtractionError",
    "FetchError",
    "FetchFailed",
    "GroundingError",
    "LLMError",
    "NoPageTypeError",
    "OriginBlocked",
    "Record",
    "RecordRows",
    "ReviewError",
    "RobotsDisallowed",
    "RunError",
    "RunResult",
    "SelectorEvaluationError",
    "SelectorFile",
    "SelectorFileError",
    "SelectorValidationError",
    "SiteStopped",
    "StoreError",
    "UnsafeRequest",
    "WorkerFailed",
    "__version__",
    "extract",
    "load",
    "records",
    "run",
    "save_selector_file",
]


def __getattr__(name: str) -> Any:
    """``RunResult`` on first use: importing it loads the runner, which ``import anchorpath``
    does not need."""
    if name == "RunResult":
        from anchorpath.runner.run_types import RunResult

        return RunResult
    raise AttributeError(f"module 'anchorpath' has no attribute {name!r}")

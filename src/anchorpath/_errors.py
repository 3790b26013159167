"""The one exception tree of anchorpath.

Every error anchorpath raises on purpose derives from :class:`AnchorpathError`; third-party
errors (lxml, httpx, Playwright, jsonschema, sqlite3, openai) are translated at the boundary
and chained as ``__cause__`` so the message names the file, field or URL involved::

    AnchorpathError
    ├── ConfigError                 bad config file, env variable or flag value
    ├── SelectorFileError           a selector file cannot be read or is invalid
    │   └── SelectorValidationError     schema / XPath errors, with a list of precise problems
    ├── ExtractionError             a page cannot be decoded or evaluated
    │   ├── DecodeError                 bytes that no candidate encoding decodes
    │   ├── NoPageTypeError             no page type of the selector file matches the page
    │   └── SelectorEvaluationError     an XPath of the selector file fails to evaluate
    ├── FetchError                  anything on the way to the network
    │   ├── RobotsDisallowed            robots.txt forbids the URL (skip it, do not retry)
    │   ├── OriginBlocked               401/403, robots 4xx, login wall, CAPTCHA: stop the origin
    │   ├── UnsafeRequest               SSRF guard, size/decompression caps, bad scheme, long URL
    │   ├── DeadlineExceeded            waiting would pass the URL's or the run's deadline
    │   └── FetchFailed                 retries exhausted, 404/410, network errors
    ├── BrowserError                Playwright / Chromium could not render a page
    ├── ArchiveError                a WARC file cannot be written or read
    ├── StoreError                  the SQLite state cannot be read or written
    ├── RunError                    a run cannot start (lock held, no such site, ...)
    │   ├── WorkerFailed                a task failed twice on executor workers
    │   └── SiteStopped                 the site is stopped until ``anchorpath resume``
    ├── BundleError                 a drift bundle cannot be written or read
    ├── ReviewError                 ``diff``/``check`` cannot read a version (git, history, state)
    └── AuthoringError              authoring cannot produce a selector file
        ├── GroundingError              an example value matches no node of a seed page
        └── LLMError                    the LLM endpoint failed or answered nonsense
"""

from __future__ import annotations

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
    "ReviewError",
    "RobotsDisallowed",
    "RunError",
    "SelectorEvaluationError",
    "SelectorFileError",
    "SelectorValidationError",
    "SiteStopped",
    "StoreError",
    "UnsafeRequest",
    "WorkerFailed",
]


class AnchorpathError(Exception):
    """Root of every error anchorpath raises on purpose."""


class ConfigError(AnchorpathError):
    """A config file, environment variable or command-line value is invalid."""


class SelectorFileError(AnchorpathError):
    """A selector file cannot be read, parsed or saved."""


class SelectorValidationError(SelectorFileError):
    """A selector file breaks the schema or holds XPaths that do not compile.

    ``problems`` holds one ``FILE:/json/pointer: message`` line per problem.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = list(problems)
        first = problems[0] if problems else "invalid"
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")


class ExtractionError(AnchorpathError):
    """A page cannot be decoded or a selector cannot be evaluated on it."""


class DecodeError(ExtractionError):
    """No candidate encoding decodes the page bytes."""


class NoPageTypeError(ExtractionError):
    """No page type of the selector file matches the page's URL (or none has the name asked
    for): nothing can be extracted, which is not the same as a page with no records."""


class SelectorEvaluationError(ExtractionError):
    """An XPath of the selector file compiled but fails to evaluate: a fault of the selector
    file, not of the page, so a run stops with verdict ``error`` instead of skipping pages."""


class FetchError(AnchorpathError):
    """Base of everything that goes wrong on the way to the network."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        self.url = url
        super().__init__(message)


class RobotsDisallowed(FetchError):
    """robots.txt forbids the URL: skip it, never retry it another way.

    ``reason`` is ``"disallowed"`` (a rule forbids the URL) or ``"unavailable"`` (robots.txt
    could not be fetched, which RFC 9309 treats as a complete disallow).
    """

    def __init__(self, message: str, *, url: str | None = None, reason: str = "disallowed") -> None:
        self.reason = reason
        super().__init__(message, url=url)


class OriginBlocked(FetchError):
    """The origin refused us (401/403, robots 4xx, login wall, CAPTCHA): stop it."""

    def __init__(self, message: str, *, url: str | None = None, reason: str = "blocked") -> None:
        self.reason = reason
        super().__init__(message, url=url)


class UnsafeRequest(FetchError):
    """A network-safety guard refused the request or the response."""


class DeadlineExceeded(FetchError):
    """Waiting as the server asked would pass the URL's or the run's deadline."""


class FetchFailed(FetchError):
    """The URL could not be fetched: 404/410, retries exhausted, network errors."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None) -> None:
        self.status = status
        super().__init__(message, url=url)


class BrowserError(AnchorpathError):
    """Playwright or Chromium could not render a page."""


class ArchiveError(AnchorpathError):
    """A WARC archive cannot be written or read."""


class StoreError(AnchorpathError):
    """The SQLite state database cannot be read or written."""


class RunError(AnchorpathError):
    """A run cannot start or continue (lock held by a live run, unknown site, ...)."""


class WorkerFailed(RunError):
    """A task failed twice on executor workers (the worker died or could not run it)."""


class SiteStopped(RunError):
    """The site is stopped (robots.txt or terms changed, refused, rate-limited, walls):
    ``anchorpath run`` refuses it until a person runs ``anchorpath resume``."""


class BundleError(AnchorpathError):
    """A drift bundle cannot be written, or read back for re-authoring."""


class ReviewError(AnchorpathError):
    """A selector review (``anchorpath diff`` / ``check``) cannot read what it compares:
    a bad ``SITE@N`` version, a git failure, an unreadable state directory."""


class AuthoringError(AnchorpathError):
    """Authoring cannot produce a selector file from the given seeds and values."""


class GroundingError(AuthoringError):
    """An example value matches no node of a seed page."""


class LLMError(AuthoringError):
    """The LLM endpoint failed, timed out or answered something unusable."""

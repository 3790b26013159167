"""The Python API: what a notebook, an Airflow or a Dagster task calls instead of the CLI.

Four functions, re-exported by the package (``anchorpath.load`` ...) and stable:

* :func:`load` reads and validates a selector file;
* :func:`extract` applies one to a page in memory (no network) and returns typed
  :class:`~anchorpath.selectors.evaluate.Record` objects; a page that no page type matches is
  an :class:`~anchorpath._errors.ExtractionError`, never an empty list;
* :func:`run` is ``anchorpath run`` (same settings precedence, same store and verdicts) and
  returns its :class:`~anchorpath.runner.run_types.RunResult`;
* :func:`records` streams the stored records of a site (current, or as they stood at a time)
  as dicts, and turns them into a pandas ``DataFrame`` when pandas is installed.

Every error is an :class:`~anchorpath._errors.AnchorpathError`. The module sits on top of the
layers next to ``cli`` (it calls the runner and the selectors, nothing calls it) and imports the
runner only when :func:`run` or :func:`records` is called, so ``import anchorpath`` stays cheap.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchorpath._errors import AnchorpathError, ConfigError
from anchorpath.selectors.evaluate import Record
from anchorpath.selectors.evaluate import extract as _extract_page
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.model import SelectorFile
from anchorpath.selectors.page_url import is_http_url

if TYPE_CHECKING:
    import pandas

    from anchorpath.runner.progress import Progress
    from anchorpath.runner.run_types import RunResult

__all__ = ["RecordRows", "extract", "load", "records", "run"]

PathLike = str | os.PathLike[str]


def load(path: PathLike) -> SelectorFile:
    """The selector file at ``path``, validated (schema, XPaths); SelectorFileError otherwise."""
    return load_selector_file(path)


def extract(
    selector_file: SelectorFile | PathLike,
    html: str | bytes,
    url: str,
    *,
    page_type: str | None = None,
    http_charset: str | None = None,
    trace: bool = False,
) -> list[Record]:
    """The records of one page (no network): ``html`` as text or as the bytes served (decoded
    by ``http_charset`` > BOM > ``<meta>`` > detection), ``url`` where it came from.

    ``url`` picks the page type by its ``match`` regex, unless ``page_type`` names one. A page
    no page type matches raises NoPageTypeError, an ExtractionError (naming the URL and the
    page types): an empty list always means a page of a known type that lists no record.
    """
    sf = selector_file if isinstance(selector_file, SelectorFile) else load(selector_file)
    return _extract_page(sf, html, url, http_charset=http_charset, trace=trace, page_type=page_type)


def run(
    site: str | PathLike,
    *,
    selectors: PathLike | None = None,
    state: PathLike | None = None,
    config: PathLike | None = None,
    overrides: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    urls: Sequence[str] = (),
    full: bool = False,
    resume: bool = False,
    progress: Progress | None = None,
) -> RunResult:
    """One daily run of ``site`` (a site id or a selector file path), as ``anchorpath run``:
    settings are defaults < ``config`` (or ``ANCHORPATH_CONFIG`` / ``./anchorpath.toml``) <
    environment < ``overrides`` (``{"fetch.min_delay": 3.0}``: ``section.field`` keys, an
    unknown one is a ConfigError); ``selectors``/``state`` default to ``paths.selectors_dir`` /
    ``paths.state_dir``; ``base_url``, ``urls``, ``full`` and ``resume`` are the flags of
    ``anchorpath run``. ``progress(event)`` is called as the run goes, with the typed events of
    :mod:`anchorpath.runner.progress` (``RunStarted``, ``PageRead`` with ``url``/``done``/
    ``queued``/``records``, ``Waited``, ``Phase``, ``Note``): a task's log.

    A run that starts returns its result (``verdict``, ``exit_code``, ``events``, ...) whatever
    its verdict; a run that cannot start (unknown site, invalid file, lock held) raises.
    """
    from anchorpath._config import load_settings
    from anchorpath.runner.pipeline import run_site
    from anchorpath.runner.run_types import RunOptions

    for what, url in [("base_url", base_url), *(("urls", u) for u in urls)]:
        if url is not None and not is_http_url(url):
            raise ConfigError(f"run({what}=...): {url!r} is not an absolute http(s) URL")
    settings = load_settings(config, overrides=overrides)
    options = RunOptions(
        site=os.fspath(site),
        selectors_dir=Path(selectors if selectors is not None else settings.paths.selectors_dir),
        state_dir=Path(state if state is not None else settings.paths.state_dir),
        urls=tuple(urls),
        full=full,
        resume=resume,
        base_url=base_url,
        settings=settings,
    )
    return run_site(options, progress=progress)


class RecordRows(Iterator[dict[str, Any]]):
    """The rows :func:`records` yields (``{"_key", "_valid_from", "_valid_to", "_run_id",
    <fields>...}``, ordered by key), read lazily from the state database.

    A missing database or site fails when the rows are asked for, not at the first row.
    """

    def __init__(self, rows: Iterator[dict[str, Any]]) -> None:
        self._rows = rows
        self._first: list[dict[str, Any]] = []
        for row in rows:  # open the database now: its errors belong to the call
            self._first.append(row)
            break

    def __next__(self) -> dict[str, Any]:
        if self._first:
            return self._first.pop()
        return next(self._rows)

    def to_pandas(self) -> pandas.DataFrame:
        """The remaining rows as a DataFrame (one column per field); needs pandas."""
        try:
            import pandas
        except ImportError as exc:
            raise AnchorpathError(
                "records(...).to_pandas() needs pandas: pip install pandas"
            ) from exc
        return pandas.DataFrame.from_records(list(self))


def records(
    state: PathLike,
    site: str | SelectorFile,
    *,
    as_of: str | dt.date | dt.datetime | None = None,
) -> RecordRows:
    """The records of ``site`` (its id, its selector file or that file's path) in the state
    directory ``state``: the current ones, or with ``as_of`` (an ISO 8601 text, a date or a
    date-time; a naive time is UTC) the versions valid then. StoreError when nothing was
    stored."""
    from anchorpath.runner.store.database import DB_NAME
    from anchorpath.runner.store.export import iter_records, parse_time

    if isinstance(site, SelectorFile):
        site_id = site.site.id
    elif site.endswith(".json") or os.sep in site:
        site_id = load(site).site.id  # a selector file's path, as the CLI takes it
    else:
        site_id = site
    when = None
    if as_of is not None:
        when = parse_time(as_of if isinstance(as_of, str) else as_of.isoformat(), "as_of")
    return RecordRows(iter_records(Path(state) / DB_NAME, site_id, when))

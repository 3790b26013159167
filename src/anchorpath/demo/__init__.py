"""The bundled demo site: a Korean regulator's DMF (원료의약품 등록) notice board.

* :mod:`anchorpath.demo.data` – deterministic ground truth per day (records, expected events)
* :mod:`anchorpath.demo.pages` – the HTML (two templates; the template changes on day 3)
* :mod:`anchorpath.demo.server` – :class:`DemoServer`, a stdlib HTTP server on 127.0.0.1

The hand-written selector file ships as package data (``mfds-dmf.json``, a byte-identical copy
of the repository's ``selectors/mfds-dmf.json``). Its start URL names
``http://127.0.0.1:8765``; :func:`selector_text` rewrites that origin to a running server's.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from anchorpath.demo.data import (
    Events,
    Record,
    expected_events,
    expected_records,
    records_for_day,
)
from anchorpath.demo.server import MODES, DemoServer

__all__ = [
    "MODES",
    "SELECTOR_FILE_NAME",
    "SELECTOR_ORIGIN",
    "DemoServer",
    "Events",
    "Record",
    "expected_events",
    "expected_records",
    "records_for_day",
    "selector_text",
    "write_site_file",
]

SELECTOR_FILE_NAME = "mfds-dmf.json"
#: The origin written in the selector file; replaced by the live server's at run time.
SELECTOR_ORIGIN = "http://127.0.0.1:8765"


def selector_text(base_url: str | None = None) -> str:
    """The packaged demo selector file, with its origin replaced by ``base_url`` if given."""
    text = resources.files("anchorpath.demo").joinpath(SELECTOR_FILE_NAME).read_text("utf-8")
    if base_url:
        text = text.replace(SELECTOR_ORIGIN, base_url.rstrip("/"))
        # The allow regex spells the origin with escaped dots.
        text = text.replace(
            SELECTOR_ORIGIN.replace(".", "\\\\."), base_url.rstrip("/").replace(".", "\\\\.")
        )
    return text


def write_site_file(
    selectors_dir: Path, base_url: str, *, site_id: str = "mfds-dmf", **fetch: Any
) -> Path:
    """Write the demo selector file for the server at ``base_url`` as site ``site_id`` into
    ``selectors_dir`` (with the golden fixtures it names), ``fetch`` keys overridden: several
    demo servers on several ports become several sites on several origins (``run --all``
    tests and ``bench/scale.py``)."""
    from anchorpath.demo.golden import copy_packaged_fixtures

    selectors_dir.mkdir(parents=True, exist_ok=True)
    if not (selectors_dir / "fixtures").exists():
        copy_packaged_fixtures(selectors_dir)
    data = json.loads(selector_text(base_url))
    data["site"]["id"] = site_id
    data["fetch"].update(fetch)
    path = selectors_dir / f"{site_id}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path

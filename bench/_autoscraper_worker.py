"""Runs alirezamika/autoscraper for bench/swde.py inside the benchmark's own venv.

It is started as ``bench/.venv-autoscraper/bin/python bench/_autoscraper_worker.py`` (see
``bench/setup_autoscraper.sh``) so that autoscraper and its pinned BeautifulSoup (< 4.13: newer
versions make ``build`` silently learn nothing) never enter the project's venv.

Protocol: one JSON document on stdin, one on stdout.

    in:  {"jobs": [{"id": str, "mode": "exact" (default) | "similar",
                    "train": [{"url": str, "html": str, "wanted": {alias: [value, ...]}}],
                    "test":  [{"key": str, "url": str, "html": str}]}]}
    out: {"results": {job_id: {"rules": int, "learned": {alias: n_rules},
                               "pages": {key: {alias: [value, ...]}},
                               "errors": {key: message}}}}

Training follows autoscraper's documented multi-page use: ``build(..., update=True)`` once per
seed page with ``wanted_dict``; extraction uses ``get_result_exact(..., group_by_alias=True)``, or for list pages
(``"mode": "similar"``, bench/lists.py) ``get_result_similar(..., group_by_alias=True,
keep_order=True)``, which returns every record alike to the examples.
This file deliberately imports nothing from anchorpath (it runs in another interpreter).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    from autoscraper import AutoScraper

    scraper = AutoScraper()
    for seed in job["train"]:
        wanted = {alias: [v for v in values if v] for alias, values in seed["wanted"].items()}
        wanted = {alias: values for alias, values in wanted.items() if values}
        if not wanted:
            continue
        try:
            scraper.build(url=seed["url"], html=seed["html"], wanted_dict=wanted, update=True)
        except Exception as exc:  # a crash while learning one seed must not end the job
            print(f"autoscraper build failed on {seed['url']}: {exc!r}", file=sys.stderr)
    learned: dict[str, int] = {}
    for stack in scraper.stack_list:
        learned[stack.get("alias", "")] = learned.get(stack.get("alias", ""), 0) + 1
    pages: dict[str, dict[str, list[str]]] = {}
    errors: dict[str, str] = {}
    for page in job["test"]:
        try:
            if job.get("mode") == "similar":  # list pages: every record like the examples
                got = scraper.get_result_similar(
                    url=page["url"],
                    html=page["html"],
                    group_by_alias=True,
                    keep_order=True,
                    unique=True,
                )
            else:
                got = scraper.get_result_exact(
                    url=page["url"], html=page["html"], group_by_alias=True
                )
        except Exception as exc:
            errors[page["key"]] = repr(exc)
            got = {}
        pages[page["key"]] = {str(k): [str(x) for x in v] for k, v in dict(got).items()}
    return {"rules": len(scraper.stack_list), "learned": learned, "pages": pages, "errors": errors}


def main() -> int:
    request = json.load(sys.stdin)
    results = {job["id"]: run_job(job) for job in request["jobs"]}
    json.dump({"results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""List-page authoring benchmark: anchorpath vs autoscraper on real search-result pages.

The task is the one a person performs with the tool: for each site of
``../shared/data/lists/`` (63 sites, three search-result pages of one template each), author a
``title`` field from pages 1 and 2 with three example titles each, then extract page 3 and
compare its titles with every record of ``page3.records.csv``.

* **anchorpath** — ``author_site(..., list_page=True, strict=False)`` on pages 1–2, then
  ``anchorpath.extract`` on page 3 (one title per record);
* **autoscraper** 1.1.14 — in its own venv (``bench/setup_autoscraper.sh``, beautifulsoup4 <
  4.13), ``build(wanted_dict={"title": examples}, update=True)`` on pages 1 and 2, then
  ``get_result_similar(group_by_alias=True)`` on page 3 (its documented way to get *all* the
  records like the examples);
* **absolute** — the absolute positional XPaths (``getroottree().getpath``) of the title nodes
  our selector file reaches on page 1, evaluated on page 3 (Robula+'s baseline).

The title column of a site is the first CSV column whose values are filled, distinct and
visible in the page for most records (``lists/README.md``). Titles are compared after NFKC,
white space collapsing and case folding, with ``?`` and non-ASCII letters dropped on both sides
(the CSVs lost non-ASCII letters as ``?`` and some double quotes). Per site: title precision, recall, F1 and record
counts (extracted / gold); authoring failures are listed with their messages and score 0.

A second part measures *survival* on ``../shared/data/evolution/thesis_wrapper`` (a list page
captured on 10 dates): author from the first two captures with three titles each, extract every
capture; the gold titles come from a bench-side reference XPath per site (xpaths.txt,
generalised to all records).

Run from the repo root:
    bash bench/setup_autoscraper.sh
    .venv/bin/python bench/lists.py --write-results
"""

from __future__ import annotations

import argparse
import csv
import html as html_mod
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
import unicodedata
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlsplit

from lxml import etree

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "lists"
DEFAULT_EVOLUTION = REPO.parent / "shared" / "data" / "evolution"
AUTOSCRAPER_PY = HERE / ".venv-autoscraper" / "bin" / "python"
WORKER = HERE / "_autoscraper_worker.py"
RESULTS = HERE / "RESULTS.md"
N_EXAMPLES = 3
LOAD = [0.0]  # the machine's 1-minute load average when the run started

from anchorpath.authoring.options import AuthoringOptions  # noqa: E402
from anchorpath.selectors.evaluate import extract, parse_html  # noqa: E402
from anchorpath.selectors.model import SelectorFile  # noqa: E402

csv.field_size_limit(10**7)

# -- text comparison ------------------------------------------------------------------------------

_WS = re.compile(r"[\s\u00a0\u2000-\u200b\u3000\ufeff]+")


def display(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", html_mod.unescape(text))).strip()


def key(text: str) -> str:
    """Comparison key: NFKC, case folded, ``?``, ``"`` and non-ASCII dropped (the CSVs lost
    them), white space collapsed."""
    t = display(text).casefold()
    t = "".join(ch for ch in t if ch.isascii() and ch not in '?"')
    return _WS.sub(" ", t).strip()


@dataclass
class Score:
    predicted: int
    gold: int
    matched: int

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(predicted: Sequence[str], gold: Sequence[str]) -> Score:
    pred = [key(p) for p in predicted if key(p)]
    want = Counter(key(g) for g in gold if key(g))
    got = Counter(pred)
    matched = sum(min(n, want[k]) for k, n in got.items())
    return Score(len(pred), sum(want.values()), matched)


# -- data ----------------------------------------------------------------------------------------


@dataclass
class Page:
    name: str
    url: str
    html: str
    rows: list[list[str]]
    visible: str = ""  # key() of the page's visible text
    shown: str = ""  # the visible text as displayed (case and non-ASCII kept)


@dataclass
class ListSite:
    name: str
    pages: list[Page]
    column: Column | None = None  # the site's title column (None: no usable column)
    columns: dict[str, Column] = field(default_factory=dict)  # per page, where columns shift

    def titles(self, page: Page) -> list[str]:
        col = self.columns.get(page.name, self.column)
        if col is None:
            return []
        return [t for t in (cell(r, col) for r in page.rows) if t]


#: A title column: CSV column indexes, the first filled one is the title (one index today).
Column = tuple[int, ...]


def cell(row: Sequence[str], col: Column) -> str:
    for c in col:
        v = display(row[c]) if c < len(row) else ""
        if v:
            return v
    return ""


def visible_text(doc: etree._Element) -> str:
    parts: list[str] = []
    body = doc.find(".//body")
    for el in (body if body is not None else doc).iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag not in ("script", "style", "noscript", "template") and el.text:
            parts.append(el.text)
        if el.tail:
            parts.append(el.tail)
    return display(" ".join(parts))


_WORD = re.compile(r"[^\W\d_]{4,}")  # a word of four letters: not a number or a date
_PRICE = re.compile(r"\d\.\d\d\b")


def choose_column(pages: Sequence[Page]) -> Column | None:
    """First column filled, distinct, visible and worded (not a bare number or price) for most
    records (see lists/README.md); distinctness is judged per page (the same product may be
    found by two keywords)."""
    width = max((len(r) for p in pages for r in p.rows), default=0)
    for col in [(c,) for c in range(width)]:
        n = filled = distinct = visible = wordy = 0
        for p in pages:
            vals = [cell(r, col) for r in p.rows]
            keys = [key(v) for v in vals if key(v)]
            n += len(vals)
            filled += len(keys)
            distinct += len(set(keys))
            visible += sum(1 for k in keys if k in p.visible)
            wordy += sum(1 for v in vals if _WORD.search(v) and not _PRICE.search(v))
        if (
            n
            and filled >= 0.6 * n
            and distinct >= 0.6 * filled
            and visible >= 0.6 * filled
            and wordy >= 0.6 * filled
        ):
            return col
    return None


def _decode_csv(raw: bytes) -> str:
    """The CSVs are UTF-8 or Windows-1252 (smart quotes as 0x91–0x94)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def page_url(site: str, raw: bytes, pg: Mapping[str, str]) -> str:
    """The URL a page is given with ``--seed-url`` / ``--url``: the one it declares (canonical,
    ``og:url``, ``<base>``) when that names this very page, else the site's search URL for the
    page's keyword (the captures kept no address; the keyword is what was searched)."""
    from anchorpath.selectors.page_url import declared_url

    found = declared_url(raw, None)
    if found is not None and urlsplit(found.url).query + urlsplit(found.url).path.strip("/"):
        words = [w for w in re.split(r"\W+", pg["keyword"].lower()) if w]
        if words and all(w in found.url.lower() for w in words):
            return found.url
    host = site if site.count(".") >= 2 else f"www.{site}"
    return f"https://{host}/search?q={quote_plus(pg['keyword'])}"


def split_half(names: Iterable[str]) -> dict[str, str]:
    """The fixed tune/check split: site names sorted, alternately ``tune`` and ``check``
    (the 1st, 3rd, … are tune). Develop on tune only; report both."""
    return {n: ("tune" if i % 2 == 0 else "check") for i, n in enumerate(sorted(names))}


def load_lists(data: Path, only: Sequence[str] | None) -> list[ListSite]:
    index = json.loads((data / "index.json").read_text("utf-8"))
    sites = []
    for entry in index["sites"]:
        name = entry["site"]
        if only and name not in only:
            continue
        pages = []
        for pg in entry["pages"]:
            raw = (data / name / pg["page"]).read_bytes()
            text = raw.decode("utf-8", errors="replace")
            rows = list(
                csv.reader(io.StringIO(_decode_csv((data / name / pg["records"]).read_bytes())))
            )
            page = Page(pg["page"].removesuffix(".html"), page_url(name, raw, pg), text, rows)
            page.shown = visible_text(parse_html(text))
            page.visible = key(page.shown)
            pages.append(page)
        site = ListSite(name, pages)
        site.column = choose_column(pages)
        if site.column is not None:
            # Some sites' CSVs shift columns between pages (a badge column only on some): a
            # page where the site's column is mostly empty or repeated gets its own.
            for page in pages:
                keys = [k for k in (key(cell(r, site.column)) for r in page.rows) if k]
                usable = len(keys) >= 0.6 * len(page.rows) and len(set(keys)) >= 0.6 * len(keys)
                col = None if usable else choose_column([page])
                if col is not None and col != site.column:
                    site.columns[page.name] = col
        sites.append(site)
    return sites


def examples_for(site: ListSite, page: Page, n: int = N_EXAMPLES) -> list[str]:
    """The first ``n`` titles a person would copy: shown as such on the page (exact text,
    case included), intact (no U+FFFD; a ``?`` only where the page shows one too: elsewhere
    it is a letter the CSV lost)."""
    out: list[str] = []
    for t in site.titles(page):
        if "\ufffd" in t or display(t) not in page.shown or t in out:
            continue
        out.append(t)
        if len(out) == n:
            break
    return out


# -- anchorpath ----------------------------------------------------------------------------------


@dataclass
class Authored:
    selector_file: SelectorFile | None
    seconds: float
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    partial: bool = False  # written with exit 5 (some fields or examples left out)
    path: Path | None = None  # the selector file the CLI wrote


def _cli(args: Sequence[str]) -> tuple[int, str, str]:
    """Run ``anchorpath ARGS`` in this process (click's test runner: the same parsing,
    defaults and exit codes as the console script, without a new interpreter per call)."""
    from click.testing import CliRunner

    from anchorpath.cli import main as cli_main

    res = CliRunner().invoke(cli_main, list(args), catch_exceptions=True)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        return 99, res.stdout, f"{type(res.exception).__name__}: {res.exception}"
    return res.exit_code, res.stdout, res.stderr


def author(name: str, seeds: Sequence[Page], examples: Sequence[list[str]], work: Path) -> Authored:
    """``anchorpath author new-site NAME --seed pageN.html --seed-url URL … --examples ex.json
    --list-page --yes`` as a user runs it (no ``--key``: the CLI picks the default key); the
    file it writes (exit 0 or 5) is the result."""
    site_dir = work / name
    site_dir.mkdir(parents=True, exist_ok=True)
    args = ["author", "new-site", name]
    ex: dict[str, dict[str, list[str]]] = {}
    for p, e in zip(seeds, examples, strict=True):
        f = site_dir / f"{p.name}.html"
        f.write_text(p.html, "utf-8")
        args += ["--seed", str(f), "--seed-url", p.url]
        ex[str(f)] = {"title": list(e)}
    (site_dir / "examples.json").write_text(json.dumps(ex, ensure_ascii=False), "utf-8")
    args += ["--examples", str(site_dir / "examples.json"), "--list-page"]
    args += ["--yes"]
    args += ["--selectors", str(site_dir)]
    target = site_dir / f"{name}.json"
    target.unlink(missing_ok=True)
    t0 = time.perf_counter()
    code, _out, err = _cli(args)
    seconds = time.perf_counter() - t0
    err = err.replace(f"{site_dir}/", "")  # messages name seeds by file name
    problems = [ln.strip() for ln in err.splitlines() if "warning:" in ln]
    problems += [ln.strip() for ln in err.splitlines() if ln.startswith("partial:")]
    if code not in (0, 5) or not target.exists():
        last = [ln for ln in err.strip().splitlines() if ln.strip()]
        return Authored(None, seconds, f"exit {code}: {last[-1] if last else '?'}", problems)
    from anchorpath.selectors.load import load_selector_file

    return Authored(
        load_selector_file(target), seconds, None, problems, partial=code == 5, path=target
    )


def run_titles(authored: Authored, page_html: str, url: str) -> list[str]:
    """``anchorpath extract -s FILE --url URL page.html`` (JSON Lines), the titles."""
    if authored.path is None:
        return []
    page = authored.path.parent / "test.html"
    page.write_text(page_html, "utf-8")
    code, out, err = _cli(["extract", "-s", str(authored.path), "--url", url, str(page)])
    if code != 0:
        last = [ln for ln in err.strip().splitlines() if ln.strip()]
        print(f"  ! extract exit {code} on {url}: {last[-1] if last else ''}", file=sys.stderr)
    titles = []
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        v = json.loads(line).get("title")
        if isinstance(v, list):
            titles += [str(x) for x in v if x]
        elif v:
            titles.append(str(v))
    return titles


def _node_value(item: Any) -> str:
    if isinstance(item, etree._Element):
        return display("".join(item.itertext()))
    return display(str(item))


def absolute_paths(sf: SelectorFile | None, page: Page) -> list[str]:
    """Absolute positional paths of the title nodes our selector reaches on ``page``."""
    if sf is None:
        return []
    pt = next(iter(sf.page_types.values()))
    doc = parse_html(page.html)
    roots = doc.xpath(pt.record_root) if pt.record_root else [doc]
    spec = pt.fields["title"]
    paths: list[str] = []
    for root in roots if isinstance(roots, list) else []:
        if not isinstance(root, etree._Element):
            continue
        expr = spec.xpath
        m = re.match(r"^\s*normalize-space\((.*)\)\s*$", expr, re.DOTALL)
        inner = m.group(1) if m else expr
        try:
            res = root.xpath(inner)
        except etree.XPathError:
            continue
        for item in res if isinstance(res, list) else []:
            owner = item if isinstance(item, etree._Element) else item.getparent()
            if isinstance(owner, etree._Element):
                paths.append(str(owner.getroottree().getpath(owner)))
                break
    return paths


def run_absolute(paths: Sequence[str], page_html: str) -> list[str]:
    doc = parse_html(page_html)
    out = []
    for p in paths:
        try:
            res = doc.xpath(p)
        except etree.XPathError:
            continue
        for item in res if isinstance(res, list) else []:
            v = _node_value(item)
            if v:
                out.append(v)
    return out


# -- autoscraper ----------------------------------------------------------------------------------


def run_autoscraper(jobs: list[dict[str, Any]]) -> tuple[dict[str, Any], str | None]:
    if not AUTOSCRAPER_PY.exists():
        return {}, "bench/.venv-autoscraper missing: run bash bench/setup_autoscraper.sh"
    try:
        proc = subprocess.run(
            [str(AUTOSCRAPER_PY), str(WORKER)],
            input=json.dumps({"jobs": jobs}),
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {}, "autoscraper worker timed out"
    if proc.returncode != 0:
        return {}, f"autoscraper worker failed: {proc.stderr.strip()[-2000:]}"
    return dict(json.loads(proc.stdout)["results"]), None


def run_autoscraper_cached(
    jobs: list[dict[str, Any]], cache: Path
) -> tuple[dict[str, Any], str | None]:
    """``run_autoscraper``, its results kept in ``cache`` keyed by a digest of each job
    (autoscraper's output depends only on its input: re-runs while iterating reuse it)."""
    import hashlib

    cached: dict[str, Any] = json.loads(cache.read_text("utf-8")) if cache.exists() else {}
    digest = {
        j["id"]: hashlib.sha256(json.dumps(j, sort_keys=True).encode()).hexdigest() for j in jobs
    }
    todo = [j for j in jobs if digest[j["id"]] not in cached]
    err = None
    if todo:
        fresh, err = run_autoscraper(todo)
        for j in todo:
            if j["id"] in fresh:
                cached[digest[j["id"]]] = fresh[j["id"]]
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(cached), "utf-8")
    return {j["id"]: cached[digest[j["id"]]] for j in jobs if digest[j["id"]] in cached}, err


def autoscraper_job(
    job_id: str, train: Sequence[tuple[Page, list[str]]], test: Sequence[Page]
) -> dict[str, Any]:
    return {
        "id": job_id,
        "mode": "similar",
        "train": [{"url": p.url, "html": p.html, "wanted": {"title": ex}} for p, ex in train],
        "test": [{"key": p.name, "url": p.url, "html": p.html} for p in test],
    }


# -- the lists benchmark --------------------------------------------------------------------------


SYSTEMS = ("anchorpath", "autoscraper", "absolute")


#: Written under the table: the baseline (measured once with this script on the core of commit
#: 0c00f63, before issue 14) and what the remaining failures are.
def goal_lines(results: Sequence[SiteResult], halves: Mapping[str, str]) -> list[str]:
    """Issue 21's goals per half: title F1 >= 0.88, >= 95 % of sites authored, no site below
    autoscraper by more than 0.10 (named)."""
    out = []
    for half in ("tune", "check"):
        scored = [r for r in results if r.scores and halves.get(r.name) == half]
        if not scored:
            continue
        f1 = mean(r.scores["anchorpath"].f1 for r in scored)
        ok = sum(1 for r in scored if r.authored and r.authored.error is None)
        below = [
            r.name
            for r in scored
            if r.scores["autoscraper"].f1 - r.scores["anchorpath"].f1 > 0.10 + 1e-9
        ]
        out += [""] if out else []
        out.append(
            f"Goals (issue 21), {half} half: F1 >= 0.88 {'met' if f1 >= 0.88 else 'NOT met'} "
            f"({f1:.2f}); >= 95 % authored {'met' if ok >= 0.95 * len(scored) else 'NOT met'} "
            f"({ok}/{len(scored)} = {ok / len(scored):.0%}); no site below autoscraper by more "
            f"than 0.10 {'met' if not below else 'NOT met: ' + ', '.join(below)}."
        )
    return out


HALF_HEADER = [
    "| half | sites | anchorpath F1 | P | R | authored | below autoscraper by > 0.10 / at all "
    "| autoscraper F1 | absolute F1 |",
    "|---|---:|---:|---:|---:|---|---|---:|---:|",
]


NOTES = [
    "**Before** this round (main at 426bdde: the same script, command and split):",
    "",
    *HALF_HEADER,
    "| tune | 32 | **0.91** | 0.92 | 0.92 | 31/32 (1 partial) | 2 / 3 | 0.77 | 0.74 |",
    "| check | 31 | **0.90** | 0.89 | 0.93 | 29/31 (0 partial) | 1 / 1 | 0.85 | 0.78 |",
    "| all | 63 | **0.91** | 0.91 | 0.92 | 60/63 (1 partial) | 3 / 4 | 0.81 | 0.76 |",
    "",
    "What this round changed, each a general rule with a test on a generated page",
    "(`tests/authoring/pages/test_listing.py`, `tests/bench/test_lists_harness.py`), developed",
    "looking at the tune half only, its effect per half:",
    "",
    "1. Among a list field's XPaths that reproduce the examples, the one with a value on more of",
    "   the record rows the record root selects wins (then the usual ranking): a cover image's",
    "   `alt` that some rows lack loses to the link text every row has, and the default key",
    "   holds. Tune: gamespot.com exit 1 (no default key) -> 1.00. Check: no site changed.",
    "   (Test: `test_the_title_every_row_has_wins_over_a_cover_some_rows_lack`.)",
    "1b. When the first field's only fault as the default key is seed rows without a value (no",
    "   value shared), it is the key anyway and the file is partial (exit 5, named): a run",
    "   counts such rows as records without a key and, its crawl incomplete, withdraws nothing",
    "   (the gate stays closed). Tune and check: no site changed (after rule 1 none needs it).",
    "   (Tests: `tests/authoring/test_key.py::test_cli_yes_writes_a_key_with_gaps_as_partial`.)",
    "2. When no record root fits the example rows, an example record whose value sits at",
    "   another path inside its row than the other examples' (a sponsored row copied with the",
    "   results) is left out, the others' roots induced again, named, exit 5. Tune:",
    "   timesofindia.indiatimes.com, whose examples now include a sponsored story (rule 4),",
    "   partial at 0.81 instead of exit 1. Check: no site changed.",
    "   (Test: `test_a_sponsored_example_row_costs_that_example`.)",
    "3. Seeds of two templates: when no record root fits the example records of every seed,",
    "   the largest set of seeds one root fits is authored (the first seeds on a tie), the",
    "   seed left out named, exit 5. Tune: no site changed. Check: dailykos.com exit 1 ->",
    "   partial 0.92. (Test: `test_a_seed_of_another_template_costs_that_seed`: a table list",
    "   and a `ul` list.)",
    "4. Bench harness, the same for every site: a CSV title with `?` was always skipped as",
    "   holding a letter the CSV lost; it is now kept when the page shows it with the `?`",
    "   (a question). Tune: the examples of gamespot.com, psychologytoday.com, skysports.com",
    "   and timesofindia.indiatimes.com change, their anchorpath F1 does not (timesofindia",
    "   needed rule 2). Check: medlineplus.gov gets two examples on page 2 and scores 0.90",
    "   (autoscraper 0.90) instead of not running; the examples of four other sites change,",
    "   no score does. A whitespace-, case- and element-split-insensitive match of CSV titles",
    "   was tried first and dropped: it changed the examples of four working tune sites and",
    "   formed none for medlineplus.gov.",
    "",
    "Left as it is: delta.com (tune): its page 3 holds 17 results of one template, 10 in a",
    "first group and 6 more in a second group of the same container (`class='noDisplay'`,",
    "presumably the results' next page, shown by the page's script); the CSV lists 11.",
    "anchorpath extracts all 17 (F1 0.79), autoscraper 10 (0.95). The 6 are real records of",
    "the template, hidden only by a style sheet the saved page does not carry; no general rule",
    "tells them apart without rendering, so delta.com stays below autoscraper by > 0.10.",
    "",
    "**Before** issue 21 (main at 0461247, this script: the CLI path, the same URLs and split):",
    "",
    *HALF_HEADER,
    "| tune | 32 | **0.91** | 0.92 | 0.92 | 31/32 (0 partial) | 2 / 3 | 0.77 | 0.72 |",
    "| check | 31 | **0.87** | 0.85 | 0.89 | 29/31 (0 partial) | 2 / 2 | 0.85 | 0.78 |",
    "| all | 63 | **0.89** | 0.89 | 0.91 | 60/63 (0 partial) | 4 / 5 | 0.81 | 0.75 |",
    "",
    "The figures this section showed before issue 21 (0.92 mean F1, 61/63 authored, 3 sites",
    "below autoscraper) were measured on all 63 sites, the pages the code had been tuned on, by",
    "calling `author_page_type(strict=False)` directly (not what the CLI runs); they are",
    "replaced by the halves above.",
    "",
    "The script passes no `--key`, as issue 21 measures: the CLI picks the default key (issue",
    "20). A field is no key only when two *different* records share a value on one seed page;",
    "a row repeated identically is one record, as in the store; when no single field will do,",
    "the smallest combination of fields is taken (and printed); `--yes` fails only when not even",
    "all fields together identify every record.",
    "",
    "Issue 21's earlier rules (each with a test on a generated page): an example record that",
    "does not sit in a record like the others is left out and named (exit 5, partial) instead of",
    "failing the site; a field no XPath reproduces on every seed keeps the XPath right on most",
    "example values (and one seed whole), with a warning in the file (exit 5); a record root",
    "whose only extra rows are empty or hold an ad frame is narrowed to leave them out; the page",
    "type's URL pattern comes from the seed URLs' shape (query parameters in any order).",
]


@dataclass
class SiteResult:
    name: str
    column: Column | None
    authored: Authored | None
    scores: dict[str, Score]
    note: str = ""


def mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return statistics.fmean(xs) if xs else float("nan")


def run_lists(
    sites: Sequence[ListSite], *, use_autoscraper: bool, work: Path
) -> tuple[list[SiteResult], str | None]:
    jobs = []
    prepared = []
    for site in sites:
        if site.column is None or len(site.pages) < 3:
            prepared.append((site, None))
            continue
        seeds, test = site.pages[:2], site.pages[2]
        exs = [examples_for(site, p) for p in seeds]
        prepared.append((site, exs))
        if use_autoscraper:
            jobs.append(autoscraper_job(site.name, list(zip(seeds, exs, strict=True)), [test]))
    as_results: dict[str, Any] = {}
    as_error = None
    if use_autoscraper:
        t0 = time.perf_counter()
        as_results, as_error = run_autoscraper_cached(jobs, work / "autoscraper-cache.json")
        print(f"autoscraper: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    out = []
    for site, exs in prepared:
        if exs is None:
            out.append(SiteResult(site.name, site.column, None, {}, "no title column"))
            continue
        seeds, test = site.pages[:2], site.pages[2]
        gold = site.titles(test)
        if any(len(e) < 2 for e in exs):
            authored = Authored(None, 0.0, "fewer than two usable example titles on a seed")
        else:
            authored = author(site.name, seeds, exs, work)
        preds = {
            "anchorpath": run_titles(authored, test.html, test.url),
            "absolute": run_absolute(absolute_paths(authored.selector_file, seeds[0]), test.html),
            "autoscraper": [
                str(x)
                for x in as_results.get(site.name, {})
                .get("pages", {})
                .get(test.name, {})
                .get("title", [])
            ],
        }
        scores = {s: score(p, gold) for s, p in preds.items()}
        out.append(SiteResult(site.name, site.column, authored, scores))
        a = scores["anchorpath"]
        b = scores["autoscraper"]
        status = "ok" if authored.error is None else f"FAIL {authored.error[:110]}"
        status = "partial" if authored.partial else status
        print(
            f"{site.name:28s} ap F1 {a.f1:.2f} ({a.predicted}/{a.gold})  "
            f"as F1 {b.f1:.2f} ({b.predicted})  {authored.seconds:5.1f}s  {status}",
            file=sys.stderr,
        )
    return out, as_error


def half_rows(results: Sequence[SiteResult], halves: Mapping[str, str]) -> list[str]:
    """One table row per half (and both): anchorpath F1/P/R, sites authored (partial files
    count, their missing fields score 0), sites below autoscraper (by more than 0.10 / at
    all), autoscraper and absolute F1."""
    rows = []
    for half in ("tune", "check", "all"):
        scored = [r for r in results if r.scores and half in ("all", halves.get(r.name))]
        if not scored:
            continue
        ok = [r for r in scored if r.authored and r.authored.error is None]
        partial = sum(1 for r in ok if r.authored and r.authored.partial)
        ap = [r.scores["anchorpath"] for r in scored]
        gap = [r.scores["autoscraper"].f1 - r.scores["anchorpath"].f1 for r in scored]
        rows.append(
            f"| {half} | {len(scored)} | **{mean(x.f1 for x in ap):.2f}** | "
            f"{mean(x.precision for x in ap):.2f} | {mean(x.recall for x in ap):.2f} | "
            f"{len(ok)}/{len(scored)} ({partial} partial) | "
            f"{sum(1 for g in gap if g > 0.10 + 1e-9)} / {sum(1 for g in gap if g > 1e-9)} | "
            f"{mean(r.scores['autoscraper'].f1 for r in scored):.2f} | "
            f"{mean(r.scores['absolute'].f1 for r in scored):.2f} |"
        )
    return rows


def lists_section(
    results: Sequence[SiteResult],
    as_error: str | None,
    seconds: float,
    halves: Mapping[str, str],
) -> list[str]:
    scored = [r for r in results if r.scores]
    n = len(scored)
    lines = [
        "Task: author `title` from pages 1–2 of each site (three example titles each), extract page 3,",
        "compare with every record's title in `page3.records.csv` (63 real 2017 search-result templates).",
        "Through the CLI as a user runs it: `anchorpath author new-site SITE --seed page1.html",
        "--seed-url URL1 --seed page2.html --seed-url URL2 --examples ex.json --list-page --yes`",
        "(no `--key`: the CLI's default key, as issue 21 measures), then",
        "`anchorpath extract -s SITE.json --url URL3 page3.html` (click's runner, in process). A file",
        "written with exit 5 (partial) counts as authored. Sites are split by a fixed rule",
        "(`split_half`: names sorted, alternately tune and check); authoring was developed looking",
        "at the tune half only.",
        "",
        *HALF_HEADER,
        *half_rows(results, halves),
        "",
        *goal_lines(results, halves),
    ]
    if as_error:
        lines.append(f"\nautoscraper not measured: {as_error}")
    lines += [
        "",
        f"Sites scored: {n} (without a title column: {len(results) - n}); wall time {seconds:.0f} s",
        f"(2 cores shared with other jobs, load average {LOAD[0]:.1f} at the start, run under",
        "`nice`).",
        "",
        *NOTES,
        "",
        "<details><summary>Per site (F1, extracted/gold records)</summary>",
        "",
        "| site | half | anchorpath | autoscraper | absolute | authoring |",
        "|---|---|---|---|---|---|",
    ]
    for r in scored:
        a, b, c = (r.scores[s] for s in SYSTEMS)
        err = r.authored.error if r.authored and r.authored.error else "ok"
        if r.authored and r.authored.partial:
            why = next((p for p in r.authored.problems if p.startswith("partial:")), "")
            err = f"partial (exit 5){': ' + why.removeprefix('partial:').strip() if why else ''}"
        err = err.replace("|", "\\|")[:160]
        lines.append(
            f"| {r.name} | {halves.get(r.name, '')} | {a.f1:.2f} ({a.predicted}/{a.gold}) | "
            f"{b.f1:.2f} ({b.predicted}) | {c.f1:.2f} ({c.predicted}) | {err} |"
        )
    lines += ["", "</details>"]
    return lines


# -- thesis_wrapper survival ---------------------------------------------------------------------

#: Gold titles per capture: the reference XPath of ``xpaths.txt`` generalised to every record
#: (bench-side ground truth only; authoring never sees it).
THESIS_GOLD = {
    "amazon": "//*[starts-with(@id,'result_')]//h3/a"
    " | //*[starts-with(@id,'result_')]//div[contains(@class,'productTitle')]/a",
    "imdb": "//*[@id='main']//table//tr/td[3]/a[1]",
}


def run_thesis(root: Path, *, use_autoscraper: bool, work: Path) -> list[str]:
    pages_by_site: dict[str, list[Page]] = {}
    for f in sorted(root.glob("*.html")):
        site = f.name.split("-", 1)[0]
        text = f.read_bytes().decode("utf-8", errors="replace")
        url = f"https://www.{site}.com/capture/{f.stem}"
        pages_by_site.setdefault(site, []).append(Page(f.stem, url, text, []))
    jobs = []
    prepared = []
    for site, pages in sorted(pages_by_site.items()):
        gold_xp = THESIS_GOLD.get(site)
        if gold_xp is None:
            continue
        gold = {p.name: [_node_value(x) for x in parse_html(p.html).xpath(gold_xp)] for p in pages}
        exs = [[g for g in gold[p.name] if g][:N_EXAMPLES] for p in pages[:2]]
        prepared.append((site, pages, gold, exs))
        jobs.append(autoscraper_job(site, list(zip(pages[:2], exs, strict=True)), pages))
    as_results: dict[str, Any] = {}
    if use_autoscraper:
        as_results, err = run_autoscraper_cached(jobs, work / "autoscraper-cache.json")
        if err:
            print(err, file=sys.stderr)
    lines = [
        "Authored from the first two captures (three titles each), extracted on all ten; mean title",
        "F1 over the captures (gold: the reference XPath of `xpaths.txt` generalised to every record).",
        "",
        "| site | anchorpath | autoscraper | absolute | authoring |",
        "|---|---|---|---|---|",
    ]
    for site, pages, gold, exs in prepared:
        authored = author(site, pages[:2], exs, work)
        paths = absolute_paths(authored.selector_file, pages[0])
        f = {s: [] for s in SYSTEMS}  # type: dict[str, list[float]]
        for p in pages:
            f["anchorpath"].append(score(run_titles(authored, p.html, p.url), gold[p.name]).f1)
            f["absolute"].append(score(run_absolute(paths, p.html), gold[p.name]).f1)
            got = as_results.get(site, {}).get("pages", {}).get(p.name, {}).get("title", [])
            f["autoscraper"].append(score([str(x) for x in got], gold[p.name]).f1)
        err = authored.error or "ok"
        lines.append(
            f"| {site} ({len(pages)} captures) | {mean(f['anchorpath']):.2f} | "
            f"{mean(f['autoscraper']):.2f} | {mean(f['absolute']):.2f} | {err[:120]} |"
        )
        print(lines[-1], file=sys.stderr)
    return lines


# -- webevo survival -----------------------------------------------------------------------------

_LEAF_TAGS = ("h1", "h2", "h3", "h4", "p", "a", "span", "li", "td", "button", "label")


def _leaf_texts(doc: etree._Element) -> Counter[str]:
    """Visible texts of leaf-ish elements (no element children), 8–80 characters."""
    out: Counter[str] = Counter()
    for el in doc.iter(*_LEAF_TAGS):
        if len(el) or any(
            a.tag in ("script", "style", "noscript", "head") for a in el.iterancestors()
        ):
            continue
        t = display(el.text or "")
        if 8 <= len(t) <= 80 and sum(ch.isalpha() for ch in t) >= 5:
            out[t] += 1
    return out


def run_webevo(root: Path, n_fields: int = 5) -> list[str]:
    """Author up to ``n_fields`` single-value fields from a site's three daily captures (texts
    that appear once on each, once on the target page), then check them on the capture years
    later: a field survives when it still extracts its text where the later page still shows
    it once. Side by side with the absolute positional XPath of the same node."""
    from anchorpath.authoring.induce import assemble_site, author_page_type
    from anchorpath.authoring.reports import FieldRequest
    from anchorpath.authoring.seeds import seed_from_html

    lines = [
        "Fields authored from each site's three daily captures (texts shown once on every capture",
        "and on the target page), checked on the capture years later where the text is still",
        "shown once: fields that still extract it. anchorpath against absolute positional XPaths",
        "of the same nodes (taken on the first capture).",
        "",
        "| site | fields | still shown later | anchorpath survives | absolute survives |",
        "|---|---:|---:|---:|---:|",
    ]
    tot = [0, 0, 0, 0]
    for site_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted(site_dir.glob("*.html"))
        history = [f for f in files if "_history" in f.name and f.stat().st_size > 5000]
        years = sorted(f for f in files if "_history" not in f.name)
        if len(history) < 2 or len(years) < 2:
            continue
        target, later = years[0], years[-1]
        texts = [f.read_bytes().decode("utf-8", "replace") for f in (*history, target, later)]
        docs = [parse_html(t) for t in texts]
        counts = [_leaf_texts(d) for d in docs]
        values = [
            t for t, n in counts[0].items() if n == 1 and all(c.get(t) == 1 for c in counts[1:-1])
        ][:n_fields]
        if not values:
            continue
        seeds = [
            seed_from_html(t, f"https://{site_dir.name}.test/page", source=f.name)
            for t, f in zip(texts, history, strict=False)
        ]
        fields = [FieldRequest(f"v{i}") for i in range(len(values))]
        ex: dict[str, dict[str, str | list[str] | None]] = {
            s.source: {f"v{i}": v for i, v in enumerate(values)} for s in seeds
        }
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = author_page_type(seeds, fields, ex, AuthoringOptions(strict=False))
            sf = assemble_site(site_dir.name, [res])
            got = extract(sf, texts[-1], seeds[0].url)[0].values
        except Exception as exc:  # report and go on
            print(f"  ! webevo {site_dir.name}: {exc}", file=sys.stderr)
            continue
        still = [i for i, v in enumerate(values) if counts[-1].get(v) == 1]
        ok_ap = sum(1 for i in still if display(str(got.get(f"v{i}") or "")) == values[i])
        ok_abs = 0
        for i in still:
            node = next(
                (
                    e
                    for e in docs[0].iter(*_LEAF_TAGS)
                    if not len(e) and display(e.text or "") == values[i]
                ),
                None,
            )
            if node is None:
                continue
            found = docs[-1].xpath(node.getroottree().getpath(node))
            ok_abs += bool(found) and display("".join(found[0].itertext())) == values[i]
        row = [len(values), len(still), ok_ap, ok_abs]
        tot = [a + b for a, b in zip(tot, row, strict=True)]
        lines.append(f"| {site_dir.name} ({later.stem}) | " + " | ".join(map(str, row)) + " |")
        print(lines[-1], file=sys.stderr)
    lines.append("| **all** | " + " | ".join(f"**{x}**" for x in tot) + " |")
    return lines


# -- results file ----------------------------------------------------------------------------------


def write_results(sections: dict[str, list[str]]) -> None:
    text = RESULTS.read_text("utf-8") if RESULTS.exists() else "# Benchmark results\n"
    for title, body in sections.items():
        block = f"## {title}\n\n" + "\n".join(body).rstrip() + "\n"
        pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
        if pattern.search(text):
            text = pattern.sub(lambda _m, b=block: b + "\n", text, count=1)
        else:
            text = text.rstrip() + "\n\n" + block
    RESULTS.write_text(text.rstrip() + "\n", "utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--evolution", type=Path, default=DEFAULT_EVOLUTION)
    ap.add_argument("--sites", nargs="*", help="site names (default: all of index.json)")
    ap.add_argument("--no-autoscraper", action="store_true")
    ap.add_argument("--no-survival", action="store_true", help="skip thesis_wrapper and webevo")
    ap.add_argument("--only-survival", action="store_true", help="only thesis_wrapper and webevo")
    ap.add_argument("--write-results", action="store_true", help="update bench/RESULTS.md")
    ap.add_argument("--json", type=Path, help="also dump per-site scores here")
    ap.add_argument(
        "--half",
        choices=("tune", "check", "both"),
        default="both",
        help="which half of the fixed split to run (default both; iterate on tune only)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=HERE / "_work" / "lists",
        help="scratch directory for seeds, examples and selector files",
    )
    args = ap.parse_args(argv)
    if not (args.data / "index.json").exists():
        print(f"error: {args.data}/index.json not found (../shared absent?)", file=sys.stderr)
        return 2
    LOAD[0] = os.getloadavg()[0]
    t0 = time.perf_counter()
    sections: dict[str, list[str]] = {}
    results: list[SiteResult] = []
    if not args.only_survival:
        index = json.loads((args.data / "index.json").read_text("utf-8"))
        halves = split_half(e["site"] for e in index["sites"])
        only = [
            n for n in (args.sites or halves) if args.half == "both" or halves.get(n) == args.half
        ]
        sites = load_lists(args.data, only)
        results, as_error = run_lists(
            sites, use_autoscraper=not args.no_autoscraper, work=args.work
        )
        seconds = time.perf_counter() - t0
        sections["List pages (bench/lists.py)"] = lists_section(results, as_error, seconds, halves)
    thesis = args.evolution / "thesis_wrapper"
    if not args.no_survival and thesis.exists() and not args.sites:
        sections["List-page survival over time (bench/lists.py)"] = run_thesis(
            thesis, use_autoscraper=not args.no_autoscraper, work=args.work
        )
    webevo = args.evolution / "webevo"
    if not args.no_survival and webevo.exists() and not args.sites:
        sections["Field survival across redesigns, webevo (bench/lists.py)"] = run_webevo(webevo)
    for title, body in sections.items():
        print(f"\n## {title}\n")
        print("\n".join(body))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    r.name: {
                        "error": r.authored.error if r.authored else r.note,
                        **{s: vars(sc) for s, sc in r.scores.items()},
                    }
                    for r in results
                },
                indent=1,
            ),
            "utf-8",
        )
    if args.write_results:
        cmd = (
            "Command: `bash bench/setup_autoscraper.sh && nice .venv/bin/python bench/lists.py "
            "--write-results`"
        )
        for body in sections.values():
            body += ["", cmd]
        write_results(sections)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

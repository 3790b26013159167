"""Benchmark of the drift gate and the stop conditions on real redesigns (news sites, 2005 → 2017).

Run from the repository root::

    .venv/bin/python bench/drift_real.py [--data ../shared/data/evolution] [--json out.json] [-v]
        [--no-synthetic]

Data: ``../shared/data/evolution/news/`` (arstechnica, bbc, cnn, forbes; about 10 article pages
per site and year, 2005/2009/2013/2017, each with a gold headline and article text). Nothing is
copied: pages are read from there and served on loopback while the benchmark runs.

The procedure (one *case* per site and authoring year Y):

1. **Author** a selector file from 3 pages of Y, LLM-free (``anchorpath.authoring.author_site``,
   the library behind ``anchorpath author new-site --examples``): the field ``headline``
   (required) with the gold headline as example value and, where it grounds on all three seeds,
   ``body`` with a gold paragraph (the first paragraph of the gold text of at least 60
   characters that is the whole text of one element on the page). The example value is the
   page's own spelling of the gold text (the gold files have ``?`` for some typographic
   quotes); seeds are the first three pages of Y (by file name) where the headline is found.
2. **Baseline**: 3 runs of 2 pages each on 6 other pages of Y, through the real run pipeline
   (``anchorpath.runner.pipeline.run_site`` with ``--url`` pages, the polite fetcher over a
   loopback ``FaultServer``): robots.txt, the fetcher's refusal detection, extraction, the
   wall check after extraction, validation and the drift gate, exactly as in production (only
   the politeness delay is 0: one loopback origin). A baseline run that ends ``drift`` although
   its extraction was right is a same-year false alarm; it is accepted (``anchorpath accept``),
   as an operator would, so the baseline exists. A baseline run whose extraction broke is not.
3. **Judged runs**, each against the state right after the baseline (the store is copied, so
   judged runs do not feed each other):

   * *same year*: the one page of Y used neither for seeds nor for the baseline, alone (a
     ``--url`` run) and together with each of the 3 seed pages (2-page runs) — 4 runs per case;
   * *later years*: every later year's pages in runs of 3, 3 and 4 pages.

**Truth** (per judged run) comes from extraction on the same pages (``evaluate_page``, what
``anchorpath extract`` runs): a field is *wrong* on a page when its headline value is not the
gold headline (compared on alphanumerics, case-folded) or, when ``body`` was authored, its
body value is empty or not part of the gold text. A run is a *positive* (the selector broke:
drift expected) when some field is wrong on more than half of its pages, a *negative* when
every field is right on every page, and *partial* otherwise (one odd page among right ones:
reported, not scored — neither a miss nor a false alarm).
A ``blocked`` verdict is always wrong here (none of these pages is a wall); it counts as a
miss on a positive and a false alarm on a negative, and is listed separately.

Next to it (``--no-synthetic`` skips them) the suites of ``bench/drift.py`` are run in the same
process — webevo, webevo-authored, thesis, synthetic, monitor, demo — so both sets of figures
come from one run of one gate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lxml import etree

from anchorpath._config import FetchConfig, Settings
from anchorpath._errors import AnchorpathError
from anchorpath.authoring.induce import author_site
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.runner.accept import accept_run
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import save_selector_file
from anchorpath.selectors.model import Policy, SelectorFile
from anchorpath.selectors.normalize import clean_text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.simplefilter("ignore")  # ExtractionWarnings of real pages are not the point here

MIN_PARAGRAPH = 60


# ----------------------------------------------------------------------------------------------
# data


@dataclass(frozen=True)
class Page:
    site: str
    year: int
    name: str
    path: Path
    headline: str
    text: str  # the gold article text (without the headline)

    @property
    def route(self) -> str:
        return f"/{self.site}/article/{self.year}_{self.name}.html"


def load_pages(news: Path) -> dict[tuple[str, int], list[Page]]:
    index = json.loads((news / "index.json").read_text(encoding="utf-8"))
    out: dict[tuple[str, int], list[Page]] = {}
    for e in index["pages"]:
        gold = (news / e["gold"]).read_text(encoding="utf-8", errors="replace").splitlines()
        lines = [ln.strip() for ln in gold if ln.strip()]
        if not lines:
            continue
        name = Path(e["html"]).name.removesuffix(".html")
        page = Page(
            e["site"], int(e["year"]), name, news / e["html"], lines[0], "\n".join(lines[1:])
        )
        out.setdefault((page.site, page.year), []).append(page)
    for pages in out.values():
        pages.sort(key=lambda p: p.name)
    return out


def norm(text: Any) -> str:
    """Alphanumerics only, case-folded: the comparison of extracted values with gold text."""
    if text is None:
        return ""
    if isinstance(text, list):
        text = " ".join(str(t) for t in text)
    return "".join(ch for ch in str(text).casefold() if ch.isalnum())


def find_text(doc: etree._Element, gold: str) -> str | None:
    """The page's own spelling of ``gold``: the text of the deepest element whose whole text
    equals it on alphanumerics (None when no element does)."""
    want = norm(gold)
    if not want:
        return None
    best: str | None = None
    for el in doc.iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style", "title", "head"):
            continue
        text = clean_text(el.text_content())  # type: ignore[attr-defined]
        if len(text) > 3 * len(gold) + 40:
            continue
        if norm(text) == want:
            best = text  # later in document order = deeper for nested matches
            break
    return best


def gold_paragraph(doc: etree._Element, page: Page) -> str | None:
    for para in page.text.splitlines():
        if len(para) < MIN_PARAGRAPH:
            continue
        found = find_text(doc, para)
        if found:
            return found
    return None


# ----------------------------------------------------------------------------------------------
# authoring


def author_case(
    site: str, year: int, pages: Sequence[Page], base: str
) -> tuple[SelectorFile, list[Page]] | str:
    seeds, examples = [], {}
    bodies: dict[str, str | None] = {}
    for p in pages:
        body = p.path.read_bytes()
        doc = parse_html(body)
        headline = find_text(doc, p.headline)
        if headline is None:
            continue
        seed = seed_from_html(body, base + p.route, source=p.route)
        seeds.append((p, seed))
        examples[p.route] = {"headline": headline}
        bodies[p.route] = gold_paragraph(doc, p)
        if len(seeds) == 3:
            break
    if len(seeds) < 3:
        return f"{site}/{year}: the gold headline is the text of an element on < 3 pages"
    fields = [FieldRequest("headline", "string", required=True)]
    if all(bodies[s.source] for _, s in seeds):
        fields.append(FieldRequest("body", "string"))
        for _, s in seeds:
            examples[s.source]["body"] = bodies[s.source]
    try:
        sf = author_site(
            f"news-{site}-{year}",
            [s for _, s in seeds],
            fields,
            examples,
            AuthoringOptions(strict=False),
            key=("headline",),
        )
    except AnchorpathError as exc:
        return f"{site}/{year}: authoring failed: {exc}"
    return sf, [p for p, _ in seeds]


# ----------------------------------------------------------------------------------------------
# truth


def page_broken(sf: SelectorFile, page: Page) -> dict[str, str]:
    """The fields extraction got wrong on ``page``, each with why (empty: all right)."""
    compiled = compile_selectors(sf)
    pr = evaluate_page(compiled, parse_html(page.path.read_bytes()), "http://x" + page.route)
    values = pr.records[0].values if pr.records else {}
    why: dict[str, str] = {}
    got = values.get("headline")
    if norm(got) != norm(page.headline):
        why["headline"] = f"{str(got)[:60]!r} is not {page.headline[:60]!r}"
    if "body" in next(iter(sf.page_types.values())).fields:
        b = norm(values.get("body"))
        if not b or b not in norm(page.text):
            why["body"] = f"{str(values.get('body'))[:60]!r} is not article text"
    return why


def run_truth(sf: SelectorFile, pages: Sequence[Page]) -> tuple[bool | None, list[str]]:
    """True when some field is wrong on more than half of the run's pages (the selector broke),
    False when every field is right on every page, None in between (an odd page: partial)."""
    per_page = [page_broken(sf, p) for p in pages]
    lines = [
        f"{p.name}: {f} {w}" for p, b in zip(pages, per_page, strict=True) for f, w in b.items()
    ]
    if not lines:
        return False, lines
    fields = {f for b in per_page for f in b}
    if any(2 * sum(1 for b in per_page if f in b) > len(pages) for f in fields):
        return True, lines
    return None, lines


# ----------------------------------------------------------------------------------------------
# runs through the pipeline


@dataclass
class Outcome:
    site: str
    year: int
    kind: str  # baseline | same-year | later
    run: str
    pages: list[str]
    expected: bool | None  # None: partial (an odd page broke, not the selector)
    verdict: str
    score: float | None
    reason: str | None
    broken: list[str] = field(default_factory=list)
    fields: dict[str, list[str]] = field(default_factory=dict)

    @property
    def predicted(self) -> bool:
        return self.verdict != "ok"


def settings() -> Settings:
    fetch = replace(
        FetchConfig(),
        min_delay=0.0,
        delay_factor=0.0,
        allow_private_networks=True,
        max_attempts=1,
        conditional=False,
    )
    return replace(Settings(), fetch=fetch)


def run_pages(
    server: FaultServer, site_id: str, sel_dir: Path, state: Path, pages: Sequence[Page]
) -> Any:
    options = RunOptions(
        site_id,
        selectors_dir=sel_dir,
        state_dir=state,
        urls=tuple(server.url(p.route) for p in pages),
        settings=settings(),
    )
    return run_site(options)


def run_case(
    site: str, year: int, by_year: dict[int, list[Page]], server: FaultServer, work: Path
) -> tuple[list[Outcome], str | None]:
    pages = by_year[year]
    authored = author_case(site, year, pages, server.base_url)
    if isinstance(authored, str):
        return [], authored
    sf, seeds = authored
    sel_dir = work / "selectors"
    sel_dir.mkdir(parents=True, exist_ok=True)
    # loopback copies of pages the project may read: recorded as robots-based collection
    sf = replace(sf, policy=Policy(basis="robots"))
    saved = save_selector_file(sf, sel_dir / f"{sf.site.id}.json")
    others = [p for p in pages if p not in seeds]
    baseline_pairs = [others[0:2], others[2:4], others[4:6]]
    held_out = others[6:]
    state = work / "state"
    outs: list[Outcome] = []

    def judge(kind: str, label: str, run_pages_: Sequence[Page], state_dir: Path) -> Outcome:
        res = run_pages(server, saved.site.id, sel_dir, state_dir, run_pages_)
        expected, broken = run_truth(saved, run_pages_)
        drift = res.drift.to_dict() if res.drift is not None else {}
        o = Outcome(
            site,
            year,
            kind,
            label,
            [f"{p.year}/{p.name}" for p in run_pages_],
            expected,
            res.verdict,
            drift.get("score"),
            res.reason,
            broken,
            drift.get("fields", {}),
        )
        if res.verdict == "drift" and kind == "baseline" and expected is not True:
            # a false alarm on a baseline run: the operator glances and accepts it
            accept_run(saved.site.id, res.run_id, selectors_dir=sel_dir, state_dir=state_dir)
        return o

    for i, pair in enumerate(baseline_pairs):
        if pair:
            outs.append(judge("baseline", f"b{i + 1}", pair, state))
    runs: list[tuple[str, str, list[Page]]] = []
    for h in held_out:
        runs.append(("same-year", f"{year}:{h.name}", [h]))
        for s in seeds:
            runs.append(("same-year", f"{year}:{h.name}+{s.name}", [h, s]))
    for later in sorted(y for y in by_year if y > year):
        lp = by_year[later]
        for a, b in ((0, 3), (3, 6), (6, len(lp))):
            if lp[a:b]:
                runs.append(("later", f"{later}[{a}:{b}]", lp[a:b]))
    for kind, label, rp in runs:
        judged = work / f"judged-{len(outs)}"
        shutil.copytree(state, judged)
        outs.append(judge(kind, label, rp, judged))
        shutil.rmtree(judged, ignore_errors=True)
    return outs, None


# ----------------------------------------------------------------------------------------------
# metrics


def metrics(all_outs: Sequence[Outcome]) -> dict[str, Any]:
    outs = [o for o in all_outs if o.expected is not None]
    tp = sum(1 for o in outs if o.expected and o.verdict == "drift")
    fp = sum(1 for o in outs if not o.expected and o.predicted)
    fn = sum(1 for o in outs if o.expected and o.verdict != "drift")
    tn = sum(1 for o in outs if not o.expected and not o.predicted)
    return {
        "runs": len(outs),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "blocked": sum(1 for o in outs if o.verdict == "blocked"),
        "ok_but_broken": sum(1 for o in outs if o.expected and o.verdict == "ok"),
        "partial": len(all_outs) - len(outs),
        "partial_alarmed": sum(1 for o in all_outs if o.expected is None and o.predicted),
    }


def print_table(title: str, rows: list[tuple[str, dict[str, Any]]]) -> None:
    print(f"\n{title}\n")
    print(
        "| runs | judged | tp | fp | fn | tn | precision | recall | blocked "
        "| ok with wrong data | partial (alarmed) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, m in rows:
        print(
            f"| {name} | {m['runs']} | {m['tp']} | {m['fp']} | {m['fn']} | {m['tn']} "
            f"| {m['precision']:.3f} | {m['recall']:.3f} | {m['blocked']} | {m['ok_but_broken']} "
            f"| {m['partial']} ({m['partial_alarmed']}) |"
        )


def news(data: Path, verbose: bool) -> dict[str, Any]:
    by_site: dict[str, dict[int, list[Page]]] = {}
    for (site, year), pages in load_pages(data / "news").items():
        by_site.setdefault(site, {})[year] = pages
    outs: list[Outcome] = []
    problems: list[str] = []
    routes = {
        p.route: ok(p.path.read_bytes())
        for years in by_site.values()
        for pages in years.values()
        for p in pages
    }
    with FaultServer(dict(routes)) as server, tempfile.TemporaryDirectory() as tmp:
        for site in sorted(by_site):
            for year in sorted(by_site[site]):
                work = Path(tmp) / f"{site}-{year}"
                got, problem = run_case(site, year, by_site[site], server, work)
                outs += got
                if problem:
                    problems.append(problem)
                print(f"  {site}/{year}: {len(got)} runs", file=sys.stderr)
    for p in problems:
        print(f"skipped: {p}", file=sys.stderr)
    judged = [o for o in outs if o.kind != "baseline"]
    same = [o for o in outs if o.kind in ("same-year", "baseline")]
    rows = [
        ("later years", metrics([o for o in judged if o.kind == "later"])),
        ("same year, held out", metrics([o for o in judged if o.kind == "same-year"])),
        ("same year, baseline runs", metrics([o for o in outs if o.kind == "baseline"])),
        ("all judged", metrics(judged)),
    ]
    for site in sorted(by_site):
        rows.append((f"{site} (judged)", metrics([o for o in judged if o.site == site])))
    print_table("News redesigns (through the pipeline; a positive = extraction broke)", rows)
    false_alarms = sum(1 for o in same if o.expected is False and o.predicted)
    print(
        f"\nsame-year false alarms (baseline + held-out runs whose extraction was right): "
        f"{false_alarms} of {sum(1 for o in same if o.expected is False)}; same-year runs with "
        f"broken extraction: {sum(1 for o in same if o.expected)} (partial: "
        f"{sum(1 for o in same if o.expected is None)})"
    )
    if verbose:
        for o in outs:
            wrong = o.expected != (o.verdict == "drift") or o.verdict == "blocked"
            if wrong:
                kind = {True: "MISS ", False: "ALARM", None: "PART "}[o.expected]
                print(
                    f"{kind} {o.site}/{o.year} {o.kind} {o.run} verdict={o.verdict} "
                    f"score={o.score} reason={o.reason!s:.120} "
                    f"broken={o.broken[:1]} fields={json.dumps(o.fields)[:200]}"
                )
    return {
        "metrics": dict(rows),
        "same_year_false_alarms": false_alarms,
        "skipped": problems,
        "outcomes": [{**o.__dict__, "predicted": o.predicted} for o in outs],
    }


def synthetic(data: Path) -> dict[str, Any]:
    import drift as synth  # bench/drift.py

    cases: list[Any] = []
    if data.exists():
        webevo = list(synth.webevo_cases(data))
        cases += webevo
        authored, problems = synth.webevo_authored_cases(webevo)
        cases += authored
        for line in problems:
            print(line, file=sys.stderr)
        cases += list(synth.thesis_cases(data))
    cases += list(synth.synthetic_cases())
    cases += list(synth.monitor_cases())
    cases += list(synth.demo_cases())
    outs: list[Any] = []
    for case in cases:
        outs += synth.run_case(case)
    table = {}
    print("\nSuites of bench/drift.py (same process, same gate)\n")
    print("| suite | runs | tp | fp | fn | tn | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    suites = sorted({o.suite for o in outs})
    groups = [(s, [o for o in outs if o.suite == s]) for s in suites]
    groups.append(("all", outs))
    for name, sel in groups:
        m = synth.metrics(sel)
        table[name] = m
        print(
            f"| {name} | {m['runs']} | {m['tp']} | {m['fp']} | {m['fn']} | {m['tn']} "
            f"| {m['precision']:.3f} | {m['recall']:.3f} |"
        )
    return table


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "evolution")
    ap.add_argument("--json", type=Path, help="write every outcome to this JSON file")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every miss and alarm")
    ap.add_argument("--no-synthetic", action="store_true", help="skip bench/drift.py's suites")
    args = ap.parse_args(argv)
    if not (args.data / "news" / "index.json").exists():
        print(f"{args.data / 'news'}: not found (see ../shared/README.md)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    result = {"news": news(args.data, args.verbose)}
    if not args.no_synthetic:
        result["synthetic"] = synthetic(args.data)
    print(f"\nelapsed {time.perf_counter() - started:.1f}s")
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

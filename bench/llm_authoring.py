"""LLM-assisted authoring on SWDE: field names only, through an OpenAI-compatible server.

For each site in ``../shared/data/swde/pages/``: the first three pages are the seeds; the
attributes' names (and whether they are multi-valued, as ``bench/swde.py`` declares them) are
all authoring is told. Values come from a real HTTP server on 127.0.0.1
(``anchorpath.authoring.llm.testing``) that answers like a careful model from SWDE's ground truth
— but only with values visible in the prompt, so pruning that drops a value costs recall. The
client is the production one (``OpenAIClient`` + cache + ledger), every answer passes the
verbatim guard and perturbation grounding, and the example-value core does the rest.

Side by side, on the same held-out pages (same page-level metric as ``bench/swde.py``):

* **examples** — the ``--examples`` path (ground-truth values typed in), the reference;
* **llm** — field names only, default token budget (``[llm] token_budget``);
* **llm, no budget** — the whole pruned page in every prompt (does the budget cost F1?);
* **llm, noisy** — a model whose answers are wrong ``--noise`` of the time (half invented
  values, half case-changed copies): the guard must reject them and F1 must hold;
* **re-author** — the llm run again with the same cache: calls made, file identical?

Per site: F1 (top-1 and exact), LLM calls and tokens, HTML tokens of the seeds vs prompt tokens
(goal: prompts ≤ 10 % of the raw HTML's tokens with no F1 loss), agreement with the examples
path (held-out pages where both files extract the same values).

Run from the repo root:
    .venv/bin/python bench/llm_authoring.py --write-results
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import swde  # noqa: E402
from swde_metrics import FieldScore  # noqa: E402

from anchorpath._config import LLMConfig  # noqa: E402
from anchorpath.authoring.llm import CachedClient, Ledger, author_with_llm  # noqa: E402
from anchorpath.authoring.llm.openai_client import OpenAIClient  # noqa: E402
from anchorpath.authoring.llm.propose import value_request  # noqa: E402
from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel  # noqa: E402
from anchorpath.authoring.options import AuthoringOptions  # noqa: E402
from anchorpath.authoring.reports import FieldRequest  # noqa: E402
from anchorpath.authoring.seeds import seed_from_html  # noqa: E402
from anchorpath.prune import estimate_tokens  # noqa: E402
from anchorpath.selectors.load import dump_selector_file  # noqa: E402

HEADING = "## LLM-assisted authoring on SWDE (field names only)"
#: The CLI's [llm] defaults (token budget, perturbation rounds), used unless overridden.
CLI_LLM = LLMConfig()


@dataclass
class Variant:
    name: str
    f1: float = float("nan")
    f1_exact: float = float("nan")
    calls: int = 0
    hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    prompt_tokens: int = 0  # the value calls' prompts as sent (all seeds)
    markdown_tokens: int = 0  # the pruned Markdown in them
    raw_tokens: int = 0  # the seeds' HTML
    rejected: int = 0  # proposals the verbatim guard rejected
    leaked: int = 0  # accepted values that are not the truth (wrong values that got through)
    noisy: int = 0  # wrong answers the server gave on purpose
    failed: dict[str, str] = field(default_factory=dict)
    agree: float = float("nan")
    seconds: float = 0.0
    file: str = ""
    preds: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    error: str | None = None


def _score(site: swde.Site, sf: Any) -> tuple[float, float, dict[str, dict[str, list[str]]]]:
    table: dict[str, FieldScore] = {}
    preds = {}
    for page in site.tests:
        pred = swde.run_selectors(sf, page.html, page.url)
        preds[page.key] = pred
        for a in site.attributes:
            table.setdefault(a, FieldScore(a)).add(page.key, pred.get(a, []), page.gold.get(a, []))
    return swde.site_f1(table), swde.site_f1_exact(table), preds


def _truth(site: swde.Site) -> dict[str, dict[str, list[str]]]:
    return {p.url: {a: swde.example_values(p, a) for a in site.attributes} for p in site.seeds}


def run_llm(
    site: swde.Site,
    fields: Sequence[FieldRequest],
    name: str,
    *,
    budget: int,
    cache: Path,
    srv: FakeOpenAIServer,
    allow_constant: bool = False,
) -> Variant:
    """One LLM authoring of ``site``: ``author_with_llm``, the function behind ``anchorpath
    author new-site --field … --yes`` (page-type pattern induced from the seed URLs, the CLI's
    perturbation rounds; ``allow_constant`` False as under ``--yes`` unless asked)."""
    v = Variant(name)
    model = srv.answer
    seeds = [seed_from_html(p.html, p.url, source=p.key) for p in site.seeds]
    ledger = Ledger(cache / "ledger.jsonl", site=site.name)
    client = CachedClient(
        OpenAIClient(LLMConfig(base_url=srv.base_url, model="truth", timeout=30), env={}),
        cache / "llm",
        ledger,
    )
    noisy_before = model.noisy_answers if isinstance(model, TruthModel) else 0
    t0 = time.perf_counter()
    try:
        out = author_with_llm(
            site.name,
            seeds,
            client,
            fields,
            replace(CLI_LLM, token_budget=budget),
            AuthoringOptions(allow_constant=allow_constant),
        )
    except Exception as exc:  # report, keep benchmarking
        v.error = f"{type(exc).__name__}: {exc}"
        return v
    finally:
        client.close()
    v.seconds = time.perf_counter() - t0
    truth = _truth(site)
    for x in out.proposals.verdicts:
        if x.status == "accepted":
            url = next(p.url for p in site.seeds if p.key == x.seed)
            vals = x.value if isinstance(x.value, list) else [x.value]
            v.leaked += sum(1 for y in vals if y not in truth[url].get(x.field, []))
    v.noisy = (model.noisy_answers if isinstance(model, TruthModel) else 0) - noisy_before
    t = ledger.totals
    v.calls, v.hits, v.tokens_in, v.tokens_out = (
        t.calls,
        t.hits,
        t.prompt_tokens,
        t.completion_tokens,
    )
    # the whole value call as sent (system message, instructions, field list, page Markdown)
    v.prompt_tokens = sum(
        estimate_tokens(value_request(p, out.proposals.fields, p.prompt.markdown).rendered())
        for p in out.proposals.pages
    )
    v.markdown_tokens = sum(p.prompt.tokens for p in out.proposals.pages)
    v.raw_tokens = sum(p.prompt.tokens_raw for p in out.proposals.pages)
    v.rejected = len(out.proposals.rejected()) + sum(
        1 for x in out.proposals.verdicts if x.reasked and x.status == "accepted"
    )
    v.failed = out.failed
    v.f1, v.f1_exact, v.preds = _score(site, out.selector_file)
    v.file = dump_selector_file(out.selector_file) if out.selector_file else ""
    return v


def agreement(a: Variant, b: Variant, site: swde.Site) -> float:
    same = total = 0
    for page in site.tests:
        for attr in site.attributes:
            total += 1
            same += a.preds.get(page.key, {}).get(attr, []) == b.preds.get(page.key, {}).get(
                attr, []
            )
    return same / total if total else float("nan")


def fmt(x: float) -> str:
    return "—" if x != x else f"{x:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=swde.DEFAULT_DATA)
    ap.add_argument("--sites", nargs="*")
    ap.add_argument("--max-pages", type=int, default=60, help="held-out pages per site")
    ap.add_argument(
        "--budget",
        type=int,
        default=CLI_LLM.token_budget,
        help="token budget per seed (default: the CLI's [llm] token_budget)",
    )
    ap.add_argument(
        "--allow-constant",
        action="store_true",
        help="as `author new-site --allow-constant` (default: as under --yes, a field with "
        "the same value on every seed is left out)",
    )
    ap.add_argument("--noise", type=float, default=0.3, help="share of wrong answers (noisy run)")
    ap.add_argument("--more-noise", type=float, default=0.6, help="a second, noisier run (0: skip)")
    ap.add_argument("--write-results", action="store_true", help="update bench/RESULTS.md")
    args = ap.parse_args(argv)
    if not (args.data / "pages").is_dir():
        print(f"{args.data}: SWDE pages not found", file=sys.stderr)
        return 1
    names = args.sites or sorted(p.name for p in (args.data / "pages").iterdir() if p.is_dir())
    rows: list[tuple[swde.Site, dict[str, Variant]]] = []
    for n in names:
        site = swde.load_site(args.data, n, 3, args.max_pages)
        multi = {
            a: any(len(swde.example_values(p, a)) > 1 for p in site.seeds) for a in site.attributes
        }
        fields = [FieldRequest(a, "list" if multi[a] else "string") for a in site.attributes]
        res: dict[str, Variant] = {}
        authored = swde.author(site, multi=multi)
        ex = Variant("examples", seconds=authored.seconds, error=authored.error)
        ex.f1, ex.f1_exact, ex.preds = _score(site, authored.selector_file)
        res["examples"] = ex
        truth = _truth(site)
        with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(TruthModel(truth)) as srv:
            cache = Path(tmp)
            res["llm"] = run_llm(
                site,
                fields,
                "llm",
                budget=args.budget,
                cache=cache,
                srv=srv,
                allow_constant=args.allow_constant,
            )
            res["again"] = run_llm(
                site,
                fields,
                "again",
                budget=args.budget,
                cache=cache,
                srv=srv,
                allow_constant=args.allow_constant,
            )
            res["full"] = run_llm(
                site,
                fields,
                "full",
                budget=10**9,
                cache=cache / "f",
                srv=srv,
                allow_constant=args.allow_constant,
            )
        noisy = TruthModel(truth, noise=args.noise)
        with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(noisy) as srv:
            res["noisy"] = run_llm(
                site,
                fields,
                "noisy",
                budget=args.budget,
                cache=Path(tmp),
                srv=srv,
                allow_constant=args.allow_constant,
            )
        if args.more_noise > 0:
            noisier = TruthModel(truth, noise=args.more_noise)
            with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(noisier) as srv:
                res["noisier"] = run_llm(
                    site,
                    fields,
                    "noisier",
                    budget=args.budget,
                    cache=Path(tmp),
                    srv=srv,
                    allow_constant=args.allow_constant,
                )
        for k in ("llm", "full", "noisy", "noisier"):
            if k in res:
                res[k].agree = agreement(res[k], ex, site)
        rows.append((site, res))
        for k, v in res.items():
            extra = f" ERROR {v.error}" if v.error else ""
            print(
                f"{site.name:22} {k:9} F1 {fmt(v.f1)} exact {fmt(v.f1_exact)} calls {v.calls} "
                f"hits {v.hits} tokens {v.tokens_in}+{v.tokens_out} prompt/raw "
                f"{v.prompt_tokens}/{v.raw_tokens} (markdown {v.markdown_tokens}) rejected {v.rejected} noisy {v.noisy} leaked {v.leaked} "
                f"agree {fmt(v.agree)} failed {sorted(v.failed)}{extra}"
            )
    lines = report(rows, args)
    print("\n".join(lines))
    if args.write_results:
        cmd = ".venv/bin/python bench/llm_authoring.py --write-results"
        extra = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--write-results"]
        if extra:
            cmd += " " + " ".join(extra)
        swde.write_results({HEADING: [f"Command (from the repo root): `{cmd}`", "", *lines]})
        print(f"\nwrote {swde.RESULTS.relative_to(REPO)}")
    return 0


def report(
    rows: Sequence[tuple[swde.Site, Mapping[str, Variant]]], args: argparse.Namespace
) -> list[str]:
    out = [
        f"Seeds: the first 3 pages of each site; held-out: up to {args.max_pages} further pages; "
        f"token budget {args.budget} per seed; noisy model: {args.noise:.0%} of answers wrong "
        "(half invented, half case-changed; 'accepted' counts wrong values that passed the guard). "
        "Value-call prompt tokens: the whole request as sent for the three seeds (system message, "
        "instructions, field list, pruned Markdown); raw HTML tokens: the three seeds' HTML. Token counts are anchorpath's estimate "
        "(ASCII/4 + 1 per other character), the same for HTML and prompts. F1 = page-level "
        "top-1 / exact, mean over attributes (bench/swde_metrics.py).",
        "",
        "| site | examples F1 | llm F1 | agree w/ examples | calls | tokens in+out | value-call prompt / raw HTML tokens (Markdown only) | no-budget F1 (prompt tokens) | noisy F1 | noisy: wrong answers / rejected / accepted | re-author calls, same file |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    ratios = []
    for site, r in rows:
        ex, llm, full, noisy, again = r["examples"], r["llm"], r["full"], r["noisy"], r["again"]
        ratio = llm.prompt_tokens / llm.raw_tokens if llm.raw_tokens else float("nan")
        ratios.append(ratio)
        same = "yes" if again.file and again.file == llm.file else "no"
        out.append(
            f"| {site.name} | {fmt(ex.f1)} / {fmt(ex.f1_exact)} | {fmt(llm.f1)} / {fmt(llm.f1_exact)} "
            f"| {fmt(llm.agree)} | {llm.calls} | {llm.tokens_in}+{llm.tokens_out} "
            f"| {llm.prompt_tokens} / {llm.raw_tokens} ({ratio:.1%}; {llm.markdown_tokens / llm.raw_tokens:.1%}) "
            f"| {fmt(full.f1)} ({full.prompt_tokens}) | {fmt(noisy.f1)} / {fmt(noisy.f1_exact)} "
            f"| {noisy.noisy} / {noisy.rejected} / {noisy.leaked} | {again.calls}, {same} |"
        )
    mean = statistics.fmean
    out += [
        "",
        f"Means over {len(rows)} sites: examples F1 {fmt(mean(r['examples'].f1 for _, r in rows))}, "
        f"llm F1 {fmt(mean(r['llm'].f1 for _, r in rows))}, no-budget F1 "
        f"{fmt(mean(r['full'].f1 for _, r in rows))}, noisy F1 {fmt(mean(r['noisy'].f1 for _, r in rows))}; "
        f"prompt tokens / raw HTML tokens {mean(ratios):.1%}.",
    ]
    if all("noisier" in r for _, r in rows):
        out += [
            "",
            f"Noisier model ({args.more_noise:.0%} of answers wrong), same run: "
            + "; ".join(
                f"{s.name} F1 {fmt(r['noisier'].f1)}, wrong answers {r['noisier'].noisy} / "
                f"rejected {r['noisier'].rejected} / accepted {r['noisier'].leaked}"
                + (
                    f", not authored: {', '.join(r['noisier'].failed)}"
                    if r["noisier"].failed
                    else ""
                )
                for s, r in rows
            )
            + f"; mean F1 {fmt(mean(r['noisier'].f1 for _, r in rows))}.",
        ]
    out += [
        "",
        "Notes:",
        '- The "model" is the test server answering from SWDE\'s ground truth, so these figures '
        "measure the pipeline around a model (pruning, budget, contract, verbatim guard, "
        "perturbation grounding, cache, the core), not a real model's reading; a value it cannot "
        "see in the prompt it answers null, so budget losses show up as F1 losses.",
        "- Calls per site: 3 value calls + up to 3 perturbation calls (values found in several "
        "nodes, e.g. the title in <title> and <h1>) ≤ n_s + p·n_s + 1 = 7; the noisy run adds at "
        "most one guard re-ask per seed.",
        "- Prompts include a fixed ~280-token preamble per call (system message, instructions, "
        "field list); on small pages (job-nettemps, movie-iheartmovies: ~5-6k HTML tokens per "
        "page) that alone is ~5 % of the HTML, so the 10 % goal holds on average and for the "
        "large pages, not for every small one; the pruned Markdown itself stays under 10 % "
        "everywhere.",
    ]
    failed = [
        f"{s.name}: {', '.join(f'{k} ({v})' for k, v in r['llm'].failed.items())}"
        for s, r in rows
        if r["llm"].failed
    ]
    if failed:
        out.append("Fields the llm run could not author: " + "; ".join(failed) + ".")
    errors = [f"{s.name} {k}: {v.error}" for s, r in rows for k, v in r.items() if v.error]
    if errors:
        out.append("Errors: " + "; ".join(errors) + ".")
    return out


if __name__ == "__main__":
    raise SystemExit(main())

"""The gate's signals for what real redesigns did to news pages (one headline per page, few
pages per run): template text added to every value, a diverse field collapsing to boilerplate,
values that stop looking like the field, values that are the page's nav/footer text, and
young baselines compared with the selector file's examples."""

from __future__ import annotations

from typing import Any

from anchorpath.runner.drift.check import (
    baseline_window,
    check_drift,
    example_seed,
    seed_baseline,
)
from anchorpath.runner.drift.stats import RunStats, affix, field_stats
from anchorpath.selectors.evaluate import PageResult

from ..conftest import news_selector

HEADLINES = [
    "Agency clears backlog of drug applications",
    "Storm batters coast as thousands evacuate",
    "Chip maker unveils faster processor",
    "Court rules on access to public records",
    "Museum reopens after two-year restoration",
    "City council approves new transit budget",
    "Researchers map the genome of a rare fern",
    "Airline adds routes to three new cities",
    "Election turnout hits a twenty-year high",
    "Farmers brace for a late frost this week",
    "Bank raises rates for the second time",
    "New bridge opens to traffic after delays",
]

SELECTOR = news_selector(HEADLINES[9:12])
PT = SELECTOR.page_types["article"]


def run(values: list[str], template: list[bool] | None = None) -> RunStats:
    # one article page per value, its URL made from the value (another value: another page)
    pages = [
        PageResult(f"http://127.0.0.1/a/{v[:24].replace(' ', '-')}", "article", ()) for v in values
    ]
    recs: list[dict[str, Any]] = [{"headline": v} for v in values]
    marks = None if template is None else [{"headline"} if t else set() for t in template]
    return field_stats(recs, PT, pages, marks)


def baseline(template: bool = False) -> list[RunStats]:
    """Three runs of two articles each (a young site's first week)."""
    marks = [False, False] if template else None
    return [run(HEADLINES[i : i + 2], marks) for i in (0, 2, 4)]


def test_affix_is_the_shared_token_suffix_or_prefix() -> None:
    values = ["Bernie Behind Bars - Forbes.com", "The Blame Game Begins - Forbes.com", "Gates"]
    assert affix(values, suffix=True) == ("- Forbes.com", 2)
    assert affix(values, suffix=False) == ("", 0)
    # a shared first word is not template text; nor is one value equal to the affix
    assert affix(["The Ford Revolution", "The Best Sedans", "The Blame Game"], suffix=False) == (
        "",
        0,
    )


def test_suffix_added_to_every_value_is_drift_with_evidence() -> None:
    cur = run([h + " - Daily News" for h in HEADLINES[6:9]])
    result = check_drift(cur, baseline())
    assert result.verdict == "drift"
    line = result.fields["headline"][0]
    assert line == (
        "template text added: 3 of 3 distinct values now ends with '- Daily News' "
        "(no baseline run's values did, 3 run(s))"
    )


def test_affix_the_baseline_already_had_passes() -> None:
    base = [run([h + " - Daily News" for h in HEADLINES[i : i + 2]]) for i in (0, 2, 4)]
    assert check_drift(run([h + " - Daily News" for h in HEADLINES[6:9]]), base).verdict == "ok"


def test_boilerplate_on_every_record_is_drift() -> None:
    result = check_drift(run(["Share this on:"] * 3), baseline())
    assert result.verdict == "drift"
    assert result.fields["headline"][0] == (
        "boilerplate: one value repeated on 3 of 3 records (all 6 baseline values were different)"
    )


def test_repeated_value_in_a_field_that_always_repeats_passes() -> None:
    base = [run(["sports", "sports"]), run(["sports", "world"]), run(["world", "world"])]
    assert check_drift(run(["sports"] * 3), base).verdict == "ok"


def test_headline_turning_into_body_text_is_drift() -> None:
    body = ("The committee heard evidence on Tuesday that the rules would change. " * 19).strip()
    assert len(body) > 1200
    result = check_drift(run([body, body + " More.", body + " Again."]), baseline())
    assert result.verdict == "drift"
    assert any(line.startswith("mean length") for line in result.fields["headline"])


def test_character_class_profile_is_evidence() -> None:
    codes = ["AX-1402-17/B", "QZ-9911-02/C", "KL-0042-88/A"]
    result = check_drift(run(codes), baseline())
    assert result.verdict == "drift"
    assert any(
        line.startswith("character classes off the baseline") for line in result.fields["headline"]
    )


def test_values_that_became_nav_text_are_drift() -> None:
    result = check_drift(run(HEADLINES[6:9], [True, True, True]), baseline(template=True))
    assert result.verdict == "drift"
    assert any(
        line.startswith("share of values that are nav/header/footer text 1.00 vs baseline 0.00")
        for line in result.fields["headline"]
    )


def test_young_baseline_compares_with_the_examples() -> None:
    # One --url run of a one-word page: its length says nothing about the next page's.
    first = run(["Tech"])
    seeded = seed_baseline(SELECTOR, [])
    assert seeded[0].run_id == "examples" and seeded[0].seeded
    result = check_drift(run([HEADLINES[7]]), [*seeded, first])
    assert result.verdict == "ok", result.to_dict()
    assert any("compared with the selector file's fixtures or examples" in n for n in result.notes)
    # without examples, a young baseline's statistics are evidence only
    alone = check_drift(run([HEADLINES[7]]), [first])
    assert alone.verdict == "ok" and alone.score <= 2.0
    assert any("count as evidence only" in n for n in alone.notes)
    assert any("seen on another page" in n for n in alone.notes)
    # the same page again with other text: its one observation counts (zero churn)
    page = [PageResult("http://127.0.0.1/about", "article", ())]
    before = field_stats([{"headline": "Tech"}], PT, page)
    now = field_stats([{"headline": "Science and Health"}], PT, page)
    assert check_drift(now, [before]).verdict == "drift"


def test_the_example_seed_is_one_pseudo_run_of_the_examples() -> None:
    seed = example_seed(SELECTOR)
    assert seed.seeded and seed.run_id == "examples"
    article = seed.page_types["article"]
    assert article.records == 3 and article.fields["headline"].count == 3
    assert article.fields["headline"].filled == 3


def test_a_field_with_fewer_examples_is_not_read_as_empty_by_a_young_baseline() -> None:
    # A repaired file: the repaired field got five examples, the untouched one kept three.
    sf = news_selector(HEADLINES[9:12])
    data = sf.to_dict()
    data["page_types"]["article"]["fields"]["topic"] = {
        "xpath": "//p[@class='topic']",
        "examples": ["Health", "Weather", "Science", "Business", "Travel"],
    }
    sf = type(sf).from_dict(data)
    seed = seed_baseline(sf, [])
    fields = seed[0].page_types["article"].fields
    assert fields["headline"].empty_ratio == 0.0 and fields["topic"].empty_ratio == 0.0
    topics = ["Health", "Weather", "Science", "Business", "Travel", "Sport"]
    recs: list[dict[str, Any]] = [
        {"headline": h, "topic": topics[i % 6]} for i, h in enumerate(HEADLINES * 4)
    ]
    pages = [PageResult(f"http://127.0.0.1/a/{i}", "article", ()) for i in range(len(recs))]
    now = field_stats(recs, sf.page_types["article"], pages)
    result = check_drift(now, seed)
    assert result.verdict == "ok", result.to_dict()


def test_an_accepted_run_widens_a_young_baseline_and_never_narrows_it() -> None:
    """forbes/2005 of bench/drift_real.py in our own numbers: the examples are short, the live
    site's first accepted run is long (a person accepted the alarm), and the next run is short
    again. Accepting said "this too is normal", not "only this is normal"."""
    seed = seed_baseline(SELECTOR, [])  # three headlines of about 40 characters
    passed = run(HEADLINES[0:2])  # the first run, ok against the examples
    long_ones = [
        f"{h}: {HEADLINES[i - 1]}, {HEADLINES[i - 2]} and more news"
        for i, h in enumerate(HEADLINES[2:4], 2)
    ]
    accepted = run(long_ones)
    accepted.reviewed = True  # what `anchorpath accept` makes of the run (drift.gate.stats_of)
    assert check_drift(accepted, baseline_window(seed, [passed])).verdict == "drift"
    window = baseline_window(seed, [passed, accepted])
    shorter = run(["Markets slide on rate fears", "Tech shares rally again"])  # 25 vs 39
    assert check_drift(shorter, baseline_window(seed, [passed])).verdict == "ok"
    assert check_drift(shorter, [passed, accepted]).verdict == "drift"  # the accepted run alone
    short = check_drift(shorter, window)
    assert short.verdict == "ok", short.to_dict()
    assert any("an accept only widens the baseline" in n for n in short.notes)
    # issue 20: the next run like the accepted one is ok too, and in between as well
    like = [
        f"{h}: {HEADLINES[i + 1]}, {HEADLINES[i + 2]} and more news"
        for i, h in enumerate(HEADLINES[4:6], 4)
    ]
    assert check_drift(run(like), window).verdict == "ok"
    assert check_drift(run([f"{h} as expected" for h in HEADLINES[6:8]]), window).verdict == "ok"
    # and a field off both references still alarms
    body = ("The committee heard evidence on Tuesday that the rules would change. " * 19).strip()
    assert check_drift(run([body, body + " More."]), window).verdict == "drift"
    assert check_drift(run(["Share this on:"] * 3), window).verdict == "drift"

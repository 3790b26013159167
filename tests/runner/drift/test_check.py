"""The drift gate: normal churn passes; breaks are flagged with evidence naming the field."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from anchorpath.runner.drift.check import baseline_window, check_drift, seed_baseline
from anchorpath.runner.drift.stats import RunStats, field_stats, shape_signature
from anchorpath.selectors.evaluate import PageResult
from anchorpath.selectors.model import PageType, SelectorFile

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "omega",
    "kappa",
    "sigma",
    "tau",
    "rho",
    "zeta",
    "theta",
    "lambda",
]
NAMES = ["Hanmi Pharm", "Daewoong Ltd", "Yuhan Corp", "Chong Kun Dang", "Boryung", "GC Biopharma"]

PAGE_TYPE = PageType.from_dict(
    "list",
    {
        "match": "list",
        "record_root": "//tr",
        "fields": {
            "reg_no": {
                "xpath": "td[1]",
                "required": True,
                "pattern": r"^[A-Z]\d{3,4}-\d-ND$",
                "anchor": {"kind": "label-text", "value": "Reg. No."},
            },
            "title": {"xpath": "td[2]", "anchor": {"kind": "label-text", "value": "Ingredient"}},
            "applicant": {"xpath": "td[3]", "anchor": {"kind": "label-text", "value": "Applicant"}},
            "registered": {"xpath": "td[4]", "type": "date"},
            "price": {"xpath": "td[5]", "type": "number"},
            "status": {"xpath": "td[6]"},
        },
    },
)

SELECTOR = SelectorFile.from_dict(
    {
        "site": {"id": "synth", "name": "Synthetic"},
        "version": 1,
        "fetch": {"start_urls": ["http://127.0.0.1/list"]},
        "page_types": {"list": PAGE_TYPE.to_dict()},
        "key": ["reg_no"],
    }
)


def make_records(day: int, n: int = 40) -> list[dict[str, Any]]:
    rng = random.Random(day)
    out = []
    for i in range(n):
        words = rng.sample(WORDS, rng.randint(1, 4))
        out.append(
            {
                "reg_no": f"{rng.choice('SJ')}{rng.randint(100, 9999)}-{rng.randint(1, 9)}-ND",
                "title": " ".join(w.capitalize() for w in words) + f" {rng.randint(1, 500)}mg",
                "applicant": rng.choice(NAMES),
                "registered": f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-"
                f"{rng.randint(1, 28):02d}",
                "price": round(rng.uniform(1, 9000), 2) if rng.random() > 0.1 else None,
                "status": rng.choice(["active", "active", "active", "withdrawn", "pending"]),
            }
        )
        if i == 0:
            out[-1]["title"] = ""  # a blank here and there is normal
    return out


def pages(
    n_records: int,
    per_page: int = 10,
    *,
    roots: int | None = None,
    anchors: dict[str, bool] | None = None,
) -> list[PageResult]:
    present = anchors or {"reg_no": True, "title": True, "applicant": True}
    count = -(-n_records // per_page)
    return [
        PageResult(
            f"http://127.0.0.1/list?p={i}",
            "list",
            (),
            record_root_count=per_page if roots is None else roots,
            anchors_present=present,
        )
        for i in range(count)
    ]


def stats_for(records: list[dict[str, Any]], **kw: Any) -> RunStats:
    return field_stats(records, PAGE_TYPE, pages(len(records), **kw))


def baseline_days(days: range = range(1, 6)) -> list[RunStats]:
    seed = seed_baseline(SELECTOR, make_records(0, 12))
    return baseline_window(seed, [stats_for(make_records(day)) for day in days])


def test_shape_signature() -> None:
    assert shape_signature("수1402-1-ND") == "H9-9-A"
    assert shape_signature("2024-03-04") == "9-9-9"
    assert shape_signature("The Old Man and the Sea") == "Aa Aa Aa…"


def test_stats_round_trip() -> None:
    s = stats_for(make_records(1))
    again = RunStats.from_dict(s.to_dict())
    assert again == s


def test_normal_churn_passes_over_many_days() -> None:
    seed = seed_baseline(SELECTOR, make_records(0, 12))
    accepted: list[RunStats] = []
    for day in range(1, 21):
        stats = stats_for(make_records(day, n=random.Random(day).randint(25, 70)))
        result = check_drift(stats, baseline_window(seed, accepted))
        assert result.verdict == "ok", (day, result.to_dict())
        accepted.append(stats)
    base = baseline_window(seed, accepted)
    assert len(base) == 14
    assert not any(b.seeded for b in base)


def test_baseline_window_drops_the_seed_after_three_accepted_runs() -> None:
    seed = seed_baseline(SELECTOR, make_records(0, 8))
    runs = [stats_for(make_records(day)) for day in range(1, 17)]
    assert baseline_window(seed, runs[:2]) == [*seed, *runs[:2]]
    assert baseline_window(seed, runs[:3]) == runs[:3]
    assert baseline_window(seed, runs) == runs[-14:]


def test_first_run_against_fixture_seed_passes() -> None:
    base = seed_baseline(SELECTOR, make_records(0, 8))
    assert len(base) == 1 and base[0].seeded
    assert check_drift(stats_for(make_records(1)), base).verdict == "ok"


def test_no_baseline_is_ok_with_note() -> None:
    result = check_drift(stats_for(make_records(1)), [])
    assert result.verdict == "ok" and result.notes


def test_label_renamed_flags_field() -> None:
    recs = make_records(9)
    for r in recs:  # the header-anchored column XPath now falls back to the first column
        r["applicant"] = r["reg_no"]
    stats = stats_for(recs, anchors={"reg_no": True, "title": True, "applicant": False})
    result = check_drift(stats, baseline_days())
    assert result.verdict == "drift"
    assert "applicant" in result.fields
    assert any(e.startswith("anchor label missing") for e in result.fields["applicant"])
    assert "title" not in result.fields


def test_lost_label_with_healthy_values_weighs_but_does_not_decide() -> None:
    stats = stats_for(make_records(9), anchors={"reg_no": True, "title": True, "applicant": False})
    result = check_drift(stats, baseline_days())
    assert result.verdict == "ok"
    assert 2.0 <= result.field_scores["applicant"] < result.threshold


def test_lost_label_with_empty_values_is_drift() -> None:
    recs = make_records(9)
    for r in recs[:30]:
        r["applicant"] = None
    stats = stats_for(recs, anchors={"reg_no": True, "title": True, "applicant": False})
    result = check_drift(stats, baseline_days())
    assert any("anchor label" in e for e in result.fields["applicant"])


def test_field_empty_flags_field() -> None:
    recs = make_records(9)
    for r in recs:
        r["registered"] = None
    result = check_drift(stats_for(recs), baseline_days())
    assert result.verdict == "drift"
    assert list(result.fields) == ["registered"]
    assert any("null/empty ratio" in e for e in result.fields["registered"])


def test_record_root_collapse_flags_every_field() -> None:
    stats = field_stats([], PAGE_TYPE, pages(30, roots=0))
    result = check_drift(stats, baseline_days())
    assert result.verdict == "drift"
    assert set(result.fields) == set(PAGE_TYPE.fields)
    assert any("collapsed" in s for s in result.structural)
    assert any("collapsed" in e for e in result.fields["reg_no"])


def test_type_change_flags_field() -> None:
    recs = make_records(9)
    rng = random.Random(3)
    for r in recs:  # the "registered" column now holds applicant names (columns swapped)
        r["registered"] = rng.choice(NAMES)
    result = check_drift(stats_for(recs), baseline_days())
    assert result.verdict == "drift"
    assert "registered" in result.fields
    joined = " ".join(result.fields["registered"])
    assert "date-parse share" in joined or "shape conformance" in joined


def test_wrong_node_same_value_everywhere_flags_field() -> None:
    recs = make_records(9)
    for r in recs:  # XPath now hits a header cell: one constant value
        r["title"] = "Ingredient name"
    result = check_drift(stats_for(recs), baseline_days())
    assert "title" in result.fields


def test_pattern_break_flags_key_field() -> None:
    recs = make_records(9)
    for i, r in enumerate(recs):
        r["reg_no"] = f"Registration {i}"
    result = check_drift(stats_for(recs), baseline_days())
    assert "reg_no" in result.fields


def test_drift_result_to_dict() -> None:
    recs = make_records(9)
    for r in recs:
        r["price"] = None
    d = check_drift(stats_for(recs), baseline_days()).to_dict()
    assert d["verdict"] == "drift" and "price" in d["fields"] and d["score"] >= d["threshold"]


def test_categorical_swap_with_same_shape_flags_field() -> None:
    recs = make_records(9)
    rng = random.Random(5)
    for r in recs:  # the status column now holds other single lower-case words
        r["status"] = rng.choice(["korea", "china", "india", "japan"])
    result = check_drift(stats_for(recs), baseline_days())
    assert "status" in result.fields
    assert any("seen before" in e for e in result.fields["status"])


def test_news_board_dates_are_new_every_day_and_pass() -> None:
    # many records share "today's" date: a date column looks categorical but is not
    base: list[RunStats] = []
    for day in range(1, 12):
        recs = make_records(day)
        for i, r in enumerate(recs):
            r["registered"] = f"2024-05-{day:02d}" if i % 2 else f"2024-04-{(i % 5) + 1:02d}"
        stats = stats_for(recs)
        if base:
            assert check_drift(stats, base).verdict == "ok", day
        base = ([*base, stats])[-14:]


def _one_record_pages(value: str | None, day: int) -> RunStats:
    recs = [
        {
            "reg_no": f"S{1000 + day}-1-ND",
            "title": value,
            "applicant": "Yuhan Corp",
            "registered": "2024-01-02",
            "price": 10.0,
            "status": "active",
        }
    ]
    page = PageResult("http://127.0.0.1/list?p=1", "list", (), record_root_count=1)
    return field_stats(recs, PAGE_TYPE, [page])


def test_single_record_field_vanished_is_flagged() -> None:
    base: list[RunStats] = []
    for day in range(3):
        base = ([*base, _one_record_pages("Alpha Beta 5mg", day)])[-14:]
    assert check_drift(_one_record_pages("Alpha Beta 5mg", 4), base).verdict == "ok"
    result = check_drift(_one_record_pages(None, 5), base)
    assert result.verdict == "drift"
    assert any("vanished" in e for e in result.fields["title"])


def test_several_page_types_qualify_field_names() -> None:
    detail = PageType.from_dict(
        "detail", {"match": "detail", "fields": {"title": {"xpath": "//h1"}}}
    )
    sf = SelectorFile.from_dict(
        {
            "site": {"id": "synth", "name": "Synthetic"},
            "version": 1,
            "fetch": {"start_urls": ["http://127.0.0.1/list"]},
            "page_types": {"list": PAGE_TYPE.to_dict(), "detail": detail.to_dict()},
            "key": ["reg_no"],
        }
    )
    from anchorpath.runner.drift.stats import merge_stats

    def run(day: int, broken: bool = False) -> RunStats:
        recs = make_records(day)
        details = [{"title": None if broken else r["title"] or "x"} for r in recs[:10]]
        pages = [PageResult(f"http://127.0.0.1/detail?id={i}", "detail", ()) for i in range(10)]
        return merge_stats([stats_for(recs), field_stats(details, sf.page_types["detail"], pages)])

    seed = seed_baseline(sf, [*make_records(0, 10), {"_page_type": "detail", "title": "Aa"}])
    assert set(seed[0].page_types) == {"list", "detail"}
    base = baseline_window(seed, [run(day) for day in range(1, 4)])
    assert check_drift(run(5), base).verdict == "ok"
    result = check_drift(run(6, broken=True), base)
    assert list(result.fields) == ["detail.title"]


def test_seed_uses_runs_stored_in_the_selector_file() -> None:
    stored = stats_for(make_records(3)).to_dict()
    sf = SelectorFile.from_dict({**SELECTOR.to_dict(), "baseline": {"runs": [stored]}})
    base = seed_baseline(sf, make_records(0, 5))
    assert len(base) == 2 and base[0] == RunStats.from_dict(stored) and base[1].seeded


def test_page_type_without_pages_this_run_is_not_judged() -> None:
    base = baseline_days()
    stats = field_stats([], PAGE_TYPE, [])  # e.g. no detail page needed a visit today
    result = check_drift(stats, base)
    assert result.verdict == "ok" and any("not judged" in n for n in result.notes)


def test_evidence_lines_do_not_repeat_the_field_name() -> None:
    # reports print ``name: evidence``; the gate's lines must not carry the name again
    recs = make_records(9)
    for r in recs:
        r["registered"] = None
        r["applicant"] = r["reg_no"]
    stats = stats_for(recs, anchors={"reg_no": True, "title": True, "applicant": False})
    result = check_drift(stats, baseline_days())
    assert {"registered", "applicant"} <= set(result.fields)
    for name, lines in result.fields.items():
        assert lines and not any(line.startswith(f"{name}:") for line in lines), lines


def _page_text_run(texts: Mapping[str, str | None]) -> RunStats:
    """One record per run (a page monitored by URL): fields of template text."""
    page_type = PageType.from_dict(
        "page",
        {"match": ".", "fields": {k: {"xpath": f"//p[{i + 1}]"} for i, k in enumerate(texts)}},
    )
    page = PageResult("http://127.0.0.1/", "page", (), record_root_count=None)
    return field_stats([dict(texts)], page_type, [page])


def test_template_text_replaced_on_single_record_page_is_flagged() -> None:
    day = {"menu": "Find a Store", "tab": "Field Trip", "news": "Spring sale", "total": "64 items"}
    base = [_page_text_run(day) for _ in range(4)]
    # the same text passes
    assert check_drift(_page_text_run(day), base).verdict == "ok"
    # a count moving and a copy edit (version bump, punctuation) pass
    edited = {**day, "total": "67 items", "tab": "Field Trip!", "news": "Spring sale 2"}
    assert check_drift(_page_text_run(edited), base).verdict == "ok"
    # other text of the same length and shape in place of the template text: drift
    result = check_drift(_page_text_run({**day, "menu": "Apple Music"}), base)
    assert result.verdict == "drift" and list(result.fields) == ["menu"]
    assert result.fields["menu"][0].startswith("template text replaced")
    assert "4 baseline run(s)" in result.fields["menu"][0]


def test_template_text_evidence_grows_with_agreeing_runs() -> None:
    day = {"menu": "Find a Store"}
    changed = _page_text_run({"menu": "Apple Music"})
    one = check_drift(changed, [_page_text_run(day)])
    many = check_drift(changed, [_page_text_run(day) for _ in range(10)])
    assert one.verdict == "drift"  # the authoring seed alone: at the threshold
    assert many.field_scores["menu"] > one.field_scores["menu"]


def test_copy_edit_of_template_text_is_weighed_down() -> None:
    base = [_page_text_run({"menu": "Hello. Sign inAccount & Lists"}) for _ in range(4)]
    result = check_drift(_page_text_run({"menu": "Hello, Sign in Account & Lists"}), base)
    assert result.verdict == "ok"
    assert result.field_scores["menu"] < 1.0


def test_churning_single_record_field_is_not_template_text() -> None:
    # a field that already varied in the baseline is content: a new value is not evidence
    base = [_page_text_run({"headline": t}) for t in ("Rain in Seoul", "Sun in Busan", "Fog")]
    assert check_drift(_page_text_run({"headline": "Snow in Daegu"}), base).verdict == "ok"


def test_constant_dates_and_numbers_may_move() -> None:
    base = [_page_text_run({"updated": "2024-05-01", "count": "1,204"}) for _ in range(5)]
    result = check_drift(_page_text_run({"updated": "2024-05-09", "count": "1,260"}), base)
    assert result.verdict == "ok"


def test_constant_column_changed_on_a_few_rows_is_not_template_text() -> None:
    def run(day: int, odd: int = 0) -> RunStats:
        recs = make_records(day)
        for i, r in enumerate(recs):
            r["status"] = "pending" if i < odd else "active"
        return stats_for(recs)

    base = [run(d) for d in range(1, 5)]
    assert "status" not in check_drift(run(6, odd=3), base).fields


def test_baseline_stored_before_fingerprints_still_loads() -> None:
    stored = _page_text_run({"menu": "Find a Store"}).to_dict()
    for pt in stored["page_types"].values():
        for f in pt["fields"].values():
            del f["const_tokens"], f["const_grams"]
    base = [RunStats.from_dict(stored)]
    assert check_drift(_page_text_run({"menu": "Find a Store"}), base).verdict == "ok"
    assert check_drift(_page_text_run({"menu": "Apple Music"}), base).verdict == "drift"


def test_distinct_ratio_is_compared_at_equal_sample_size() -> None:
    # a seed of 6 fixture records has (nearly) all-distinct applicants; a run of 70 records
    # repeats them by nature: not a drift
    seed = seed_baseline(SELECTOR, make_records(0, 6))
    assert check_drift(stats_for(make_records(1, n=70)), seed).verdict == "ok"
    # ... while one value on every record still is
    recs = make_records(1, n=70)
    for r in recs:
        r["title"] = "Ingredient name"
    assert "title" in check_drift(stats_for(recs), seed).fields


def test_label_anchored_value_changing_under_its_label_is_content() -> None:
    # one record per run; "status" is declared as the value beside its "Status" label
    page_type = PageType.from_dict(
        "view",
        {
            "match": ".",
            "fields": {
                "status": {
                    "xpath": "//th[.='Status']/following-sibling::td[1]",
                    "anchor": {"kind": "label-text", "value": "Status"},
                }
            },
        },
    )

    def run(status: str, label_present: bool = True) -> RunStats:
        page = PageResult(
            "http://127.0.0.1/view", "view", (), anchors_present={"status": label_present}
        )
        return field_stats([{"status": status}], page_type, [page])

    base = [run("Registered") for _ in range(8)]
    result = check_drift(run("Suspended"), base)
    assert result.verdict == "ok"
    assert 0.0 < result.field_scores["status"] < result.threshold
    # the same change with the label gone is a lost anchor corroborated by the values
    gone = check_drift(run("Suspended", label_present=False), base)
    assert gone.verdict == "drift" and gone.field_scores["status"] >= 12.0

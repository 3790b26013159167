"""Discovery at authoring: what a site offers besides its HTML pages (robots.txt Sitemap
lines, /sitemap.xml, feeds the seeds link to, JSON-LD, JSON the pages load) is shown,
recommended and recorded in the new file's ``policy.discovery``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.discover import discover, recommend
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.cli import main
from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.model import Discovery

PAGE = """<html><head><title>{t}</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<script type="application/ld+json">{{"@context": "https://schema.org", "@type": "NewsArticle"}}</script>
</head><body><h1 id="headline">{t}</h1><p class="by">by {a}</p></body></html>"""
URLSET = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{u}</loc></url></urlset>'
)


def test_pages_alone_give_feeds_json_ld_and_the_json_they_loaded() -> None:
    page = seed_from_html(PAGE.format(t="A", a="B"), "https://example.org/a/1")
    from dataclasses import replace

    page = replace(page, loaded=("https://example.org/api/a/1.json",))
    found = discover([page], None)
    assert found.feeds == ("https://example.org/feed.xml",)
    assert found.json_ld == ("NewsArticle",) and found.api == ("https://example.org/api/a/1.json",)
    assert found.recommended and found.recommended.startswith("feed:")
    assert recommend(Discovery(api=("https://x/api",))) and recommend(Discovery()) is None


@pytest.mark.slow
def test_author_new_site_shows_and_records_what_the_site_offers(tmp_path: Path) -> None:
    titles = {1: ("Storm batters coast", "Kim"), 2: ("Bank raises rates", "Lee")}
    routes = {f"/a/{i}": ok(PAGE.format(t=t, a=a).encode()) for i, (t, a) in titles.items()}
    with FaultServer(routes) as server:
        server.route("/robots.txt", ok(f"Sitemap: {server.url('/news-sitemap.xml')}\n".encode(),
                                       "text/plain"))  # fmt: skip
        server.route("/sitemap.xml", ok(URLSET.format(u=server.url("/a/1")).encode(),
                                        "application/xml"))  # fmt: skip
        examples = {server.url(f"/a/{i}"): {"headline": t} for i, (t, _) in titles.items()}
        exf = tmp_path / "ex.json"
        exf.write_text(json.dumps(examples), encoding="utf-8")
        args = ["author", "new-site", "news", "--examples", str(exf), "--yes", "--render",
                "http", "--selectors", str(tmp_path / "sel")]  # fmt: skip
        for u in examples:
            args += ["--seed", u]
        res = CliRunner().invoke(
            main,
            args,
            env={
                "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
                "ANCHORPATH_FETCH__MIN_DELAY": "0",
                "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
                "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
            },
        )
        assert res.exit_code == 0, res.output
    assert "robots.txt Sitemap lines: " + server.url("/news-sitemap.xml") in res.stderr
    assert "recommended: feed: collect the records from " in res.stderr
    sf = load_selector_file(tmp_path / "sel" / "news.json")
    assert sf.policy is not None and sf.policy.basis == "robots"  # --yes: conservative
    found = sf.policy.discovery
    assert found is not None
    assert found.robots_sitemaps == (server.url("/news-sitemap.xml"),)
    assert found.sitemaps == (server.url("/sitemap.xml"),)
    assert found.feeds == (server.url("/feed.xml"),) and found.json_ld == ("NewsArticle",)

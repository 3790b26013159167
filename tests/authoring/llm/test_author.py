"""author_with_llm: a value rejected on one seed is unknown there, not absent."""

from __future__ import annotations

from typing import Any

from anchorpath.authoring.llm import FakeClient, author_with_llm
from anchorpath.authoring.llm.client import ChatRequest
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.selectors.evaluate import extract

from .conftest import Shop


def test_field_rejected_on_one_seed_is_verified_on_the_others(shop: Shop) -> None:
    seeds = [seed_from_html(html, url) for url, html in shop.pages]

    def answer(req: ChatRequest) -> Any:
        truth = shop.truth[
            next(
                u
                for u, _ in shop.pages
                if u in req.messages[-1].content or u in req.messages[1].content
            )
        ]
        out = {f: truth[f][0] for f in req.schema["properties"]}
        if req.seed == seeds[0].source and "isbn_13" in out:
            out["isbn_13"] = "978-0000000000"  # hallucinated, twice
        return out

    fields = [FieldRequest("title"), FieldRequest("isbn_13"), FieldRequest("publisher")]
    res = author_with_llm("shop", seeds, FakeClient(answer), fields, perturbation_rounds=0)
    assert not res.failed and res.selector_file is not None
    assert list(res.selector_file.page_types["detail"].fields) == ["title", "isbn_13", "publisher"]
    assert any("isbn_13" in p and "2 of 3 seeds" in p for p in res.result.problems)  # type: ignore[union-attr]
    url, html = shop.pages[0]
    assert extract(res.selector_file, html, url)[0].values["isbn_13"] == "9780316125581"
    prov = res.selector_file.provenance
    assert (prov.method, prov.model, prov.endpoint) == ("llm", "fake-model", "fake.invalid")

"""The token budget is met by relevance, not by cutting the end."""

from __future__ import annotations

from anchorpath.prune import estimate_tokens, fit_budget, prune_page, template_chunks
from anchorpath.prune.budget import field_terms
from anchorpath.prune.markdown import GAP


def _page(i: int) -> str:
    filler = "".join(
        f"<p>Story paragraph {k} about weather and gardens, " + "words " * 30 + "</p>"
        for k in range(20)
    )
    return (
        f"<html><head><title>Product {i}</title></head><body>{filler}"
        f"<p>Shipping is free.</p><dl><dt>Serial number</dt><dd>SN-{i}000</dd></dl></body></html>"
    )


def test_relevant_chunk_at_the_end_survives() -> None:
    pages = [prune_page(_page(i)) for i in range(3)]
    template = template_chunks(pages)
    assert "Shipping is free." in template
    fitted = fit_budget(pages[0], 200, field_terms(["serial_number"]), template)
    assert fitted.tokens <= 200 + 10 and fitted.tokens_full > 1000
    assert "SN-0000" in fitted.markdown and "Page title: Product 0" in fitted.markdown
    assert GAP in fitted.markdown
    assert fitted.occurrences("SN-0000") == 1


def test_under_budget_is_untouched() -> None:
    p = prune_page(_page(1))
    fitted = fit_budget(p, 100_000)
    assert fitted.markdown == p.markdown and fitted.kept == tuple(range(len(p.chunks)))


def test_perturbed_replaces_one_occurrence() -> None:
    p = prune_page("<html><body><h1>Ann</h1><p>by Ann</p></body></html>")
    fitted = fit_budget(p, 1000)
    out = fitted.perturbed([("Ann", 1, "Anm")])
    assert out.count("Ann") == 1 and "by Anm" in out


def test_token_estimate() -> None:
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("한국어") == 3

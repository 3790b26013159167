"""Crawl frontier rules: links that carry credentials are never queued nor stored in clear."""

from __future__ import annotations

from anchorpath.runner.crawl.frontier import Frontier
from anchorpath.selectors.load import parse_selector_data

SF = parse_selector_data(
    {
        "schema_version": 1,
        "policy": {"basis": "robots"},
        "site": {"id": "s", "name": "S"},
        "version": 1,
        "fetch": {"start_urls": ["https://shop.example/list"]},
        "page_types": {
            "detail": {"match": "/item/", "fields": {"sku": {"xpath": "//td", "type": "string"}}}
        },
        "key": ["sku"],
    }
)


def test_link_with_credentials_is_skipped_and_redacted() -> None:
    frontier = Frontier(SF)
    state = frontier.start()
    item = frontier.pop(state)
    assert item is not None
    frontier.finish(
        state,
        item,
        links=["https://bob:hunter2@shop.example/item/1", "https://shop.example/item/2"],
    )
    queued = [i.url for i in state.frontier]
    assert queued == ["https://shop.example/item/2"]
    assert state.skipped == [
        ("https://shop.example/item/1", "URL carries credentials (user:password@), never sent")
    ]
    assert "hunter2" not in repr(state.to_dict())


def test_start_url_with_credentials_makes_the_file_unrunnable() -> None:
    data = SF.to_dict()
    data["fetch"]["start_urls"] = ["https://bob:hunter2@shop.example/list"]
    reason = parse_selector_data(data).unrunnable_reason()
    assert reason is not None and "carries credentials" in reason and "hunter2" not in reason

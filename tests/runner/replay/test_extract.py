"""Extraction of archived pages on the executor: a task's progress added up."""

from __future__ import annotations

from typing import Any

from anchorpath.runner.replay.extract import Tally


def test_a_tasks_shard_and_checked_progress_is_added_up() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    tally = Tally(lambda kind, data: seen.append((kind, dict(data))))
    for pages in (71, 70):
        tally("shard", {"path": "x.warc.gz", "pages": pages})
        tally("checked", {"pages": pages})
    tally("other", {"n": 1})  # anything else goes at once
    assert seen == [("other", {"n": 1})]
    tally.flush()
    assert seen[1:] == [("shard", {"shards": 2, "pages": 141}), ("checked", {"runs": 2})]
    tally.flush()  # nothing new: nothing sent
    assert len(seen) == 3

"""Extraction of archived pages on the executor: a task's progress added up."""

from __future__ import annotations

from anchorpath.runner.progress import Note, ProgressEvent, RunsChecked, ShardsRead
from anchorpath.runner.replay.extract import Tally


def test_a_tasks_shard_and_checked_progress_is_added_up() -> None:
    seen: list[ProgressEvent] = []
    tally = Tally(seen.append)
    for pages in (71, 70):
        tally(ShardsRead(1, pages))
        tally(RunsChecked(1))
    tally(Note("other"))  # anything else goes at once
    assert seen == [Note("other")]
    tally.flush()
    assert seen[1:] == [ShardsRead(2, 141), RunsChecked(2)]
    tally.flush()  # nothing new: nothing sent
    assert len(seen) == 3

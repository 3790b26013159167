"""``anchorpath replay``: re-read the pages past runs archived, with another selector version.

After a repair, the weeks of pages already archived can be read again with the fixed selector
file instead of being fetched again (no network at all). The runs of a site between
``--since`` and ``--until`` are replayed in the order they ran: each run's WARC segments are
read, every page it processed is extracted with selector version N (default: the current
one), and validation, the drift gate and new/changed/withdrawn events are computed as if that
run had used version N: against the records the store held when it started, with the drift
baseline of the committed runs before it (the replayed ones included).

Which pages a run processed comes from its WARC, in the order they were archived: the last
complete response per URL; ``robots.txt``, redirects (the target is archived too) and failed
answers are not pages. A ``304 Not Modified`` carries no body: it is resolved to the body of the
latest earlier response of the same URL (same ``ETag``), from the replayed runs or, when
needed, from older runs of the site. A page that cannot be resolved makes the replayed run
incomplete (no ``withdrawn`` event), as a failed page makes a live run incomplete. A run whose
crawl was not complete is not complete replayed either.

Two destinations:

``scratch`` (default)
    A separate database, ``<state>/replays/<site>/<replay_id>/anchorpath.sqlite``, seeded with
    the records as of the first replayed run and the committed runs before it; the replayed
    runs are committed there, and ``report.json`` / ``report.md`` beside it say, run by run,
    what would change (verdicts, events) against what the store recorded.
``store``
    A backfill of the real store, in one transaction, after the same checks: every replayed
    run must pass the drift gate; runs the store already committed must replay to exactly the
    events they recorded (committed events are never rewritten); and a committed run newer
    than the replayed ones must not be contradicted (backfilled events would change the state
    its own events were computed against). Runs that the store had not committed (drift,
    empty-source) are committed with verdict ``replayed`` and selector version N.

Extraction is the heavy part: it runs on the executor (:mod:`anchorpath.runner.executor`:
local threads, or Dask workers reading the segments from the shared state directory), the WARC
segments (*shards*) of one run in one task, batched (large batches first, single runs last,
so that the workers finish together). A run whose pages are all in its own segments (no
``304`` that an earlier run's page stands for) is also validated and measured in that task, so
its records travel once; the others are checked in a second wave once the earlier pages are
known. The gate and every database write stay in this process, which gates and commits each
run as soon as it and the runs before it are back, while the workers go on (the drift
baseline is kept in memory as runs are committed), so that little is left once the last task
is back.

Where the parts live: ``plan.py`` (options, the window of runs, what the live runs left),
``extract.py`` (what runs on the executor: segments read and extracted, runs assembled and
checked), ``gate.py`` (the runs decided with :func:`anchorpath.runner.decide.decide`, the very
decision of ``anchorpath run``, and committed to the scratch database), ``backfill.py``
(``--into store``), ``report.py`` (what the replay did), ``run.py`` (:func:`replay_site`).
"""

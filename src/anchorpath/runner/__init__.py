"""The daily run (``anchorpath run``): no LLM, ever. :mod:`~anchorpath.runner.pipeline`
orchestrates the crawl, the drift gate, the store and the reports; ``accept`` commits a
quarantined run a person reviewed."""

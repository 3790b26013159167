"""Fetching, shared by the runner and authoring: the polite fetcher and its parts (robots.txt,
pacing, network safety, walls, the HTTP exchange, the Playwright browser page), the WARC
archive, the robots/validator cache, and the fakes tests use (:mod:`~anchorpath.fetch.mock`,
:mod:`~anchorpath.fetch.testing`)."""

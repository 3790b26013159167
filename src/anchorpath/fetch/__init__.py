"""Fetching, shared by the runner and authoring; neither imports the other.

The seam: :mod:`~anchorpath.fetch.protocol` (the ``Fetcher`` Protocol and the run's factory).
The real fetcher, :mod:`~anchorpath.fetch.polite`, is assembled from one module per concern:

    result.py          FetchResult, what one fetch returns
    events.py          fetch events and the typed per-run counters
    safety.py          URL and address checks, capped decoding, content types
    walls.py           login walls and CAPTCHAs behind a 2xx answer (a stop condition)
    pacing.py          per-origin delays: Crawl-delay, Retry-After, backoff; the origin gate
    origins.py         per-origin state (gate, robots.txt state, stop reason)
    http.py            the httpx client: streaming under the byte cap, address pinning
    exchange.py        one request through an origin's gate: safety, WARC, counters
    robots.py          robots.txt parsing and matching (RFC 9309), pure
    robots_policy.py   robots.txt per origin: fetch, status policy, cache, verdicts
    http_page.py       one page over HTTP: validators, status policy, retries, refusals
    browser.py         Playwright + Debian Chromium, third-party requests blocked
    browser_page.py    one page rendered in Chromium under the same rules
    warc.py            the WARC archive: writer and reader
    cache.py           the robots.txt / validator cache kept between runs

For tests: :mod:`~anchorpath.fetch.mock` (``MockFetcher``: routes to responses, archived to
WARC like the real one) and :mod:`~anchorpath.fetch.testing` (a loopback fault server).
"""

"""The crawl of one run: the frontier, URL normalisation and trap guards, one page step."""

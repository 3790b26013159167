"""Integrations of anchorpath into other frameworks' crawls (``anchorpath.integrations.scrapy``).

Each one is an entry point beside the CLI and the Python API: it uses the selectors to extract
and the runner to store, and nothing below imports it. Its framework is an optional extra
(``pip install 'anchorpath[scrapy]'``), imported only by its own module.
"""

"""Scoring candidate XPaths: synthetic DOM mutations (``mutate``), strict verification on the
seeds and under mutation (``verify``), and choosing one XPath plus fallbacks per field
(``choose``)."""

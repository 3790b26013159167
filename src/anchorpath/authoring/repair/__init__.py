"""Repairing a drifted selector file from its re-authoring bundle, without an LLM: pairing
failing pages with last good records (``match``), re-authoring and verifying the broken fields
(``check``), the result and its diff (``result``), and the steps in order (``pipeline``)."""

"""Keeping collected data no longer than allowed: ``anchorpath forget`` (a deletion request
for some records' keys) and ``anchorpath purge`` (the site's ``policy.retention_days``), both
audited in the append-only ``deletions`` table with keyed hashes, never the keys."""

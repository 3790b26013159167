"""Governance of collection: the permission basis a run reports, what it observed of the
site's robots.txt and terms, the ``stopped`` verdict and its lifting (``resume``), and the
report header that opens every run report."""

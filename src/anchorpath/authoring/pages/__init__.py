"""Authoring per template kind: detail pages, one record per page (``detail``); list pages,
several records per page (``listing``), with record-root induction and pagination next-link
detection (``records``)."""

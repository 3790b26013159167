"""Candidate XPaths for one field: grounding example values to DOM nodes (``ground``), the
anchor families (``attr_anchors``, ``label_anchors``, container ``scoping``), their shared
building blocks (``xpath_common``) and the generator that runs them all (``xpathgen``)."""

"""Authoring: turn seed pages and example values into a verified selector file.

Deterministic and LLM-free at its core (an LLM, when used, only supplies the example values).
The runner never imports this package. Where things live:

- ``induce``: the entry points (``author_page_type``, ``author_site``, ``assemble_site``);
- ``options``: :class:`~anchorpath.authoring.options.AuthoringOptions`, the settings every
  entry point takes (page shape, name, match, mutation seed and operators, strictness);
- ``newsite``: ``author new-site``'s decisions (seeds, fields, path, key, start URLs);
- ``reports``: field requests, example values and the reports authoring answers with;
- ``extend``: adding a page type to an existing site, with ``follow`` links between types;
- ``seeds``: loading seed pages; ``synth``: generated seed pages for tests and benchmarks;
- ``candidates/``: grounding values to nodes and generating anchor-first XPath candidates;
- ``scoring/``: mutations, verification and choosing one XPath per field;
- ``pages/``: detail pages, list pages, record roots and pagination;
- ``repair/``: repairing a drifted selector file from its bundle;
- ``llm/``: LLM-proposed fields and values (client, cache, ledger, verbatim guard, perturbation
  grounding) handed to the core as example values; ``prune/``: what the LLM sees of a page;
- ``seeds_render``: seed pages rendered by Chromium through ``anchorpath.fetch``.
"""

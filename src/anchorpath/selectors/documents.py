"""Pages that are not HTML, as trees the selectors' XPaths read: XML (an RSS or Atom feed, a
sitemap; namespaces dropped so that ``//item`` and ``//entry/link/@href`` read both) and JSON
(objects as elements named by their keys, arrays as repeated ``item`` elements, under a
``json`` root: what :func:`~anchorpath.selectors.model.pointer_xpath` addresses).

The XML parser resolves no entity and fetches nothing (no DTD, no network), and gives up on
documents nested deeper than lxml's default limit: a feed is data, never instructions."""

from __future__ import annotations

import json
from typing import Any

from lxml import etree

from anchorpath._errors import ExtractionError
from anchorpath.selectors.decode import decode_html
from anchorpath.selectors.model import json_name

__all__ = ["json_document", "parse_document", "xml_document"]

_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True
)


def xml_document(body: bytes) -> etree._Element:
    """Parse XML bytes (its own encoding declaration decides); namespaces dropped."""
    try:
        root = etree.fromstring(body.lstrip(), _PARSER)
    except etree.XMLSyntaxError as exc:
        raise ExtractionError(f"not XML: {exc}") from exc
    if root is None:
        raise ExtractionError("not XML: empty document")
    for el in root.iter():
        if isinstance(el.tag, str) and "}" in el.tag:
            el.tag = el.tag.split("}", 1)[1]
        for name in [str(a) for a in el.attrib if "}" in str(a)]:
            el.attrib[name.split("}", 1)[1]] = str(el.attrib.pop(name))
    etree.cleanup_namespaces(root)
    return root


def _build(parent: etree._Element | None, name: str, value: Any) -> etree._Element:
    el = etree.Element(name) if parent is None else etree.SubElement(parent, name)
    if isinstance(value, dict):
        for k, v in value.items():
            _build(el, json_name(str(k)), v)
    elif isinstance(value, list):
        for v in value:
            _build(el, "item", v)
    elif value is None:
        pass
    elif isinstance(value, bool):
        el.text = "true" if value else "false"
    else:
        el.text = str(value)
    return el


def json_document(body: bytes, charset: str | None = None) -> etree._Element:
    """A JSON page as a tree under a ``json`` element (see the module docstring)."""
    text = decode_html(body, charset)[0]
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ExtractionError(f"not JSON: {exc}") from exc
    return _build(None, "json", data)


def parse_document(body: bytes, charset: str | None, fmt: str) -> etree._Element:
    """The tree of a page of format ``fmt`` (``xml`` or ``json``)."""
    if fmt == "json":
        return json_document(body, charset)
    return xml_document(body)

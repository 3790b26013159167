"""The review session: a person sees what every field's XPath matches on every seed, fixes
what is wrong, and only then a selector file (with golden fixtures) is written.

The session is a library first (:class:`~anchorpath.authoring.session.core.Session`: state and
actions, no terminal), with the ``rich`` terminal front end in ``terminal.py``, highlighted
seed screenshots in ``screenshot.py``, golden fixtures in ``fixtures.py`` and what ``author
edit`` reopens an existing file on in ``reopen.py``. Values come from
any :class:`~anchorpath.authoring.session.sources.ValueSource`: example values typed by a
person today, an LLM's proposals where one is configured.
"""

from __future__ import annotations

from anchorpath.authoring.session.core import FieldRow, FieldState, Session, XPathCheck
from anchorpath.authoring.session.sources import ExampleValues, ValueSource

__all__ = [
    "ExampleValues",
    "FieldRow",
    "FieldState",
    "Session",
    "ValueSource",
    "XPathCheck",
]

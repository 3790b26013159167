"""anchorpath: describe a website's records once, collect them every day."""

from __future__ import annotations

from anchorpath._errors import AnchorpathError
from anchorpath._version import __version__

__all__ = ["AnchorpathError", "__version__"]

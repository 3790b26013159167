"""What a run's verdict can be, which verdicts hold committed data, and the drift gate's own
two-valued verdict. Verdicts are typed (``Literal``), never bare strings; text becomes a
:data:`Verdict` only at the database boundary (:func:`parse_verdict`)."""

from __future__ import annotations

from typing import Literal, get_args

from anchorpath._errors import StoreError

__all__ = ["COMMITTED", "VERDICTS", "DriftVerdict", "Verdict", "parse_verdict"]

#: ``ok`` committed; ``empty-source`` the site listed nothing; ``drift`` quarantined by the
#: gate; ``blocked`` the site refused; ``error`` nothing usable; ``accepted`` a drift run a
#: person accepted later (``anchorpath accept``); ``replayed`` a run committed later by
#: ``anchorpath replay --into store`` (its archived pages re-read with a newer selector file);
#: ``stopped`` the rules of collection changed or the site refused for good (robots.txt or
#: terms changed, 401/403 on a start URL, repeated 429, walls): the site is not run again
#: until a person runs ``anchorpath resume`` (see ``runner/policy``).
Verdict = Literal[
    "ok", "empty-source", "drift", "blocked", "error", "accepted", "replayed", "stopped"
]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
#: Verdicts whose records are in the store (and whose statistics form the drift baseline).
COMMITTED: tuple[Verdict, ...] = ("ok", "accepted", "replayed")
#: The drift gate's answer about one run's data.
DriftVerdict = Literal["ok", "drift"]


def parse_verdict(text: object, where: str) -> Verdict:
    """``text`` as a :data:`Verdict`, or a one-line :class:`StoreError` naming ``where``."""
    for verdict in VERDICTS:
        if text == verdict:
            return verdict
    raise StoreError(f"{where}: unknown verdict {text!r} (expected one of {', '.join(VERDICTS)})")

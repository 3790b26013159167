"""What a selector file's ``policy`` section lacks or gets wrong, worded for people.

The schema accepts a file without ``policy.basis`` (so that files written before the section
existed still load, diff and replay), but ``anchorpath run`` refuses to collect with one
(:meth:`~anchorpath.selectors.model.SelectorFile.missing_basis`); ``validate`` and ``check``
print these lines as warnings so the gap shows in review before a run is scheduled.
"""

from __future__ import annotations

from anchorpath.selectors.model import SelectorFile

__all__ = ["policy_warnings"]


def policy_warnings(sf: SelectorFile, where: str) -> list[str]:
    """``WHERE:/policy...: warning`` lines: no basis, unknown personal fields, personal
    fields kept without a retention period."""
    out: list[str] = []
    missing = sf.missing_basis()
    if missing:
        out.append(f"{where}:/policy/basis: {missing}; `anchorpath run` refuses this file")
    policy = sf.policy
    if policy is None:
        return out
    fields = {name for pt in sf.page_types.values() for name in pt.fields}
    for i, name in enumerate(policy.personal):
        if name not in fields:
            out.append(f"{where}:/policy/personal/{i}: {name!r} is not a field of any page type")
    if policy.personal and policy.retention_days is None:
        out.append(
            f"{where}:/policy/retention_days: fields hold personal data "
            f"({', '.join(policy.personal)}) but no retention period is set"
        )
    return out

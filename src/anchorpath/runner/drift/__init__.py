"""The drift gate: field statistics, feature tests, the check against the baseline, record
validation, and the gate one run passes through."""

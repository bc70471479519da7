"""spec §6 (docs/spec.md) split: 75 / 10 / 15 train / validation / test, grouped by reference text.

All records that share a reference string land in the same split, so no reference crosses splits.
The split is drawn with scikit-learn's ``GroupShuffleSplit`` (twice: test off the whole set, then
validation off the rest) from a recorded seed, so it is reproducible. The proportions apply to
*references* (groups): ``round(0.15 * G)`` references go to test and ``round(0.10 * G)`` to
validation (at least one each), the rest to train; with many references the record proportions
follow closely.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from sitar.errors import InputError, MissingDependencyError
from sitar.records import Record

__all__ = ["DEFAULT_FRACTIONS", "split_records"]

DEFAULT_FRACTIONS = (0.75, 0.10, 0.15)


def split_records(
    records: Sequence[Record],
    *,
    fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
    seed: int = 0,
) -> list[Record]:
    """Return ``records`` (same order) with ``split`` set to train, validation or test.

    Needs at least three distinct references. Existing ``split`` values are overwritten.
    """
    try:
        import numpy as np
        from sklearn.model_selection import GroupShuffleSplit
    except ImportError as e:
        raise MissingDependencyError("scikit-learn", "the grouped split", "annotate") from e
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise InputError(
            f"fractions must be three non-negative numbers summing to 1, got {fractions}"
        )
    train_f, val_f, test_f = fractions
    if not records:
        return []
    groups_of = sorted({r.reference for r in records})
    group_id = {ref: i for i, ref in enumerate(groups_of)}
    if len(groups_of) < 3:
        raise InputError(
            f"a grouped 3-way split needs at least 3 distinct references, got {len(groups_of)}"
        )
    n_groups = len(groups_of)
    # Whole numbers of references per split (GroupShuffleSplit takes an int as a group count),
    # at least one for every split with a non-zero fraction.
    n_test = max(1, round(test_f * n_groups)) if test_f > 0 else 0
    n_val = max(1, round(val_f * n_groups)) if val_f > 0 else 0
    if n_test + n_val >= n_groups and train_f > 0:
        raise InputError(
            f"{n_groups} distinct references are too few for the fractions {fractions}; "
            "add references or change the fractions"
        )
    groups = np.array([group_id[r.reference] for r in records])
    index = np.arange(len(records))
    split = np.array(["train"] * len(records), dtype=object)
    rest = index
    if n_test:
        gss = GroupShuffleSplit(n_splits=1, test_size=n_test, random_state=seed)
        keep, test = next(gss.split(index, groups=groups))
        split[test] = "test"
        rest = index[keep]
    if n_val:
        gss = GroupShuffleSplit(n_splits=1, test_size=n_val, random_state=seed + 1)
        _, val = next(gss.split(rest, groups=groups[rest]))
        split[rest[val]] = "validation"
    return [dataclasses.replace(r, split=str(s)) for r, s in zip(records, split, strict=True)]

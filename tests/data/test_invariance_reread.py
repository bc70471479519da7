"""Suite version 2 of the invariance suite is what its re-read and rule make (benchmarks/invariance/reread)."""

from __future__ import annotations

from annotation.sheets import reread_tier
from benchmarks.invariance import SUITE_VERSION, load_suite
from benchmarks.invariance.reread import apply


def test_committed_flips_and_slips_are_the_rule_applied_to_the_reads() -> None:
    flips, slips = apply.build()
    assert SUITE_VERSION == 2
    assert [i.id for i in load_suite("flips")] == [r["id"] for r in flips]
    assert [i.expected for i in load_suite("flips")] == [r["expected"] for r in flips]
    assert [(i.reference, i.hypothesis) for i in load_suite("slips")] == [
        (r["reference"], r["hypothesis"]) for r in slips
    ]
    assert apply.main(["--check"]) == 0


def test_the_disagreement_rule() -> None:
    final = reread_tier
    assert final("T2", "T0", "T0") == "T0"  # the readers agree: their tier
    assert final("T2", "T1", "T2") == "T2"  # they differ, one gave version 1's tier: kept
    assert final("T2", "T0", "T1") == "T1"  # neither did: the nearer to version 1's
    assert final("T0", "T1", "T2") == "T1"


def test_slips_are_recognizer_form_and_keep_a_gap() -> None:
    from sitar import segment
    from sitar.normalize import normalize_pair

    slips = load_suite("slips")
    assert len(slips) == 22 and all(i.expected == "T0" for i in slips)
    for item in slips:
        assert (
            item.reference == item.reference.lower() and item.hypothesis == item.hypothesis.lower()
        )
        pair = normalize_pair(item.reference, item.hypothesis)
        assert segment(*pair.texts).gaps, item.id

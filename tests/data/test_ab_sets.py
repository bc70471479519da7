"""The committed A/B sets: well-formed, every item with a reason, and the second judgement of the
public set holds exactly its items (same texts) with the agreement its README reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.asr.ab import judge_agreement, load_ab

AB = Path(__file__).resolve().parents[2] / "annotation" / "ab"


@pytest.mark.parametrize("name", ["sitar_ab_v1", "sitar_ab_val_v1", "sitar_ab_v1_j3"])
def test_sets_are_well_formed(name):
    items = load_ab(AB / f"{name}.jsonl")
    assert len({it["id"] for it in items}) == len(items)
    assert all(it["reason"].strip() and it["judge"].strip() for it in items)
    assert all(it["a"] != it["b"] for it in items)


def test_second_judgement_of_the_public_set_matches_its_readme():
    first = load_ab(AB / "sitar_ab_v1.jsonl")
    second = load_ab(AB / "sitar_ab_v1_j3.jsonl")
    assert {it["judge"] for it in second} == {second[0]["judge"]}
    assert second[0]["judge"].startswith("J3")
    report = judge_agreement(first, second)  # same ids and texts, else InputError
    assert report["confusion"] == [[108, 0, 3], [2, 109, 0], [1, 0, 17]]
    assert round(report["kappa"], 3) == 0.956
    readme = (AB / "README.md").read_text(encoding="utf-8")
    assert "κ 0.956" in readme and "[[108, 0, 3], [2, 109, 0], [1, 0, 17]]" in readme

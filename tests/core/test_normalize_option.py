"""The ``normalize`` scorer option (issue #28): one normaliser before CGD and the model, the
text as given with ``none``, spans told in the user's strings."""

from __future__ import annotations

import json

import pytest

from sitar import Scorer
from sitar.errors import InputError
from sitar.normalize import normalizer_id
from sitar.options import ScorerOptions

REFS = ["Meet me at Gate 7C.", "Wire $300 to Anna today.", "Please enable the alarm tonight."]
HYPS = [
    "meet me at gate seven c",
    "wire three thousand dollars to anna today",
    "please disable the alarm tonight",
]


@pytest.fixture(scope="module")
def scorers() -> dict[str, Scorer]:
    return {n: Scorer.load(normalize=n) for n in ("sitar", "none")} | {"default": Scorer.load()}


def test_none_is_the_default_checkpoints_form_and_changes_nothing(scorers) -> None:
    default, none = scorers["default"], scorers["none"]
    assert default.normalize == none.normalize == "none"
    assert default.signature == none.signature and "norm:" not in none.signature
    a = default.score(references=REFS, hypotheses=HYPS)
    b = none.score(references=REFS, hypotheses=HYPS)
    assert a.scores == b.scores and a.swer == b.swer


def test_sitar_compares_canonical_forms_and_signs_it(scorers) -> None:
    s = scorers["sitar"]
    assert s.signature.endswith(f"|norm:{normalizer_id()}")
    res = s.score(references=REFS, hypotheses=HYPS)
    assert res.identical == (True, False, False)  # a format difference makes no gap
    assert res.scores[0] == 0.0
    # the same as scoring the normalised texts with the text as given
    texts = [s.prepare([r], [h]) for r, h in zip(REFS, HYPS, strict=True)]
    plain = scorers["none"].score(
        references=[t[0][0] for t in texts], hypotheses=[t[1][0] for t in texts]
    )
    assert plain.scores == res.scores


@pytest.mark.parametrize("method", ["gaps", "rescore"])
def test_explanations_point_into_the_original_strings(scorers, method) -> None:
    from sitar.diagnostics import explain_many

    out = explain_many(scorers["sitar"], references=REFS, hypotheses=HYPS, method=method)
    assert out[0].gaps == ()
    (gap,) = out[1].gaps
    assert (gap.gap.ref_text, gap.gap.hyp_text) == ("$300", "three thousand dollars")
    assert REFS[1][slice(*gap.gap.ref_span)] == "$300"
    assert HYPS[1][slice(*gap.gap.hyp_span)] == "three thousand dollars"
    assert gap.hypothesis == "Wire three thousand dollars to Anna today."
    assert out[1].reference == REFS[1] and out[1].hypothesis == HYPS[1]


def test_bad_values_are_typed_errors() -> None:
    with pytest.raises(InputError, match="normalize must be one of"):
        ScorerOptions(normalize="whisper")
    with pytest.raises(InputError, match="normalize must be one of"):
        Scorer.load(normalize=True)  # type: ignore[arg-type]


def test_gaps_command_shows_what_was_compared(capsys) -> None:
    from sitar.cli import main

    args = ["gaps", "--ref", "Meet me at Gate 7C.", "--hyp", "meet me at gate seven d"]
    assert main([*args, "--normalize", "sitar", "--show-normalized", "--jsonl-out"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["normalized"] == ["meet me at gate 7 c", "meet me at gate 7 d"]
    (gap,) = record["gaps"]
    assert (gap["ref_text"], gap["hyp_text"]) == ("7C", "d")
    assert record["signature"].endswith(f"|norm:{normalizer_id()}")
    assert main([*args, "--show-normalized"]) == 2
    assert "--normalize sitar" in capsys.readouterr().err


def test_a_checkpoint_trained_on_version_3_is_scored_without_marks(tmp_path) -> None:
    """``scoring.normal_form: "3"`` (normal form without rule 11's marks): the pair as written and
    stripped of punctuation is one text, so it scores the same by construction; the signature
    names the version; a bad value is refused when the checkpoint is signed, as when it is read."""
    import shutil

    from sitar.checkpoint import CONFIG_FILE, resolve_checkpoint, write_integrity
    from sitar.diagnostics import explain_many
    from sitar.errors import CheckpointError

    dst = tmp_path / "ckpt"
    shutil.copytree(resolve_checkpoint(None), dst)
    path = dst / CONFIG_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("scoring", {}).update({"normalize": "sitar", "normal_form": "3"})
    path.write_text(json.dumps(data), encoding="utf-8")
    write_integrity(dst)
    v3 = Scorer.load(dst)
    assert (v3.normalize, v3.normal_form) == ("sitar", "3")
    assert v3.signature.endswith(f"|norm:{normalizer_id('3')}")
    written = ["Stop the truck. Leave the keys at the desk, then call Sam.", *REFS]
    hyps = ["stop the truck leave the key at the desk then call pam", *HYPS]
    stripped = [" ".join(w.strip(".,").lower() for w in r.split()) for r in written]
    assert v3.prepare(written[:1], hyps[:1]) == (
        ["stop the truck leave the keys at the desk then call sam"],
        ["stop the truck leave the key at the desk then call pam"],
    )
    a = v3.score(references=written, hypotheses=hyps)
    b = v3.score(references=stripped, hypotheses=hyps)
    assert a.scores == b.scores
    # Version 2 (the default checkpoint with normalize="sitar") keeps the full stop's mark.
    v2 = Scorer.load(normalize="sitar")
    assert v2.normal_form == "2" and v2.prepare(written[:1], hyps[:1])[0] == [
        "stop the truck. leave the keys at the desk, then call sam"
    ]
    # Explanations still point into the user's strings.
    (out,) = explain_many(v3, references=written[:1], hypotheses=hyps[:1], method="gaps")
    assert [written[0][slice(*g.gap.ref_span)] for g in out.gaps] == [
        "keys at the desk, then call Sam"
    ]
    data["scoring"]["normal_form"] = 3
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="scoring.normal_form"):
        write_integrity(dst)


def test_gaps_command_compares_in_the_normal_form_asked_for(capsys) -> None:
    from sitar.cli import main

    args = ["gaps", "--ref", "Stop. Then go left.", "--hyp", "stop then go right", "--jsonl-out"]
    assert main([*args, "--normalize", "sitar", "--show-normalized", "--normal-form", "3"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["normalized"] == ["stop then go left", "stop then go right"]
    assert record["signature"].endswith(f"|norm:{normalizer_id('3')}")
    assert main([*args, "--normalize", "sitar", "--show-normalized"]) == 0
    assert json.loads(capsys.readouterr().out)["normalized"][0] == "stop. then go left"
    with pytest.raises(SystemExit) as exit_info:  # a usage error, as for any bad choice
        main([*args, "--normal-form", "5"])
    assert exit_info.value.code == 2

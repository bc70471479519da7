"""ScorerOptions is the one home of the scorer's options: every entry point reaches every field.

Pins issue #29 item 1: `sitar score`, `sitar serve`, `sitar score --engine ray`, the training
evaluators and the challenge evaluator all build a ScorerOptions with every field from their
command line, and the keyword form of Scorer.load builds the same options."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest
from conftest import TINY

from sitar.errors import InputError, SitarError
from sitar.options import ScorerOptions, options_from_args
from sitar.scorer import Scorer

FIELDS = [f.name for f in dataclasses.fields(ScorerOptions)]

# One non-default command-line value per field, and the option value it must become.
VALUES = {
    "checkpoint": ("some/folder", "some/folder"),
    "revision": ("v1", "v1"),
    "backend": ("torch", "torch"),
    "variant": (None, None),  # ONNX only; checked with --backend onnx below
    "device": ("cpu", "cpu"),
    "threads": ("3", 3),
    "analyzer": ("lexicon", "lexicon"),
    "head": ("pair", "pair"),
    "tie_breaker": ("2", 2),
    "decode": ("median", "median"),
    "normalize": ("sitar", "sitar"),
    "allow_unverified": (True, True),  # a flag: given without a value
}
ONNX_VALUES = {**VALUES, "backend": ("onnx", "onnx"), "variant": ("fp32", "fp32")}
ONNX_VALUES.pop("device")


def _argv(values: dict[str, tuple[object, object]]) -> list[str]:
    argv: list[str] = []
    for name, (text, _) in values.items():
        if text is True:
            argv.append(f"--{name.replace('_', '-')}")
        elif text is not None:
            argv += [f"--{name.replace('_', '-')}", str(text)]
    return argv


def _expected(values: dict[str, tuple[object, object]]) -> ScorerOptions:
    return ScorerOptions(**{name: value for name, (_, value) in values.items()})


def test_the_test_covers_every_field():
    # A new ScorerOptions field must be added to VALUES, so that this file checks it everywhere.
    assert set(VALUES) == set(FIELDS)


@pytest.mark.parametrize("values", [VALUES, ONNX_VALUES], ids=["torch", "onnx"])
@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("score", []),
        ("explain", []),
        ("compare", ["--ref-file", "r.txt"]),
        ("report", ["--ref-file", "r.txt", "-o", "r.html"]),
        ("serve", []),
        ("score", ["--engine", "ray"]),
    ],
)
def test_every_field_is_reachable_from_every_sitar_command(command, extra, values):
    from sitar.cli import build_parser

    args = build_parser().parse_args([command, *_argv(values), *extra])
    assert options_from_args(args) == _expected(values)


def test_serve_config_embeds_the_options_and_carries_them_as_json():
    from sitar.cli import build_parser
    from sitar.commands.serve import build_config
    from sitar.serve.config import ServeConfig

    config = build_config(build_parser().parse_args(["serve", *_argv(VALUES)]))
    assert config.scorer == _expected(VALUES)
    assert ServeConfig.from_json(config.to_json()) == config
    with pytest.raises(InputError, match="unknown scorer option"):
        ServeConfig.from_json(json.dumps({"scorer": {"normalise": True}}))


def test_ray_path_builds_its_options_from_the_same_arguments(monkeypatch, tmp_path):
    """`sitar score --engine ray` hands options_from_args(...) to score_dataset, with the actor
    thread count in place of --threads."""
    pytest.importorskip("ray")
    import sitar.commands.score_ray as score_ray
    import sitar.integrations.ray as ray_mod
    from sitar.cli import build_parser

    seen = {}

    class Stop(SitarError):
        pass

    def fake_score_dataset(ds, options, **kwargs):
        seen["options"] = options
        raise Stop("stop")

    class FakeRay:
        data = ray_mod._ray().data

        @staticmethod
        def is_initialized():
            return True

    monkeypatch.setattr(ray_mod, "score_dataset", fake_score_dataset)
    monkeypatch.setattr(ray_mod, "_ray", lambda: FakeRay)
    monkeypatch.setattr(ray_mod, "dataset_from_pairs", lambda *a, **k: None)
    # the driver's pre-start checks load the checkpoint and check pairs and address: not this test's
    import sitar.commands._model as model_mod

    monkeypatch.setattr(model_mod, "load_scorer", lambda args: None)
    monkeypatch.setattr(ray_mod, "check_pairs", lambda *a, **k: None)
    monkeypatch.setattr(ray_mod, "check_address", lambda *a, **k: None)
    argv = ["score", "--ref", "a b", "--hyp", "a c", *_argv(ONNX_VALUES), "--engine", "ray"]
    args = build_parser().parse_args([*argv, "--output-dir", str(tmp_path / "out")])
    with pytest.raises(Stop):
        score_ray.run_ray(args)
    assert seen["options"] == _expected(ONNX_VALUES)


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("training.evaluate_checkpoint", ["--no-devset"]),
        ("training.evaluate_ab", ["--set", "x.jsonl", "--baselines", ""]),
        ("annotation.challenge.evaluate", []),
    ],
)
def test_the_evaluators_take_every_field(module, extra, monkeypatch, capsys):
    import importlib

    seen = {}

    def capture(cls, options):
        seen["options"] = options
        raise InputError("captured")

    monkeypatch.setattr(Scorer, "from_options", classmethod(capture))
    if module == "training.evaluate_ab":
        import annotation.asr.ab

        monkeypatch.setattr(annotation.asr.ab, "load_ab", lambda path: [])
    main = importlib.import_module(module).main
    assert main([*_argv(ONNX_VALUES), *extra]) == 2
    assert "captured" in capsys.readouterr().err
    assert seen["options"] == _expected(ONNX_VALUES)


def test_load_takes_options_or_keywords_with_the_same_result():
    by_options = Scorer.load(ScorerOptions(checkpoint=TINY, variant="fp32", head="pair"))
    by_keywords = Scorer.load(TINY, variant="fp32", head="pair")
    assert by_options.signature == by_keywords.signature
    assert by_options.options == by_keywords.options
    assert by_options.options.checkpoint == TINY
    with pytest.raises(InputError, match="either ScorerOptions or keywords"):
        Scorer.load(ScorerOptions(checkpoint=TINY), variant="fp32")
    with pytest.raises(InputError, match="must be a ScorerOptions"):
        Scorer.from_options({"checkpoint": str(TINY)})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"backend": "tf"}, "backend must be one of"),
        ({"backend": "torch", "variant": "fp32"}, "cannot be used with backend='torch'"),
        ({"device": "cuda"}, "device applies to backend='torch'"),
        ({"variant": "int4"}, "variant must be one of"),
        ({"threads": 0}, "threads must be a positive integer"),
        ({"threads": True}, "threads must be a positive integer"),
        ({"head": "tiers"}, "head must be one of"),
        ({"tie_breaker": 1}, "tie_breaker must be one of"),
        ({"tie_breaker": True}, "tie_breaker must be one of"),
        ({"decode": "mode"}, "decode must be one of"),
        ({"checkpoint": 123}, "path_or_hub_id must be"),
    ],
)
def test_bad_options_fail_before_any_model_is_loaded(changes, message):
    with pytest.raises(InputError, match=message):
        ScorerOptions(**changes)


def test_options_round_trip_as_dicts():
    options = _expected(ONNX_VALUES)
    assert ScorerOptions.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    with pytest.raises(InputError, match="analyzer object"):
        ScorerOptions(analyzer=object()).to_dict()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("resolve_checkpoint", "sitar.checkpoint"),
        ("combine_window_scores", "sitar.windows"),
        ("plan_windows", "sitar.windows"),
        ("WINDOWING_VERSION", "sitar.windows"),
    ],
)
def test_moved_names_still_import_from_the_scorer_with_a_warning(name, home):
    import importlib

    import sitar.scorer

    with pytest.warns(DeprecationWarning, match=f"moved to {home}"):
        value = getattr(sitar.scorer, name)
    assert value is getattr(importlib.import_module(home), name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from sitar.scorer import Scorer as _  # noqa: F401  (names that stay do not warn)


def test_one_system_score_rule_for_scorer_serve_and_ray():
    """The scorer, serve's per-request slices and the Ray manifest use sitar.result.system_score:
    exact (fsum) and so independent of the order of the scores."""
    import math
    import random

    from sitar.result import system_score
    from sitar.serve.batching import slice_result

    scorer = Scorer.load(TINY, variant="fp32", head="pair")
    refs = ["turn left now", "the cat sat", "call me at nine", "a b c d"]
    hyps = ["turn right now", "the cat sat down", "call me at five", "a b c"]
    result = scorer.score(references=refs, hypotheses=hyps)
    assert result.system_score == system_score(result.scores)
    assert slice_result(result, 1, 3).system_score == system_score(result.scores[1:3])
    values = [0.1] * 10 + [1e-17] * 7
    shuffled = values[:]
    random.Random(0).shuffle(shuffled)
    assert system_score(values) == system_score(shuffled) == math.fsum(values) / len(values)
    assert math.isnan(system_score([]))

"""The experiment ledger (experiments/, training/ledger.py): every entry has its files, a valid
decision (that agrees with its gates in a training entry), a results.json that parses, and every
training entry a config that ``python -m training --config`` loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from sitar.errors import InputError
from training.__main__ import build_parser
from training.config import load_config
from training.ledger import (
    CONFIG_FILE,
    DEFAULT_ROOT,
    REQUIRED_FILES,
    RESULTS_FILE,
    load_experiment,
    load_ledger,
    main,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "checkpoints" / "sitar-minilm-gap-v5"


def test_every_entry_is_valid_and_v5_to_v10_are_there():
    entries = load_ledger()
    ids = [e.id for e in entries]
    for v in range(5, 11):
        assert f"minilm-gap-v{v}" in ids
    for entry in entries:
        for name in REQUIRED_FILES:
            assert (entry.path / name).is_file()
        if entry.outcome != "pending":
            json.loads((entry.path / RESULTS_FILE).read_text(encoding="utf-8"))
        if entry.id.startswith("minilm-gap-"):
            assert entry.kind == "training"
            assert (entry.path / CONFIG_FILE).is_file()


def test_only_the_shipped_checkpoint_is_shipped_and_its_config_is_the_runs_own():
    shipped = [e for e in load_ledger() if e.outcome == "shipped" and e.kind == "training"]
    assert [e.id for e in shipped] == ["minilm-gap-v5"]
    recorded = json.loads((SHIPPED / "sitar_config.json").read_text(encoding="utf-8"))
    assert shipped[0].config.hash() == recorded["training_config_hash"]
    assert shipped[0].config.to_dict() == recorded["training"]["config"]


def test_training_runs_from_a_ledger_config():
    """`python -m training --config experiments/<id>/config.yaml` parses and loads the config."""
    for entry in load_ledger():
        if entry.config is None:
            continue
        path = entry.path / "config.yaml"
        args = build_parser().parse_args(["--config", str(path)])
        assert load_config(args.config, args.overrides) == entry.config


def test_the_cli_lists_every_entry(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    folders = [p.name for p in DEFAULT_ROOT.iterdir() if p.is_dir() and p.name[0] not in "._"]
    assert sorted(line.split()[0] for line in out.splitlines()) == sorted(folders)


def _copy(tmp_path: Path, experiment_id: str = "minilm-gap-v9") -> Path:
    dst = tmp_path / "ledger" / experiment_id
    shutil.copytree(DEFAULT_ROOT / experiment_id, dst)
    return dst


def _edit_results(folder: Path, edit) -> None:
    path = folder / "results.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    edit(record)
    path.write_text(json.dumps(record), encoding="utf-8")


@pytest.mark.parametrize("name", [*REQUIRED_FILES, RESULTS_FILE, CONFIG_FILE])
def test_a_missing_file_is_named(tmp_path, name):
    folder = _copy(tmp_path)
    (folder / name).unlink()
    with pytest.raises(InputError, match=name):
        load_experiment(folder)


@pytest.mark.parametrize(
    "text",
    ["", "maybe: it looked fine", "not-shipped", "shipped: yes\nnot-shipped: no", "Shipped: yes"],
)
def test_an_invalid_decision_is_refused(tmp_path, text):
    folder = _copy(tmp_path)
    (folder / "DECISION").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="DECISION"):
        load_experiment(folder)


def test_results_that_do_not_parse_are_refused(tmp_path):
    folder = _copy(tmp_path)
    (folder / "results.json").write_text('{"schema": "sitar.experiment/1",', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load_experiment(folder)


def test_a_decision_that_contradicts_the_gates_is_refused(tmp_path):
    folder = _copy(tmp_path)  # v9 fails one gate (recognizer tier accuracy)
    (folder / "DECISION").write_text("shipped: looked good\n", encoding="utf-8")
    with pytest.raises(InputError, match="tier_accuracy_pct"):
        load_experiment(folder)

    def passes(record):
        record["results"]["recognizer_test"]["tier_accuracy_pct"] = 71.2
        record["results"]["public_dev"]["t0_only_median"] = 0.03

    (folder / "DECISION").write_text("not-shipped: no reason\n", encoding="utf-8")
    _edit_results(folder, passes)
    with pytest.raises(InputError, match="no gate"):
        load_experiment(folder)
    (folder / "DECISION").write_text("shipped: every gate holds\n", encoding="utf-8")
    assert load_experiment(folder).outcome == "shipped"


def test_a_gate_on_an_unrecorded_figure_is_refused(tmp_path):
    folder = _copy(tmp_path)
    _edit_results(
        folder,
        lambda r: r["gates"].append(
            {"set": "public_dev", "metric": "nonsense", "op": ">=", "threshold": 1}
        ),
    )
    with pytest.raises(InputError, match="nonsense"):
        load_experiment(folder)


def test_an_exact_config_must_match_its_recorded_hash(tmp_path):
    folder = _copy(tmp_path, "minilm-gap-v5")
    text = (folder / "config.yaml").read_text(encoding="utf-8")
    (folder / "config.yaml").write_text(text.replace("max_steps: 1600", "max_steps: 1601"))
    with pytest.raises(InputError, match="training_config_hash"):
        load_experiment(folder)


def test_unknown_settings_must_be_config_settings(tmp_path):
    folder = _copy(tmp_path)
    _edit_results(folder, lambda r: r["config"]["unknown"].append("not_a_setting"))
    with pytest.raises(InputError, match="config.unknown"):
        load_experiment(folder)


def test_an_id_that_differs_from_its_folder_is_refused(tmp_path):
    folder = _copy(tmp_path)
    _edit_results(folder, lambda r: r.update(id="minilm-gap-v99"))
    with pytest.raises(InputError, match="differs from its folder"):
        load_experiment(folder)


def test_the_cli_exits_2_on_a_bad_entry(tmp_path, capsys):
    folder = _copy(tmp_path)
    (folder / "DECISION").unlink()
    assert main(["--root", str(folder.parent)]) == 2
    assert "missing DECISION" in capsys.readouterr().err


def test_a_pending_entry_may_wait_for_its_results_and_config(tmp_path):
    folder = _copy(tmp_path)
    (folder / RESULTS_FILE).unlink()
    (folder / "DECISION").write_text("pending: pre-registered, not run\n", encoding="utf-8")
    entry = load_experiment(folder)
    assert (entry.kind, entry.record, entry.gates) == ("training", None, ())
    (folder / CONFIG_FILE).unlink()
    assert load_experiment(folder).kind == "study"


def test_a_study_entry_needs_parseable_results(tmp_path):
    folder = tmp_path / "ledger" / "some-choice"
    folder.mkdir(parents=True)
    (folder / "preregistration.md").write_text("# rule\n\nThe highest agreement.\n")
    (folder / "DECISION").write_text("shipped: the highest agreement\n")
    (folder / RESULTS_FILE).write_text('{"grid": [1, 2]}')
    entry = load_experiment(folder)
    assert (entry.kind, entry.config, entry.record) == ("study", None, {"grid": [1, 2]})
    (folder / RESULTS_FILE).write_text('{"grid": [1, 2]')
    with pytest.raises(InputError, match="invalid JSON"):
        load_experiment(folder)


def test_a_study_that_declares_the_schema_has_its_gates_checked(tmp_path):
    folder = _copy(tmp_path, "v4-median-decoding")  # the dev set failed its gate
    assert load_experiment(folder).kind == "study"
    (folder / "DECISION").write_text("shipped: better everywhere else\n", encoding="utf-8")
    with pytest.raises(InputError, match="pairwise_pct"):
        load_experiment(folder)


def test_a_training_entry_needs_schema_results_and_its_config_provenance(tmp_path):
    folder = _copy(tmp_path)
    _edit_results(folder, lambda r: r.pop("schema"))
    with pytest.raises(InputError, match="schema"):
        load_experiment(folder)
    folder = _copy(tmp_path / "second")
    _edit_results(folder, lambda r: r.update(config=None))
    with pytest.raises(InputError, match="record its provenance"):
        load_experiment(folder)

"""The experiment ledger: one folder per experiment under ``experiments/``.

    python -m training.ledger [--root experiments]

Each entry ``experiments/<id>/`` holds (``experiments/README.md`` describes them):

- ``preregistration.md``: what was decided before the run (the run, the step rule, the ship rule);
- ``DECISION``: one line, ``<outcome>: <why>``, with an outcome from :data:`OUTCOMES`;
- ``results.json``: the figures (required once the outcome is no longer ``pending``);
- ``config.yaml``: for a training run, its training config, loadable by
  ``python -m training --config``.

A **training** entry has ``config.yaml``, and its ``results.json`` follows schema
``sitar.experiment/1``: the figures, the ship rule as gates, and the config's provenance (an
``exact`` config must have the recorded hash). A **study** entry (a choice made without training,
e.g. a decoding rule or a parameter chosen on validation data) has no config; its ``results.json``
must parse, and when it declares the schema (with ``"config": null``) it is checked the same way.
For every entry whose results declare the schema, the decision must agree with the gates: a
``shipped`` entry passes every gate, a ``not-shipped`` entry with gates fails at least one.

:func:`load_experiment` reads and validates one entry, :func:`load_ledger` every entry. The command
prints one line per entry and exits with code 2 and a one-line message on the first invalid entry.
"""

from __future__ import annotations

import json
import math
import operator
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError
from training.config import TrainConfig, load_config

__all__ = [
    "CONFIG_FILE",
    "CONFIG_PROVENANCES",
    "DECISION_FILE",
    "DEFAULT_ROOT",
    "OUTCOMES",
    "REQUIRED_FILES",
    "RESULTS_FILE",
    "SCHEMA",
    "Experiment",
    "Gate",
    "load_experiment",
    "load_ledger",
    "main",
]

#: Schema name of ``results.json``.
SCHEMA = "sitar.experiment/1"
DECISION_FILE = "DECISION"
CONFIG_FILE = "config.yaml"
RESULTS_FILE = "results.json"
#: Files every entry has; ``results.json`` too once the outcome is not ``pending``, and
#: ``config.yaml`` in a training entry.
REQUIRED_FILES = ("preregistration.md", DECISION_FILE)
#: ``pending``: pre-registered, not yet decided; ``withdrawn``: stopped before a decision.
OUTCOMES = ("shipped", "not-shipped", "pending", "withdrawn")
#: ``exact``: the run's own resolved config (its hash is recorded); ``reconstructed``: rebuilt
#: from the records, with the settings no record gives listed in ``config.unknown``.
CONFIG_PROVENANCES = ("exact", "reconstructed")
#: The ledger in this repository.
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "experiments"

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
_DECISION_LINE = re.compile(r"^(?P<outcome>[a-z-]+): (?P<reason>\S.*)$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class Gate:
    """One clause of a ship rule: ``results[set][metric] <op> threshold``."""

    set: str
    metric: str
    op: str
    threshold: float

    def evaluate(self, results: Mapping[str, Mapping[str, Any]]) -> bool | None:
        """True or False, or None when the figure is not recorded (null)."""
        value = results[self.set][self.metric]
        if value is None:
            return None
        return _OPS[self.op](value, self.threshold)

    def __str__(self) -> str:
        return f"{self.set}.{self.metric} {self.op} {self.threshold:g}"


@dataclass(frozen=True)
class Experiment:
    """One validated ledger entry."""

    id: str
    path: Path
    #: ``training`` or ``study`` (module docstring).
    kind: str
    outcome: str
    reason: str
    #: The training config (training entries), else None.
    config: TrainConfig | None
    #: The parsed ``results.json`` (None for a pending entry without one).
    record: Any
    gates: tuple[Gate, ...]

    @property
    def results(self) -> Mapping[str, Mapping[str, Any]]:
        """The figures of a ``sitar.experiment/1`` results file (empty otherwise)."""
        return self.record["results"] if _declares_schema(self.record) else {}

    def gate_outcomes(self) -> list[tuple[Gate, bool | None]]:
        return [(gate, gate.evaluate(self.results)) for gate in self.gates]


def load_experiment(folder: str | Path) -> Experiment:
    """Read and validate one entry; raises :class:`InputError` naming the file and the fault."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"experiment folder not found: {folder}")
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise InputError(
            f"{folder}: missing {', '.join(missing)} (every entry needs "
            f"{', '.join(REQUIRED_FILES)})"
        )
    if not _ID.match(folder.name):
        raise InputError(
            f"{folder}: the folder name is the experiment id and must match {_ID.pattern}"
        )
    if not (folder / "preregistration.md").read_text(encoding="utf-8").strip():
        raise InputError(f"{folder / 'preregistration.md'}: empty")
    outcome, reason = _read_decision(folder / DECISION_FILE)
    has_results = (folder / RESULTS_FILE).is_file()
    if not has_results and outcome != "pending":
        raise InputError(f"{folder}: missing {RESULTS_FILE} (only a pending entry may lack it)")
    record = _read_json(folder / RESULTS_FILE) if has_results else None
    has_config = (folder / CONFIG_FILE).is_file()
    config = load_config(folder / CONFIG_FILE) if has_config else None
    kind = "training" if has_config else "study"
    if not _declares_schema(record):
        if has_config and record is not None:
            raise InputError(
                f"{folder / RESULTS_FILE}: a training entry's results follow schema {SCHEMA!r} "
                "(the 'schema' key is missing)"
            )
        return Experiment(folder.name, folder, kind, outcome, reason, config, record, ())
    _check_results(folder / RESULTS_FILE, record, folder.name)
    if record["config"] is None:
        if has_config:
            raise InputError(
                f"{folder / RESULTS_FILE}: config is null, but the entry has {CONFIG_FILE}; "
                "record its provenance"
            )
    elif config is None:
        raise InputError(
            f"{folder}: missing {CONFIG_FILE} ({RESULTS_FILE} describes a training config)"
        )
    else:
        _check_config(folder, record["config"], config)
    gates = _read_gates(folder / RESULTS_FILE, record)
    experiment = Experiment(folder.name, folder, kind, outcome, reason, config, record, gates)
    _check_decision(experiment)
    return experiment


def _declares_schema(record: Any) -> bool:
    return isinstance(record, dict) and "schema" in record


def load_ledger(root: str | Path = DEFAULT_ROOT) -> list[Experiment]:
    """Every entry under ``root`` (each sub-folder not starting with ``.`` or ``_`` is one), sorted
    by date, then id."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"ledger folder not found: {root}")
    entries = [
        load_experiment(p)
        for p in sorted(root.iterdir())
        if p.is_dir() and not p.name.startswith((".", "_"))
    ]
    if not entries:
        raise InputError(f"{root}: no experiment folders")
    return sorted(entries, key=lambda e: (_date(e), _natural(e.id)))


def _date(entry: Experiment) -> str:
    """The recorded date of a ``sitar.experiment/1`` entry; other entries sort last."""
    return entry.record["date"] if _declares_schema(entry.record) else "9999"


def _natural(text: str) -> list[Any]:
    """``v9`` before ``v10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _read_decision(path: Path) -> tuple[str, str]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(lines) != 1:
        raise InputError(f"{path}: expected exactly one line '<outcome>: <why>', got {len(lines)}")
    match = _DECISION_LINE.match(lines[0].strip())
    if match is None or match["outcome"] not in OUTCOMES:
        raise InputError(
            f"{path}: expected '<outcome>: <why>' with an outcome from {', '.join(OUTCOMES)}; "
            f"got {lines[0].strip()[:80]!r}"
        )
    return match["outcome"], match["reason"]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON at line {e.lineno}: {e.msg}") from e


def _check_results(path: Path, record: Any, experiment_id: str) -> None:
    """A training entry's ``results.json`` (schema ``sitar.experiment/1``)."""
    if not isinstance(record, dict):
        raise InputError(f"{path}: expected a JSON object, got {type(record).__name__}")
    for key in ("schema", "id", "date", "config", "results", "gates", "unknown"):
        if key not in record:
            raise InputError(f"{path}: missing key {key!r}")
    if record["schema"] != SCHEMA:
        raise InputError(f"{path}: schema must be {SCHEMA!r}, got {record['schema']!r}")
    if record["id"] != experiment_id:
        raise InputError(f"{path}: id {record['id']!r} differs from its folder {experiment_id!r}")
    if not isinstance(record["date"], str) or not _DATE.match(record["date"]):
        raise InputError(f"{path}: date must be YYYY-MM-DD, got {record['date']!r}")
    if not isinstance(record["unknown"], list) or not all(
        isinstance(item, str) for item in record["unknown"]
    ):
        raise InputError(f"{path}: unknown must be a list of strings (what no record gives)")
    results = record["results"]
    if not isinstance(results, dict):
        raise InputError(f"{path}: results must map a set name to its figures")
    for name, figures in results.items():
        if not isinstance(figures, dict):
            raise InputError(f"{path}: results[{name!r}] must map a metric to its value")
        for metric, value in figures.items():
            if not _is_figure(value):
                raise InputError(
                    f"{path}: results[{name!r}][{metric!r}] must be a number, null (not "
                    f"recorded) or a list of them, got {value!r}"
                )


def _is_figure(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, list):
        return all(_is_figure(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_config(folder: Path, meta: Any, config: TrainConfig) -> None:
    where = folder / "results.json"
    if not isinstance(meta, dict) or meta.get("provenance") not in CONFIG_PROVENANCES:
        raise InputError(
            f"{where}: config.provenance must be one of {', '.join(CONFIG_PROVENANCES)}"
        )
    unknown = meta.get("unknown")
    known = {f.name for f in fields(TrainConfig)}
    if not isinstance(unknown, list) or any(name not in known for name in unknown):
        raise InputError(f"{where}: config.unknown must list TrainConfig settings, got {unknown!r}")
    if meta["provenance"] == "exact":
        if unknown:
            raise InputError(f"{where}: an exact config has no unknown settings, got {unknown}")
        recorded = meta.get("training_config_hash")
        if recorded != config.hash():
            raise InputError(
                f"{folder / 'config.yaml'}: its hash {config.hash()} differs from the recorded "
                f"training_config_hash {recorded!r}; an exact config must be the run's own"
            )


def _read_gates(path: Path, record: Mapping[str, Any]) -> tuple[Gate, ...]:
    raw = record["gates"]
    if not isinstance(raw, list):
        raise InputError(f"{path}: gates must be a list")
    gates = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or set(item) != {"set", "metric", "op", "threshold"}:
            raise InputError(f"{path}: gates[{i}] must have exactly set, metric, op, threshold")
        if item["op"] not in _OPS:
            raise InputError(f"{path}: gates[{i}].op must be one of {list(_OPS)}")
        if not _is_figure(item["threshold"]) or not isinstance(item["threshold"], (int, float)):
            raise InputError(f"{path}: gates[{i}].threshold must be a number")
        if item["metric"] not in record["results"].get(item["set"], {}):
            raise InputError(
                f"{path}: gates[{i}] reads results[{item['set']!r}][{item['metric']!r}], "
                "which is not recorded (write null for a figure that is unknown)"
            )
        if isinstance(record["results"][item["set"]][item["metric"]], list):
            raise InputError(f"{path}: gates[{i}] reads a list, not a number")
        gates.append(Gate(item["set"], item["metric"], item["op"], float(item["threshold"])))
    return tuple(gates)


def _check_decision(experiment: Experiment) -> None:
    where = experiment.path / DECISION_FILE
    outcomes = experiment.gate_outcomes()
    if experiment.outcome == "shipped":
        open_gates = [str(g) for g, holds in outcomes if holds is not True]
        if open_gates:
            raise InputError(
                f"{where}: 'shipped', but these gates fail or are not recorded: "
                f"{'; '.join(open_gates)}"
            )
    if experiment.outcome == "not-shipped" and outcomes:
        if not any(holds is False for _, holds in outcomes):
            raise InputError(
                f"{where}: 'not-shipped', but no gate in results.json fails; record the failing "
                "figure, or say why in a gate-free entry"
            )


@tool_main("python -m training.ledger")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.ledger", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", type=Path, default=DEFAULT_ROOT, help="ledger folder (default: experiments/)"
    )
    args = parser.parse_args(argv)
    entries = load_ledger(args.root)
    for entry in entries:
        line = f"{entry.id:20s} {entry.kind:9s} {entry.outcome:12s}"
        if entry.gates:
            outcomes = [holds for _, holds in entry.gate_outcomes()]
            line += (
                f" gates: {outcomes.count(True)} hold, {outcomes.count(False)} fail, "
                f"{outcomes.count(None)} not recorded"
            )
        if entry.config is not None and _declares_schema(entry.record):
            line += f"; config {entry.record['config']['provenance']}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

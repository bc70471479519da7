"""Parity and drift of exported graphs: the torch model against its fp32 ONNX graph, and each
quantized graph against fp32, on the same encodings of real pairs.

:func:`parity_report` is what :func:`sitar.modeling.export.export_checkpoint` writes to
``parity.json`` (and refuses a folder on, :class:`ParityError`, when fp32 parity fails);
:func:`graph_drift` is the one measure of a quantized graph's drift, used by that report and by
:func:`sitar.modeling.export.add_onnx_variant`; :func:`read_parity` reads the file back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.modeling.model import PairEncoder, SitarRegressor
from sitar.targets import MAX_SCORE

__all__ = [
    "DEFAULT_PARITY_ATOL",
    "PARITY_FILE",
    "ParityError",
    "encode_pairs",
    "graph_drift",
    "parity_report",
    "read_parity",
]

#: The parity report's file inside an exported checkpoint folder.
PARITY_FILE = "parity.json"
#: Default tolerance on max |torch - onnx fp32| for the raw score and the ordinal logits.
DEFAULT_PARITY_ATOL = 2e-4

Outputs = list[dict[str, np.ndarray]]


class ParityError(CheckpointError):
    """The fp32 ONNX graph does not reproduce the torch model within the tolerance."""


def ort() -> Any:
    """``onnxruntime``, or :class:`MissingDependencyError` naming the extra that brings it."""
    try:
        import onnxruntime
    except ImportError as e:
        raise MissingDependencyError("onnxruntime", "ONNX export parity checks", "torch") from e
    return onnxruntime


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman correlation with average ranks for ties (numpy only); nan when undefined."""

    def ranks(x: np.ndarray) -> np.ndarray:
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x), dtype=np.float64)
        sx = x[order]
        i = 0
        while i < len(x):
            j = i
            while j + 1 < len(x) and sx[j + 1] == sx[i]:
                j += 1
            r[order[i : j + 1]] = (i + j) / 2.0
            i = j + 1
        return r

    if len(a) < 2:
        return float("nan")
    ra, rb = ranks(np.asarray(a, float)), ranks(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _run_torch(model: SitarRegressor, batches: list[dict[str, np.ndarray]]) -> Outputs:
    out = []
    model = model.float().eval()
    device = next(model.parameters()).device
    with torch.inference_mode():
        for feed in batches:
            values = model(**{k: torch.from_numpy(v).to(device) for k, v in feed.items()})
            out.append(
                {
                    name: v.float().cpu().numpy().astype(np.float64)
                    for name, v in zip(model.output_names, values, strict=True)
                }
            )
    return out


def run_onnx(path: Path, batches: list[dict[str, np.ndarray]], threads: int | None) -> Outputs:
    """Every output of the graph at ``path`` for each feed, as float64 arrays."""
    rt = ort()
    options = rt.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = rt.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    graph_inputs = [i.name for i in session.get_inputs()]
    names = [o.name for o in session.get_outputs()]
    out = []
    for feed in batches:
        if sorted(feed) != sorted(graph_inputs):
            raise CheckpointError(
                f"{path.name} takes inputs {graph_inputs} but the model feeds {sorted(feed)}"
            )
        values = session.run(names, feed)
        out.append({n: np.asarray(v, dtype=np.float64) for n, v in zip(names, values, strict=True)})
    return out


def _concat(outputs: Outputs, name: str) -> np.ndarray:
    return np.concatenate([o[name] for o in outputs])


def _gap_rows(outputs: Outputs, counts: list[list[int]]) -> np.ndarray:
    """The gap logits of real gaps only (padded slots dropped): (total gaps, K)."""
    rows = [
        o["gap_logits"][b, :g]
        for o, batch in zip(outputs, counts, strict=True)
        for b, g in enumerate(batch)
    ]
    return np.concatenate(rows) if rows else np.zeros((0, 0))


def graph_drift(
    quantized: Outputs, fp32: Outputs, counts: list[list[int]], *, gap_head: bool
) -> dict[str, float]:
    """How far a quantized graph's outputs lie from the fp32 graph's on the same feeds: max/mean
    abs diff of the raw score (and of the score normalised to [0, 1]), Spearman against fp32, max
    abs diff of the ordinal logits and, for a gap-aware graph (``counts``: gaps per row), of the
    real gaps' logits."""
    q_score, f_score = _concat(quantized, "score"), _concat(fp32, "score")
    diff = np.abs(q_score - f_score)
    clipped = np.abs(np.clip(q_score, 0, MAX_SCORE) - np.clip(f_score, 0, MAX_SCORE))
    q_logits, f_logits = _concat(quantized, "ordinal_logits"), _concat(fp32, "ordinal_logits")
    out = {
        "max_abs_diff_score": float(diff.max()),
        "mean_abs_diff_score": float(diff.mean()),
        "max_abs_diff_normalized": float(np.max(clipped / MAX_SCORE)),
        "spearman_vs_fp32": _spearman(q_score, f_score),
        "max_abs_diff_ordinal_logits": float(np.max(np.abs(q_logits - f_logits))),
    }
    if gap_head:
        gaps = np.abs(_gap_rows(quantized, counts) - _gap_rows(fp32, counts))
        out["max_abs_diff_gap_logits"] = float(np.max(gaps))
    return out


def encode_pairs(
    encoder: PairEncoder,
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    gap_aware: bool,
) -> list[Any]:
    """Encodings of real pairs as a graph reads them: plain, or gap-marked (CGD with the default
    analyzer) for a gap-aware graph, whose pairs without gaps are left out. Encodings are not
    truncated: only the pairs that fit ``encoder.max_length`` are kept (the Scorer windows the
    others)."""
    if not gap_aware:
        encoded = encoder.encode(references, hypotheses)
    else:
        from sitar.cgd import segment

        items = []
        for r, h in zip(references, hypotheses, strict=True):
            gaps = segment(r, h).gaps
            if gaps:
                items.append((r, h, [(g.ref_span, g.hyp_span) for g in gaps]))
        encoded = encoder.encode_marked(items)
    return [e for e in encoded if len(e) <= encoder.max_length]


def parity_report(
    model: SitarRegressor,
    encoder: PairEncoder,
    *,
    references: Sequence[str],
    hypotheses: Sequence[str],
    fp32_path: str | os.PathLike[str],
    int8_path: str | os.PathLike[str] | None = None,
    batch_size: int = 16,
    threads: int | None = None,
    atol: float = DEFAULT_PARITY_ATOL,
    variant_paths: Mapping[str, str | os.PathLike[str]] | None = None,
) -> dict[str, Any]:
    """Compare torch, ONNX fp32 and (optionally) quantized graphs on the same encodings of real
    pairs.

    Returns a JSON-ready dict: ``n_pairs``, token length range, ``fp32`` (max abs diff of score and
    logits, tolerance, ``passed``) and, for ``int8_path`` and each graph of ``variant_paths``
    (variant -> path), an entry under the variant's name (:func:`graph_drift`).
    """
    gap_head = bool(model.head_config.gap_head)
    items = encode_pairs(encoder, references, hypotheses, gap_aware=gap_head)
    if not items:
        raise InputError("parity needs at least one (reference, hypothesis) pair with a gap")
    names = model.input_names
    chunks = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    batches = [encoder.collate(chunk, names) for chunk in chunks]
    counts = [[e.n_gaps for e in chunk] for chunk in chunks]
    torch_out = _run_torch(model, batches)
    fp32_out = run_onnx(Path(fp32_path), batches, threads)
    t_score, f_score = _concat(torch_out, "score"), _concat(fp32_out, "score")
    t_logits, f_logits = _concat(torch_out, "ordinal_logits"), _concat(fp32_out, "ordinal_logits")
    lengths = [len(e) for e in items]
    score_diff = float(np.max(np.abs(t_score - f_score)))
    logit_diff = float(np.max(np.abs(t_logits - f_logits)))
    gap_diff = 0.0
    if gap_head:
        gap_diff = float(np.max(np.abs(_gap_rows(torch_out, counts) - _gap_rows(fp32_out, counts))))
    report: dict[str, Any] = {
        "n_pairs": len(items),
        "tokens_min": int(min(lengths)),
        "tokens_max": int(max(lengths)),
        "tokens_mean": float(np.mean(lengths)),
        "fp32": {
            "max_abs_diff_score": score_diff,
            "max_abs_diff_ordinal_logits": logit_diff,
            "max_abs_diff_gap_logits": gap_diff,
            "atol": float(atol),
            "passed": bool(score_diff <= atol and logit_diff <= atol and gap_diff <= atol),
        },
        "torch_score_range": [float(t_score.min()), float(t_score.max())],
    }
    quantized = dict(variant_paths or {})
    if int8_path is not None:
        quantized["int8"] = int8_path
    for variant, path in quantized.items():
        q_out = run_onnx(Path(path), batches, threads)
        report[variant] = graph_drift(q_out, fp32_out, counts, gap_head=gap_head)
    return report


def read_parity(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The parity report of an exported checkpoint folder."""
    path = Path(folder) / PARITY_FILE
    if not path.is_file():
        raise CheckpointError(f"{folder}: {PARITY_FILE} is missing (not written by export?)")
    return json.loads(path.read_text(encoding="utf-8"))

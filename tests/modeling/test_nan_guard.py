"""The exporter's NaN guard after attention softmaxes is removed, and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from sitar.modeling.export import drop_softmax_nan_guards  # noqa: E402


def _graph(path, *, guard_input: str = "p", constant_zero: bool = False) -> None:
    """x -> Softmax -> p; y = Where(IsNaN(p), 0, <guard_input>) @ w, the zero an initializer or
    (as the TorchScript exporter writes it) a Constant node."""
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    zero = numpy_helper.from_array(np.zeros((), np.float32), "zero")
    nodes = [helper.make_node("Constant", [], ["zero"], value=zero)] if constant_zero else []
    nodes += [
        helper.make_node("Softmax", ["x"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", guard_input], ["g"]),
        helper.make_node("MatMul", ["g", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])],
        [numpy_helper.from_array(w, "w")] + ([] if constant_zero else [zero]),
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _run(path, x):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x})[0]


@pytest.mark.parametrize("constant_zero", [False, True])
def test_guard_removed_with_identical_outputs(tmp_path, constant_zero):
    path = tmp_path / "m.onnx"
    _graph(path, constant_zero=constant_zero)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    before = _run(path, x)
    assert drop_softmax_nan_guards(path) == 1
    model = onnx.load(str(path))
    assert [n.op_type for n in model.graph.node] == ["Softmax", "MatMul"]
    assert [t.name for t in model.graph.initializer] == ["w"]  # the guard's zero is gone too
    np.testing.assert_array_equal(_run(path, x), before)
    assert drop_softmax_nan_guards(path) == 0  # nothing left to remove


def test_other_where_patterns_are_kept(tmp_path):
    path = tmp_path / "m.onnx"
    _graph(path, guard_input="x")  # Where(IsNaN(p), 0, x) is not the guard of p
    assert drop_softmax_nan_guards(path) == 0
    assert [n.op_type for n in onnx.load(str(path)).graph.node] == [
        "Softmax",
        "IsNaN",
        "Where",
        "MatMul",
    ]

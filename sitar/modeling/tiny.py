"""Tiny random backbones, offline tokenizers and synthetic records for tests and smoke runs.

Nothing here downloads anything. :func:`write_tiny_backbone` writes a local backbone folder
(``config.json`` + random weights + ``tokenizer.json``) that every SITAR code path accepts as a
backbone name: a DeBERTa-v3-style model (relative attention with ``position_buckets=256``,
``norm_rel_ebd="layer_norm"``, shared attention keys, ``p2c``/``c2p`` and no token types) whose
tokenizer is a SentencePiece unigram model trained on the spot, or a BERT-style model (token types)
with a WordPiece tokenizer. :func:`synthetic_records` makes schema-valid ``sitar.record/1`` dicts
whose targets follow a simple learnable rule. The models are meaningless; they exist so the real
code paths run in seconds on a CPU.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from sitar.records import RECORD_SCHEMA
from sitar.targets import score_from_tiers

__all__ = [
    "WORDS",
    "sample_sentences",
    "synthetic_records",
    "tiny_config",
    "write_tiny_backbone",
]

#: Words of the toy language: (word, tier of replacing it). Numbers/negations change the outcome.
_LEXICON = {
    "0": "the a an um uh well so just really very please".split(),
    "1": "meeting call order package report doctor office train flight room".split(),
    "2": "three four five seven nine not never cancel tomorrow today".split(),
}
WORDS: tuple[str, ...] = tuple(w for tier in ("0", "1", "2") for w in _LEXICON[tier])
_TIER = {w: int(t) for t, ws in _LEXICON.items() for w in ws}
_FILLER = "we will you can i need to move the at on for by with is was".split()


def sample_sentences(
    n: int, *, seed: int = 0, min_words: int = 4, max_words: int = 14
) -> list[str]:
    """``n`` random sentences over the toy vocabulary (deterministic for a seed)."""
    rng = random.Random(seed)
    vocab = list(WORDS) + _FILLER
    return [
        " ".join(rng.choice(vocab) for _ in range(rng.randint(min_words, max_words)))
        for _ in range(n)
    ]


def _sentencepiece_tokenizer(folder: Path, *, vocab_size: int = 160, seed: int = 0) -> Any:
    """Train a unigram SentencePiece model and return the DeBERTa-v3 fast tokenizer built from it."""
    import sentencepiece as spm
    from transformers import DebertaV2Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    sentences = [*sample_sentences(400, seed=seed), " ".join(WORDS), " ".join(_FILLER)]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_prefix=str(folder / "spm"),
        vocab_size=vocab_size,
        model_type="unigram",
        pad_id=0,
        bos_id=1,
        eos_id=2,
        unk_id=3,
        pad_piece="[PAD]",
        bos_piece="[CLS]",
        eos_piece="[SEP]",
        unk_piece="[UNK]",
        user_defined_symbols=["[MASK]"],
        hard_vocab_limit=False,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
    )
    # from_pretrained(dir) finds spm.model; the constructor with vocab_file gives all-[UNK] on
    # transformers 5.
    hf = DebertaV2Tokenizer.from_pretrained(str(folder))
    return hf.backend_tokenizer


def _wordpiece_tokenizer() -> Any:
    """A BERT-style WordPiece tokenizer over the toy vocabulary plus characters."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = sorted(set("abcdefghijklmnopqrstuvwxyz0123456789'.,?!-"))
    vocab_list = specials + sorted(set(WORDS) | set(_FILLER)) + chars + [f"##{c}" for c in chars]
    vocab = {tok: i for i, tok in enumerate(vocab_list)}
    tok = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    return tok


def tiny_config(kind: str, vocab_size: int, *, hidden: int = 32, layers: int = 2) -> Any:
    """A tiny ``transformers`` config: ``"deberta-v3"`` (v3 attention settings) or ``"bert"``."""
    if kind == "deberta-v3":
        from transformers import DebertaV2Config

        settings: dict[str, Any] = dict(
            vocab_size=vocab_size,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=2,
            intermediate_size=2 * hidden,
            max_position_embeddings=512,
            relative_attention=True,
            position_buckets=256,
            norm_rel_ebd="layer_norm",
            share_att_key=True,
            pos_att_type=["p2c", "c2p"],
            position_biased_input=False,
            max_relative_positions=-1,
            type_vocab_size=0,
            pad_token_id=0,
        )
        return DebertaV2Config(**settings)
    if kind == "bert":
        from transformers import BertConfig

        return BertConfig(
            vocab_size=vocab_size,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=2,
            intermediate_size=2 * hidden,
            max_position_embeddings=512,
            type_vocab_size=2,
            pad_token_id=0,
        )
    raise ValueError(f"kind must be 'deberta-v3' or 'bert', got {kind!r}")


def write_tiny_backbone(
    folder: str | os.PathLike[str], kind: str = "deberta-v3", *, seed: int = 0
) -> Path:
    """Write a tiny random backbone (``config.json``, weights, ``tokenizer.json``) into ``folder``.

    The folder then works anywhere a backbone name is accepted (``from_pretrained(folder)``).
    """
    import torch
    from transformers import AutoModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "deberta-v3":
        tok = _sentencepiece_tokenizer(folder / "spm", seed=seed)
    else:
        tok = _wordpiece_tokenizer()
    tok.no_padding()
    tok.no_truncation()
    probe = tok.encode("please call the doctor", "the meeting is at three")
    unknown = tok.token_to_id("[UNK]")
    if all(i == unknown for i in probe.ids[1:-1] if i != tok.token_to_id("[SEP]")):
        raise RuntimeError("the tiny tokenizer maps everything to [UNK]")
    torch.manual_seed(seed)
    model = AutoModel.from_config(tiny_config(kind, tok.get_vocab_size()))
    model.save_pretrained(str(folder))
    tok.save(str(folder / "tokenizer.json"))
    return folder


def synthetic_records(
    n: int, *, seed: int = 0, split: str | None = "train", id_prefix: str = "syn"
) -> list[dict[str, Any]]:
    """``n`` schema-valid record dicts: a reference and a hypothesis with 0-3 word replacements.

    The tier of a replacement is the tier of the replaced word (filler words count as T0), and the
    target follows spec §5 (docs/spec.md) from those tiers, so a model can learn it. Gaps are single-token
    substitutions with correct token and character spans.
    """
    rng = random.Random(seed)
    records = []
    vocab = list(WORDS)
    for i in range(n):
        words = [rng.choice(vocab + _FILLER) for _ in range(rng.randint(5, 12))]
        hyp = list(words)
        k = rng.choice([0, 1, 1, 2, 2, 3])
        positions = sorted(rng.sample(range(len(words)), k))
        tiers = []
        for p in positions:
            replacement = rng.choice([w for w in vocab if w != words[p]])
            hyp[p] = replacement
            tiers.append(_TIER.get(words[p], 0))
        reference, hypothesis = " ".join(words), " ".join(hyp)
        gaps: list[dict[str, Any]] = []
        for p in positions:
            r_start = sum(len(w) + 1 for w in words[:p])
            h_start = sum(len(w) + 1 for w in hyp[:p])
            gaps.append(
                {
                    "index": len(gaps),
                    "ref_tokens": [p, p + 1],
                    "hyp_tokens": [p, p + 1],
                    "ref_span": [r_start, r_start + len(words[p])],
                    "hyp_span": [h_start, h_start + len(hyp[p])],
                    "ref_text": words[p],
                    "hyp_text": hyp[p],
                }
            )
        directions = [0] * len(tiers)
        records.append(
            {
                "schema": RECORD_SCHEMA,
                "id": f"{id_prefix}-{seed}-{i}",
                "reference": reference,
                "hypothesis": hypothesis,
                "gaps": gaps,
                "tiers": tiers,
                "directions": directions,
                "score": score_from_tiers(tiers, directions),
                "rho": 0.5,
                "split": split,
                "provenance": {"source": "sitar.modeling.tiny.synthetic_records", "seed": seed},
                "signature": "",
            }
        )
    return records

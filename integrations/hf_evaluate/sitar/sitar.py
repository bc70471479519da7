"""SITAR as a Hugging Face ``evaluate`` metric: ``evaluate.load("integrations/hf_evaluate/sitar")``.

A thin wrapper over :func:`sitar.metric.compute` (the installed ``sitar`` package does the work):
predictions are ASR hypotheses, references their reference transcripts, one string each or a
list of candidate strings per prediction (each prediction keeps its closest, as ``sitar score
--ref-file R1 --ref-file R2`` does, and the result adds ``chosen_reference``); the
keywords of ``compute`` other than those two are ``sitar.options.ScorerOptions`` fields
(``checkpoint``, ``normalize``, ``threads``, ...) and ``batch_size``. Runs offline: the packaged
checkpoint needs no download.
"""

from __future__ import annotations

import datasets
import evaluate

from sitar.metric import compute

_DESCRIPTION = """\
SITAR scores how much an ASR hypothesis distorts its reference's situation (who, what, when,
how much), from 0 (no distortion) to 1. `score` is the system score (the macro mean of the
per-pair `scores`, as `sitar score` prints it); with a gap-head checkpoint (the default) `swer`
is the corpus severity-weighted error rate (micro, like WER) and `swers` each pair's. `signature`
names the checkpoint, analyzer and options, for reporting.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions: list of str, the ASR hypotheses.
    references: list of str, one reference transcript per prediction; or a list of lists of str,
        candidate references per prediction (each prediction keeps its closest: the lowest
        score, then the lowest swer, then the first given).
    checkpoint, normalize, threads, head, ...: options of sitar.options.ScorerOptions.
    batch_size: the model batch size (never changes a score).
Returns:
    score (float), scores (list of float), swer (float) and swers (list of float) with
    swer_version (gap head only), signature (str); with candidate lists, chosen_reference (list
    of int, the 0-based index of each prediction's chosen reference).
Examples:
    >>> sitar_metric = evaluate.load("integrations/hf_evaluate/sitar")  # doctest: +SKIP
    >>> sitar_metric.compute(predictions=["turn right"], references=["turn left"])  # doctest: +SKIP
"""

_CITATION = """\
@software{sitar,
  title = {SITAR: situational distortion scoring for ASR transcripts},
  author = {{SITAR developers}},
  url = {https://github.com/sitar-metric/sitar},
}
"""


class Sitar(evaluate.Metric):
    """The SITAR score of (prediction, reference) string pairs."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Two input forms, as evaluate's bleu takes them: candidate lists first (evaluate
            # picks the first feature set an example fits), then one reference per prediction.
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Sequence(
                            datasets.Value("string", id="sequence"), id="references"
                        ),
                    }
                ),
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Value("string", id="sequence"),
                    }
                ),
            ],
            homepage="https://github.com/sitar-metric/sitar",
            codebase_urls=["https://github.com/sitar-metric/sitar"],
            reference_urls=["https://github.com/sitar-metric/sitar/blob/main/docs/spec.md"],
        )

    def _compute(self, predictions=None, references=None, **options):
        return compute(predictions=list(predictions), references=list(references), **options)

    def _infer_feature_from_batch(self, batch):
        # evaluate picks a feature set by a batch's first row, which an empty batch lacks; zero
        # pairs fit either form and give sitar.metric's own values (nan corpus values).
        if not isinstance(self.features, datasets.Features) and not any(map(len, batch.values())):
            return self.features[-1]
        return super()._infer_feature_from_batch(batch)

#!/usr/bin/env bash
# The candidate pipeline of v16-v23, from a finished training run to the files make_results.py
# reads (the steps of ../v17-tieronly/README.md, written down as one script):
#
#   bash experiments/_pipeline/evaluate.sh ID EXPERIMENT_DIR [DATA]
#   e.g. bash experiments/_pipeline/evaluate.sh v23 experiments/v23-read-tiers
#
# CHOOSE_DECODE=1 adds step 2b: the gap head's decoding chosen on the four validation files
# (experiments/decode-tier/choose.py --write; v33 on).
# NF_EVAL (default DATA/v16/nf_eval) and NF_EVAL_W4 (default DATA/v16/nf_eval_w4) hold the
# evaluation files in the run's normal form (v32 on: version 3, ../v32-nf3/README.md).
# RUN (default /work/runs/ID) is the run; the checkpoint goes to DATA/runs/candN (DATA defaults to
# /work/data, N is ID without its v) and the reports to EXPERIMENT_DIR/eval/. Each step is skipped
# when its output exists, so a stopped pipeline continues. Run it with nothing else on the machine
# if a speed figure is to be taken afterwards. Steps:
#   1. the step with the highest validation gap-head Spearman (the first on a tie) ->
#      eval/selection_ID.json, with the run's config hash;
#   2. fp32 export of that step's weights, then the int8row graph calibrated on the synthetic
#      validation file, made the default;
#   3. swer's T1 weight and extent chosen on the validation A/B set and written into the checkpoint;
#   4. experiments/v11-wave3/evaluate.py (dev set, recognizer validation/test, invariance suite,
#      challenge files, worked example) -> eval/candN.json;
#   5. python -m benchmarks severity (severity benchmark, public A/B) -> eval/severity_candN.json;
#   6. the wave-3 and wave-4 test splits by selection part -> eval/w3test_candN.json, w4test_candN.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: evaluate.sh ID EXPERIMENT_DIR [DATA]" >&2; exit 2; }
ID=$1 EXP=$2 D=${3:-/work/data}
PY=${PYTHON:-python}
RUN=${RUN:-/work/runs/$ID}
N=${ID#v}
CAND=$D/runs/cand$N
EV=$EXP/eval
NF_EVAL=${NF_EVAL:-$D/v16/nf_eval}
NF_EVAL_W4=${NF_EVAL_W4:-$D/v16/nf_eval_w4}
mkdir -p "$EV" "$D/runs"
say() { echo "[evaluate $ID $(date -u +%H:%M:%S)] $*"; }
[ -s "$RUN/metrics.jsonl" ] || { echo "$RUN/metrics.jsonl not found: is $RUN a finished run?" >&2; exit 2; }

if [ ! -s "$EV/selection_$ID.json" ]; then
  say "1. step selection"
  "$PY" - "$RUN" "$EV/selection_$ID.json" "$EXP" <<'EOF'
import json, sys
from pathlib import Path
run, out, exp = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
sys.path.insert(0, "experiments/_pipeline")
from reselect import logged_by_step, select_step  # the one home of the step rule

by_step = logged_by_step(run)
if not by_step:
    raise SystemExit(f"{run}/metrics.jsonl has no evaluation with gaps_spearman")
step = select_step(by_step)
first = (run / "config.yaml").read_text(encoding="utf-8").splitlines()[0]
if not first.startswith("# training_config_hash: "):
    raise SystemExit(f"{run}/config.yaml does not start with its training_config_hash")
data = json.loads((run / "data.json").read_text(encoding="utf-8"))
out.write_text(json.dumps({
    "config": {"provenance": "exact", "training_config_hash": first.split(": ", 1)[1], "unknown": []},
    "selection": {
        "metric": "validation gap-head Spearman over the run's validation files "
                  f"({data['validation']['n']} records: {', '.join(Path(f).name for f in data['files'] if 'validation' in f)}), tie-breaker 3",
        "by_step": {str(s): round(v, 3) for s, v in sorted(by_step.items())},
        "step": step,
    },
    "sources": [f"{exp}/preregistration.md", f"{exp}/report.md"],
    "evaluation": "int8row graph, tie-breaker 3, the checkpoint's defaults (normalize sitar in the checkpoint's normal form and decoding; swer chosen on the validation A/B set); v5 in the same code (../v13-distil/eval/v5c.json, severity_v5.json)",
    "unknown": [],
}, indent=1) + "\n", encoding="utf-8")
print(f"selected step {step} (gap-head Spearman {by_step[step]:.3f})")
EOF
fi
STEP=$("$PY" -c "import json, sys; print(json.load(open(sys.argv[1]))['selection']['step'])" "$EV/selection_$ID.json")

if [ ! -s "$CAND/model.int8row.onnx" ]; then
  say "2. export step $STEP, int8row"
  NAME=$("$PY" -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['name'])" "$RUN/config.yaml")
  "$PY" -m training.export --run "$RUN" --out "$CAND" --name "$NAME" --variants fp32 \
    --default-variant fp32 --step "$STEP" --overwrite
  "$PY" -m training.export --add-variant int8row --checkpoint "$CAND" \
    --records "$NF_EVAL/synth_validation_1k.jsonl" --make-default
fi
if [ "${CHOOSE_DECODE:-0}" = 1 ] && [ ! -s "$EV/decode_choose_cand$N.json" ]; then
  say "2b. decoding chosen on the validation files"
  "$PY" experiments/decode-tier/choose.py --checkpoint "$CAND" --json "$EV/decode_choose_cand$N.json" --write \
    "$NF_EVAL/synth_validation_1k.jsonl" "$NF_EVAL/asr_validation.jsonl" \
    "$NF_EVAL/asr_w3_validation.jsonl" "$NF_EVAL_W4/asr_w4_validation.jsonl"
fi
if [ ! -s "$EV/swer_choose_cand$N.json" ]; then
  say "3. swer on the validation A/B set"
  "$PY" experiments/swer-params/choose.py --checkpoint "$CAND" --json "$EV/swer_choose_cand$N.json" --write
fi
if [ ! -s "$EV/cand$N.json" ]; then
  say "4. evaluate.py"
  "$PY" experiments/v11-wave3/evaluate.py --checkpoint "$CAND" --records-dir "$NF_EVAL" --out "$EV/cand$N.json"
fi
if [ ! -s "$EV/severity_cand$N.json" ]; then
  say "5. severity benchmark"
  "$PY" -m benchmarks severity --checkpoint "$CAND" --json "$EV/severity_cand$N.json"
fi
for W in w3 w4; do
  if [ ! -s "$EV/${W}test_cand$N.json" ]; then
    say "6. $W test split by selection part"
    if [ "$W" = w3 ]; then F="$NF_EVAL/asr_w3_test.jsonl"; else F="$NF_EVAL_W4/asr_w4_test.jsonl"; fi
    "$PY" -m training.evaluate_checkpoint --checkpoint "$CAND" --no-devset --records "$F" \
      --by-selection -o "$EV/${W}test_cand$N.json" > /dev/null
  fi
done
say "done: $EV; then python experiments/v11-wave3/make_results.py --id ... (../v22-soundalike/README.md)"

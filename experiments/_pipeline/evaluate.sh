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
# CHOOSE_CUT=1 adds the T1/T2 cut of ../severity-val-cut/ (v39 on):
#   7. the cut chosen on the transcript-level validation set (measure.py) -> eval/cut_candN.json;
#   8. when its J beats 4.5's and the decoding is not median (the pre-registered rule), a copy of
#      the checkpoint with scoring.t2_cut written and signed again (DATA/runs/candNc), evaluated by
#      steps 4-6 into eval/*candNc.json. The candidate is candNc when it exists, else candN.
# SPEED=1 adds step 9: python -m benchmarks speed on the candidate -> eval/speed_<candidate>.json
# (run it with nothing else on the machine).
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
# Steps 4-6 for checkpoint $1, reports named after $2 (candN, or candNc for the cut copy).
evaluate_files() {
  local C=$1 T=$2
  if [ ! -s "$EV/$T.json" ]; then
    say "4. evaluate.py ($T)"
    "$PY" experiments/v11-wave3/evaluate.py --checkpoint "$C" --records-dir "$NF_EVAL" --out "$EV/$T.json"
  fi
  rm -rf "$EV/$T.parts"
  if [ ! -s "$EV/severity_$T.json" ]; then
    say "5. severity benchmark ($T)"
    "$PY" -m benchmarks severity --checkpoint "$C" --json "$EV/severity_$T.json"
  fi
  for W in w3 w4; do
    if [ ! -s "$EV/${W}test_$T.json" ]; then
      say "6. $W test split by selection part ($T)"
      if [ "$W" = w3 ]; then F="$NF_EVAL/asr_w3_test.jsonl"; else F="$NF_EVAL_W4/asr_w4_test.jsonl"; fi
      "$PY" -m training.evaluate_checkpoint --checkpoint "$C" --no-devset --records "$F" \
        --by-selection -o "$EV/${W}test_$T.json" > /dev/null
    fi
  done
}
evaluate_files "$CAND" "cand$N"
CANDIDATE=$CAND TAG=cand$N
if [ "${CHOOSE_CUT:-0}" = 1 ]; then
  if [ ! -s "$EV/cut_cand$N.json" ]; then
    say "7. T1/T2 cut on the transcript-level validation set"
    "$PY" experiments/severity-val-cut/measure.py --checkpoint "$CAND" \
      --validation "$NF_EVAL/asr_validation.jsonl" "$NF_EVAL/asr_w3_validation.jsonl" \
      "$NF_EVAL_W4/asr_w4_validation.jsonl" "$NF_EVAL/synth_validation_1k.jsonl" \
      --json "$EV/cut_cand$N.json"
  fi
  CUT=$("$PY" - "$EV/cut_cand$N.json" "$CAND/sitar_config.json" <<'EOF'
import json, sys
cut = json.load(open(sys.argv[1], encoding="utf-8"))
decode = json.load(open(sys.argv[2], encoding="utf-8"))["scoring"].get("decode")
by, k = cut["by_cut"], cut["chosen_cut"]
print(k if by[str(k)]["J"] > by["4.5"]["J"] and decode != "median" else "none")
EOF
)
  say "7. cut: $CUT"
  if [ "$CUT" != none ]; then
    if [ ! -d "${CAND}c" ]; then  # made in a scratch folder, then moved: never half-made
      say "8. the cut copy ${CAND}c"
      rm -rf "${CAND}c.tmp"
      cp -r "$CAND" "${CAND}c.tmp"
      "$PY" - "${CAND}c.tmp/sitar_config.json" "$CUT" <<'EOF'
import json, sys
path, cut = sys.argv[1], float(sys.argv[2])
config = json.load(open(path, encoding="utf-8"))
config["scoring"]["t2_cut"] = cut
open(path, "w", encoding="utf-8").write(json.dumps(config, indent=2) + "\n")
EOF
      "$PY" -m sitar checkpoint sign "${CAND}c.tmp"
      mv "${CAND}c.tmp" "${CAND}c"
    fi
    evaluate_files "${CAND}c" "cand${N}c"
    CANDIDATE=${CAND}c TAG=cand${N}c
  fi
fi
if [ "${SPEED:-0}" = 1 ] && [ ! -s "$EV/speed_$TAG.json" ]; then
  say "9. speed ($TAG)"
  "$PY" -m benchmarks speed --checkpoint "$CANDIDATE" --json "$EV/speed_$TAG.json"
fi
say "done: $EV (candidate $TAG); then python experiments/v11-wave3/make_results.py --id ... (../v22-soundalike/README.md)"

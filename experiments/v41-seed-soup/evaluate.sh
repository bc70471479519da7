# v41's making and evaluation as run (2026-12-05): the average of v39's step 600 and v40's step 400
# (../v36-soup/average.py), exported from v39's run folder, then v40's evaluation
# (../v40-teacher12-seed29/evaluate.sh) with the selection written by hand (nothing is selected).
# The cut and speed steps ran as v40's script has them; they have since moved into the pipeline
# (CHOOSE_CUT=1 SPEED=1, the same commands), which this script now calls. Paths are this machine's.
#   bash experiments/v41-seed-soup/evaluate.sh
set -euo pipefail
cd /work/main
PY=/work/venv/bin/python
EXP=experiments/v41-seed-soup
EV=$EXP/eval
NF=/work/data/v35/nf4_eval
NF4=/work/data/v35/nf4_eval_w4
SOUP=/work/data/v41/soup.safetensors
mkdir -p $EV /work/data/v41
[ -s $SOUP ] || $PY experiments/v36-soup/average.py /work/runs/v39/evals/step-600/model.safetensors \
  /work/runs/v40/evals/step-400/model.safetensors $SOUP --alpha 0.5 --json $EV/average.json
if [ ! -s /work/data/runs/cand41/model.int8row.onnx ]; then
  $PY -m training.export --run /work/runs/v39 --step 600 --weights $SOUP --name sitar-mpnet6-gap-v41 \
    --out /work/data/runs/cand41 --variants fp32 --default-variant fp32 --overwrite
  $PY -m training.export --add-variant int8row --checkpoint /work/data/runs/cand41 \
    --records $NF/synth_validation_1k.jsonl --make-default
fi
[ -s $EV/selection_v41.json ] || cat > $EV/selection_v41.json <<'JSON'
{
 "config": null,
 "selection": {
  "metric": "none: the weights are the fixed average (alpha 0.5) of v39's step 600 and v40's step 400 (eval/average.json); nothing is selected",
  "by_step": {},
  "step": null
 },
 "sources": [
  "experiments/v41-seed-soup/preregistration.md",
  "experiments/v41-seed-soup/report.md",
  "experiments/v41-seed-soup/eval/average.json"
 ],
 "evaluation": "int8row graph, tie-breaker 3, the checkpoint's defaults (normalize sitar in normal form 4, the decoding chosen on validation; swer chosen on the validation A/B set; the T1/T2 cut chosen on the transcript-level validation set); v5 in the same code (../v13-distil/eval/v5c.json, severity_v5.json)",
 "unknown": []
}
JSON
CHOOSE_DECODE=1 CHOOSE_CUT=1 SPEED=1 RUN=/work/runs/v39 NF_EVAL=$NF NF_EVAL_W4=$NF4 PYTHON=$PY \
  bash experiments/_pipeline/evaluate.sh v41 $EXP

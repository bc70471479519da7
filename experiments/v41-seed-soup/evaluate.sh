# v41's making and evaluation as run (2026-12-05): the average of v39's step 600 and v40's step 400
# (../v36-soup/average.py), exported from v39's run folder, then v40's evaluation
# (../v40-teacher12-seed29/evaluate.sh) with the selection written by hand (nothing is selected).
# Paths are this machine's.
#   bash experiments/v41-seed-soup/evaluate.sh
set -euo pipefail
cd /work/main
PY=/work/venv/bin/python
EXP=experiments/v41-seed-soup
EV=$EXP/eval
NF=/work/data/v35/nf4_eval
NF4=/work/data/v35/nf4_eval_w4
SOUP=/work/data/v41/soup.safetensors
say() { echo "[eval41 $(date -u +%H:%M:%S)] $*"; }
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
CHOOSE_DECODE=1 RUN=/work/runs/v39 NF_EVAL=$NF NF_EVAL_W4=$NF4 PYTHON=$PY bash experiments/_pipeline/evaluate.sh v41 $EXP
rm -rf $EV/cand41.parts
[ -s $EV/cut_cand41.json ] || $PY experiments/severity-val-cut/measure.py --checkpoint /work/data/runs/cand41 \
  --validation $NF/asr_validation.jsonl $NF/asr_w3_validation.jsonl $NF4/asr_w4_validation.jsonl \
  $NF/synth_validation_1k.jsonl --json $EV/cut_cand41.json
CUT=$($PY -c "
import json,sys
c=json.load(open('$EV/cut_cand41.json')); b=c['by_cut']; k=c['chosen_cut']
print(k if b[str(k)]['J']>b['4.5']['J'] else 'none')")
say "cut $CUT"
DEC=$($PY -c "import json;print(json.load(open('/work/data/runs/cand41/sitar_config.json'))['scoring'].get('decode'))")
say "decode $DEC"
if [ "$CUT" != none ] && [ "$DEC" != median ]; then
  rm -rf /work/data/runs/cand41c; cp -r /work/data/runs/cand41 /work/data/runs/cand41c
  $PY -c "
import json
p='/work/data/runs/cand41c/sitar_config.json'; c=json.load(open(p)); c['scoring']['t2_cut']=float('$CUT')
open(p,'w').write(json.dumps(c, indent=2)+'\n')"
  /work/venv/bin/sitar checkpoint sign /work/data/runs/cand41c
  C=/work/data/runs/cand41c; T=cand41c
else
  C=/work/data/runs/cand41; T=cand41
fi
[ -s $EV/$T.json ] || $PY experiments/v11-wave3/evaluate.py --checkpoint $C --records-dir $NF --out $EV/$T.json
rm -rf $EV/$T.parts
[ -s $EV/severity_$T.json ] || $PY -m benchmarks severity --checkpoint $C --json $EV/severity_$T.json
[ -s $EV/w3test_$T.json ] || $PY -m training.evaluate_checkpoint --checkpoint $C --no-devset --records $NF/asr_w3_test.jsonl --by-selection -o $EV/w3test_$T.json > /dev/null
[ -s $EV/w4test_$T.json ] || $PY -m training.evaluate_checkpoint --checkpoint $C --no-devset --records $NF4/asr_w4_test.jsonl --by-selection -o $EV/w4test_$T.json > /dev/null
[ -s $EV/speed_$T.json ] || $PY -m benchmarks speed --checkpoint $C --json $EV/speed_$T.json
say "EVAL41_DONE $T"

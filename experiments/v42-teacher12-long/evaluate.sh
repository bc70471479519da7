# v42's evaluation (2026-12-05): v40's (../v40-teacher12-seed29/evaluate.sh) with v42: the T1/T2 cut
# written automatically when its J on the transcript-level validation set beats 4.5's (the
# pre-registered rule) and the decoding is not median. Paths are this machine's.
#   bash experiments/v42-teacher12-long/evaluate.sh
set -euo pipefail
cd /work/main
PY=/work/venv/bin/python
EXP=experiments/v42-teacher12-long
EV=$EXP/eval
NF=/work/data/v35/nf4_eval
NF4=/work/data/v35/nf4_eval_w4
say() { echo "[eval42 $(date -u +%H:%M:%S)] $*"; }
CHOOSE_DECODE=1 NF_EVAL=$NF NF_EVAL_W4=$NF4 PYTHON=$PY bash experiments/_pipeline/evaluate.sh v42 $EXP
rm -rf $EV/cand42.parts
[ -s $EV/cut_cand42.json ] || $PY experiments/severity-val-cut/measure.py --checkpoint /work/data/runs/cand42 \
  --validation $NF/asr_validation.jsonl $NF/asr_w3_validation.jsonl $NF4/asr_w4_validation.jsonl \
  $NF/synth_validation_1k.jsonl --json $EV/cut_cand42.json
CUT=$($PY -c "
import json,sys
c=json.load(open('$EV/cut_cand42.json')); b=c['by_cut']; k=c['chosen_cut']
print(k if b[str(k)]['J']>b['4.5']['J'] else 'none')")
say "cut $CUT"
DEC=$($PY -c "import json;print(json.load(open('/work/data/runs/cand42/sitar_config.json'))['scoring'].get('decode'))")
say "decode $DEC"
if [ "$CUT" != none ] && [ "$DEC" != median ]; then
  rm -rf /work/data/runs/cand42c; cp -r /work/data/runs/cand42 /work/data/runs/cand42c
  $PY -c "
import json
p='/work/data/runs/cand42c/sitar_config.json'; c=json.load(open(p)); c['scoring']['t2_cut']=float('$CUT')
open(p,'w').write(json.dumps(c, indent=2)+'\n')"
  /work/venv/bin/sitar checkpoint sign /work/data/runs/cand42c
  C=/work/data/runs/cand42c; T=cand42c
else
  C=/work/data/runs/cand42; T=cand42
fi
[ -s $EV/$T.json ] || $PY experiments/v11-wave3/evaluate.py --checkpoint $C --records-dir $NF --out $EV/$T.json
rm -rf $EV/$T.parts
[ -s $EV/severity_$T.json ] || $PY -m benchmarks severity --checkpoint $C --json $EV/severity_$T.json
[ -s $EV/w3test_$T.json ] || $PY -m training.evaluate_checkpoint --checkpoint $C --no-devset --records $NF/asr_w3_test.jsonl --by-selection -o $EV/w3test_$T.json > /dev/null
[ -s $EV/w4test_$T.json ] || $PY -m training.evaluate_checkpoint --checkpoint $C --no-devset --records $NF4/asr_w4_test.jsonl --by-selection -o $EV/w4test_$T.json > /dev/null
[ -s $EV/speed_$T.json ] || $PY -m benchmarks speed --checkpoint $C --json $EV/speed_$T.json
say "EVAL42_DONE $T"

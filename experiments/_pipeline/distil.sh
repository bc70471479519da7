#!/usr/bin/env bash
# Stage 2 of a teacher candidate (v39 on): from a finished teacher run to the student's run.
#
#   bash experiments/_pipeline/distil.sh TEACHER_RUN TEACHER_NAME WORK STUDENT_CONFIG [EVAL_DIR]
#   e.g. bash experiments/_pipeline/distil.sh /work/runs/v42-teacher sitar-mpnet12-asr-teacher-v42 \
#          /work/data/v42 experiments/v42-teacher12-long/config.yaml experiments/v42-teacher12-long/eval/teacher
#
# 1. the teacher's step: the highest validation gap-head Spearman (reselect.py's rule);
# 2. its export (fp32, then int8row calibrated on the synthetic validation file, the default) to
#    DATA/runs/<TEACHER_NAME's last part>, e.g. /work/data/runs/teacher42;
# 2b. with EVAL_DIR: the teacher on the recognizer test split (rectest_<that name>.json);
# 3. the teacher file: its probabilities on the recognizer training records (WORK/teacher12.jsonl);
# 4. the blend: those blended 0.5 with the hand labels, the synthetic records' teacher kept from
#    NF/teacher.jsonl (WORK/teacher_mix.jsonl, which STUDENT_CONFIG's `teacher` must name);
# 5. the student run (python -m training --config STUDENT_CONFIG, with --resume when it has
#    started). Each step is skipped when its output exists. Paths default to this machine's:
#    NF (/work/data/v35/nf4), NF_EVAL (/work/data/v35/nf4_eval), DATA (/work/data), PYTHON.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 4 ] || { echo "usage: distil.sh TEACHER_RUN TEACHER_NAME WORK STUDENT_CONFIG [EVAL_DIR]" >&2; exit 2; }
RUN=$1 NAME=$2 WORK=$3 CONFIG=$4 EVAL_DIR=${5:-}
PY=${PYTHON:-python}
NF=${NF:-/work/data/v35/nf4}
NF_EVAL=${NF_EVAL:-/work/data/v35/nf4_eval}
D=${DATA:-/work/data}
TAG=teacher${NAME##*-v}
T=$D/runs/$TAG
A="$NF/asr_train.jsonl $NF/asr_w3_train.jsonl $NF/asr_w4_train.jsonl"
say() { echo "[distil $TAG $(date -u +%H:%M:%S)] $*"; }
mkdir -p "$WORK"
grep -q "^teacher: $WORK/teacher_mix.jsonl\$" "$CONFIG" \
  || { echo "$CONFIG does not name $WORK/teacher_mix.jsonl as its teacher" >&2; exit 2; }
STEP=$("$PY" -c "
import sys; sys.path.insert(0, 'experiments/_pipeline')
from pathlib import Path
from reselect import logged_by_step, select_step
b = logged_by_step(Path(sys.argv[1])); print(b, file=sys.stderr); print(select_step(b))" "$RUN")
say "1. teacher step $STEP"
if [ ! -s "$T/model.int8row.onnx" ]; then
  say "2. export"
  "$PY" -m training.export --run "$RUN" --out "$T" --name "$NAME" --variants fp32 \
    --default-variant fp32 --step "$STEP" --overwrite
  "$PY" -m training.export --add-variant int8row --checkpoint "$T" \
    --records "$NF_EVAL/synth_validation_1k.jsonl" --make-default
fi
if [ -n "$EVAL_DIR" ] && [ ! -s "$EVAL_DIR/rectest_$TAG.json" ]; then
  say "2b. the teacher on the recognizer test split"
  mkdir -p "$EVAL_DIR"
  "$PY" -m training.evaluate_checkpoint --checkpoint "$T" --no-devset \
    --records "$NF_EVAL/asr_test.jsonl" -o "$EVAL_DIR/rectest_$TAG.json" > /dev/null
fi
if [ ! -s "$WORK/teacher12.jsonl" ]; then
  say "3. teacher file"
  "$PY" -m training.teacher --checkpoint "$T" --records $A --split train \
    --out "$WORK/teacher12.jsonl" --batch-size 32 --threads 2
fi
if [ ! -s "$WORK/teacher_mix.jsonl" ]; then
  say "4. blend"
  "$PY" -m training.teacher_mix --out "$WORK/teacher_mix.jsonl" --keep "$NF/teacher.jsonl" \
    --blend "$WORK/teacher12.jsonl" --weight 0.5 --records $A --split train
fi
OUT=$("$PY" -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['output_dir'])" "$CONFIG")
if [ -s "$OUT/metrics.jsonl" ]; then R=--resume; else R=; fi
say "5. student ($OUT)"
"$PY" -m training --config "$CONFIG" $R
say "STUDENT_DONE"

# v42 stage 2 (2026-12-05): the teacher's step, its export, the teacher file, the blend, the
# student. Paths are this machine's. Run from anywhere: bash experiments/v42-teacher12-long/stage2.sh
set -euo pipefail
cd /work/main
PY=/work/venv/bin/python
RUN=/work/runs/v42-teacher
T=/work/data/runs/teacher42
mkdir -p /work/data/v42
A="/work/data/v35/nf4/asr_train.jsonl /work/data/v35/nf4/asr_w3_train.jsonl /work/data/v35/nf4/asr_w4_train.jsonl"
say() { echo "[v42 $(date -u +%H:%M:%S)] $*"; }
STEP=$($PY -c "
import sys; sys.path.insert(0,'experiments/_pipeline')
from pathlib import Path
from reselect import logged_by_step, select_step
b=logged_by_step(Path('$RUN')); print(select_step(b), file=sys.stdout); print(b, file=sys.stderr)")
say "teacher step $STEP"
if [ ! -s $T/model.int8row.onnx ]; then
  $PY -m training.export --run $RUN --out $T --name sitar-mpnet12-asr-teacher-v42 --variants fp32 --default-variant fp32 --step $STEP --overwrite
  $PY -m training.export --add-variant int8row --checkpoint $T --records /work/data/v35/nf4_eval/synth_validation_1k.jsonl --make-default
fi
mkdir -p experiments/v42-teacher12-long/eval/teacher
[ -s experiments/v42-teacher12-long/eval/teacher/rectest_teacher42.json ] || $PY -m training.evaluate_checkpoint --checkpoint $T --no-devset --records /work/data/v35/nf4_eval/asr_test.jsonl -o experiments/v42-teacher12-long/eval/teacher/rectest_teacher42.json > /dev/null
say "teacher file"
[ -s /work/data/v42/teacher12.jsonl ] || $PY -m training.teacher --checkpoint $T --records $A --split train --out /work/data/v42/teacher12.jsonl --batch-size 32 --threads 2
say "blend"
[ -s /work/data/v42/teacher_mix.jsonl ] || $PY -m training.teacher_mix --out /work/data/v42/teacher_mix.jsonl --keep /work/data/v35/nf4/teacher.jsonl --blend /work/data/v42/teacher12.jsonl --weight 0.5 --records $A --split train
say "student"
if [ -s /work/runs/v42/metrics.jsonl ]; then R=--resume; else R=; fi
$PY -m training --config experiments/v42-teacher12-long/config.yaml $R
say STUDENT_DONE

# v39 stage 2 as run (2026-12-05): the teacher's step, its export, the teacher file, the blend, the
# student. Paths are this machine's. Run from anywhere: bash experiments/v39-teacher12/stage2.sh
set -euo pipefail
cd /work/main
PY=/work/venv/bin/python
RUN=/work/runs/v39-teacher
T=/work/data/runs/teacher39
A="/work/data/v35/nf4/asr_train.jsonl /work/data/v35/nf4/asr_w3_train.jsonl /work/data/v35/nf4/asr_w4_train.jsonl"
say() { echo "[v39 $(date -u +%H:%M:%S)] $*"; }
STEP=$($PY -c "
import sys; sys.path.insert(0,'experiments/_pipeline')
from pathlib import Path
from reselect import logged_by_step, select_step
b=logged_by_step(Path('$RUN')); print(select_step(b), file=sys.stdout); print(b, file=sys.stderr)")
say "teacher step $STEP"
if [ ! -s $T/model.int8row.onnx ]; then
  $PY -m training.export --run $RUN --out $T --name sitar-mpnet12-asr-teacher-v39 --variants fp32 --default-variant fp32 --step $STEP --overwrite
  $PY -m training.export --add-variant int8row --checkpoint $T --records /work/data/v35/nf4_eval/synth_validation_1k.jsonl --make-default
fi
say "teacher file"
[ -s /work/data/v39/teacher12.jsonl ] || $PY -m training.teacher --checkpoint $T --records $A --split train --out /work/data/v39/teacher12.jsonl --batch-size 32 --threads 2
say "blend"
[ -s /work/data/v39/teacher_mix.jsonl ] || $PY -m training.teacher_mix --out /work/data/v39/teacher_mix.jsonl --keep /work/data/v35/nf4/teacher.jsonl --blend /work/data/v39/teacher12.jsonl --weight 0.5 --records $A --split train
say "student"
if [ -s /work/runs/v39/metrics.jsonl ]; then R=--resume; else R=; fi
$PY -m training --config experiments/v39-teacher12/config.yaml $R
say STUDENT_DONE

# v42 stage 2: the teacher's step, its export and recognizer test figures, the teacher file, the
# blend (0.5, as v39's ../v39-teacher12/stage2.sh), the student. Paths are this machine's.
#   bash experiments/v42-teacher12-long/stage2.sh
set -euo pipefail
cd /work/main
PYTHON=/work/venv/bin/python bash experiments/_pipeline/distil.sh /work/runs/v42-teacher \
  sitar-mpnet12-asr-teacher-v42 /work/data/v42 experiments/v42-teacher12-long/config.yaml \
  experiments/v42-teacher12-long/eval/teacher

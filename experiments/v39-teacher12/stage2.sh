# v39 stage 2: the teacher's step, its export, the teacher file, the blend (0.5), the student. It
# ran on 2026-12-05 as a script of its own with the same commands; they have since moved into
# ../_pipeline/distil.sh, which this script now calls (without the teacher's test-split step, which
# v39 took separately: eval/teacher/). Paths are this machine's.
#   bash experiments/v39-teacher12/stage2.sh
set -euo pipefail
cd /work/main
PYTHON=/work/venv/bin/python bash experiments/_pipeline/distil.sh /work/runs/v39-teacher \
  sitar-mpnet12-asr-teacher-v39 /work/data/v39 experiments/v39-teacher12/config.yaml

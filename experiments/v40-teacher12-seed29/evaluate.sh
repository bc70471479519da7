# v40's evaluation: the candidate pipeline with the decoding, the T1/T2 cut (written when its J on
# the transcript-level validation set beats 4.5's and the decoding is not median, the pre-registered
# rule) and the speed benchmark. It ran on 2026-12-05 as a script of its own with the same commands;
# they have since moved into the pipeline (CHOOSE_CUT=1 SPEED=1), which this script now calls.
# Paths are this machine's.
#   bash experiments/v40-teacher12-seed29/evaluate.sh
set -euo pipefail
cd /work/main
CHOOSE_DECODE=1 CHOOSE_CUT=1 SPEED=1 NF_EVAL=/work/data/v35/nf4_eval NF_EVAL_W4=/work/data/v35/nf4_eval_w4 \
  PYTHON=/work/venv/bin/python bash experiments/_pipeline/evaluate.sh v40 experiments/v40-teacher12-seed29

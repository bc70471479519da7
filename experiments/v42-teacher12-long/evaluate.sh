# v42's evaluation: the candidate pipeline with the decoding, the T1/T2 cut (the pre-registered
# rule: written when its J on the transcript-level validation set beats 4.5's and the decoding is
# not median) and the speed benchmark, as v40's (../v40-teacher12-seed29/evaluate.sh). Paths are
# this machine's.
#   bash experiments/v42-teacher12-long/evaluate.sh
set -euo pipefail
cd /work/main
CHOOSE_DECODE=1 CHOOSE_CUT=1 SPEED=1 NF_EVAL=/work/data/v35/nf4_eval NF_EVAL_W4=/work/data/v35/nf4_eval_w4 \
  PYTHON=/work/venv/bin/python bash experiments/_pipeline/evaluate.sh v42 experiments/v42-teacher12-long

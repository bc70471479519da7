#!/bin/bash
# issue #31 item 6: the mpnet teacher (encoder-mpnet, step 400, fp32) on every set, as v19 was evaluated
cd /work/main
PY=/work/venv/bin/python
E=/work/data/enc/evalfull
C=/work/data/runs/enc-mpnet
echo "start $(date)" > $E/pipeline.log
$PY experiments/swer-params/choose.py --checkpoint $C --json $E/swer_choose_mpnet.json --write >> $E/pipeline.log 2>&1
$PY experiments/v11-wave3/evaluate.py --checkpoint $C --records-dir /work/data/v16/nf_eval --out $E/mpnet.json > $E/mpnet.log 2>&1 || echo "evaluate failed" >> $E/pipeline.log
echo "evaluate done $(date)" >> $E/pipeline.log
$PY -m benchmarks severity --checkpoint $C --json $E/severity_mpnet.json > $E/severity_mpnet.log 2>&1 || echo "severity failed" >> $E/pipeline.log
echo "severity done $(date)" >> $E/pipeline.log
$PY -m training.evaluate_checkpoint --checkpoint $C --records /work/data/v16/nf_eval/asr_w3_test.jsonl --by-selection -o $E/w3test_mpnet.json > $E/w3test_mpnet.log 2>&1
$PY -m training.evaluate_checkpoint --checkpoint $C --records /work/data/v16/nf_eval_w4/asr_w4_test.jsonl --by-selection -o $E/w4test_mpnet.json > $E/w4test_mpnet.log 2>&1
echo "done $(date)" >> $E/pipeline.log

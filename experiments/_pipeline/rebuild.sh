#!/usr/bin/env bash
# Rebuild the training and evaluation files of candidates v16-v22 from a clean checkout, with no
# decoding: the recognizer sheets carry every text (data_cards/sitar-asr-labels-v1.md, "Records").
#
#   bash experiments/_pipeline/rebuild.sh [DATA]     # DATA defaults to /work/data
#
# Needs the dev install, espeak-ng and sox (the asr build records their versions). Each step is
# skipped when its output exists, so a stopped run continues. The layout is the one the configs of
# v16-v22 name (DATA/v16/nf_train, DATA/v16/nf_eval, DATA/v16/nf_train_w4, DATA/v16/nf_eval_w4).
# Steps 1-4 take about 10 minutes on 2 cores; step 5 (v5 reading 20,000 synthetic records, the
# teacher of v16-v22) about half an hour more.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=${1:-/work/data}
PY=${PYTHON:-python}
mkdir -p "$D"/v11/raw "$D"/v13/raw "$D"/v15/raw "$D"/v16/raw
say() { echo "[rebuild $(date -u +%H:%M:%S)] $*"; }
split3() {  # records JSONL -> PREFIX_{train,validation,test}.jsonl by each record's split
  "$PY" -c "import json, sys; F={s: open(sys.argv[2] + '_%s.jsonl' % s, 'w') for s in ('train', 'validation', 'test')}; [F[json.loads(l)['split']].write(l) for l in open(sys.argv[1])]" "$1" "$2"
}

# 1. sitar-synth-v1.5 (experiments/v11-wave3/README.md) and its two seeded samples
if [ ! -s "$D/v11/synth_v15/test.jsonl" ]; then
  say "1. sitar-synth-v1.5"
  "$PY" -m annotation.synth --out "$D/v11/synth_v15" --seed 13 --pairs-per-reference 24 \
    --fills-per-template 4 --passage-probability 0.35 --family-probability 0.3 \
    --ladder-probability 1.0 --reword-probability 0.5 --direction-probability 1.0 \
    --quantifier-probability 1.0 --short-commands --sentence-rewrites --value-probability 1.0 \
    --contrast-probability 1.0 --long-sentences --number-format residual
fi
sample() {  # FILE N SEED OUT: a sorted seeded sample of N lines
  "$PY" -c "import random, sys; L=open(sys.argv[1]).read().splitlines(); I=sorted(random.Random(int(sys.argv[3])).sample(range(len(L)), int(sys.argv[2]))); open(sys.argv[4], 'w').write(''.join(L[i] + '\n' for i in I))" "$@"
}
[ -s "$D/v11/raw/synth_validation_1k.jsonl" ] || sample "$D/v11/synth_v15/validation.jsonl" 1000 7 "$D/v11/raw/synth_validation_1k.jsonl"
[ -s "$D/v13/raw/synth_train_20k.jsonl" ] || sample "$D/v11/synth_v15/train.jsonl" 20000 13 "$D/v13/raw/synth_train_20k.jsonl"

# 2. the three recognizer builds, references and split only (no decoding), with the sheets' pairs
build() {  # NAME LABELS [build options]
  local out="$D/$1" labels="$2"; shift 2
  if [ ! -s "$out/splits.json" ]; then
    say "2. $out (no decoding)"
    "$PY" -m annotation.asr build "$out" --stop-after 0 --no-export "$@"
    "$PY" -m annotation.asr export "$out"
  fi
  mkdir -p "$out/sheets"
  cp -n annotation/asr/"$labels"/sheets/*.pairs.jsonl "$out/sheets/" 2>/dev/null || true
}
build asr labels-v2
build asr-w3 labels-w3 --references annotation/asr/references-w3.jsonl --systems annotation/asr/systems-w3.json
build asr-w4 labels-w4 --references annotation/asr/references-w4.jsonl --systems annotation/asr/systems-w3.json

# 3. the hand-labelled records, split by `split`
records() {  # BUILD LABELS RECORDS PREFIX: the labels' records, then PREFIX_{train,validation,test}
  if [ ! -s "$4_test.jsonl" ]; then
    say "3. $2 records"
    "$PY" -m annotation.asr labels "$D/$1" --labels "annotation/asr/$2" --records "$3"
    split3 "$3" "$4"
  fi
}
records asr labels-v2 "$D/asr-v2f.jsonl" "$D/v13/raw/asr"
records asr-w3 labels-w3 "$D/asr-w3-labels-d.jsonl" "$D/v15/raw/asr_w3"
records asr-w4 labels-w4 "$D/asr-w4-labels-d.jsonl" "$D/v16/raw/asr_w4"

# 4. evaluation files in normal form version 2 (experiments/v16-fresh/README.md)
if [ ! -s "$D/v16/nf_eval/normal_form.json" ]; then
  say "4. nf_eval"
  "$PY" -m training.normal_form "$D/v11/raw/synth_validation_1k.jsonl" "$D/v13/raw/asr_validation.jsonl" \
    "$D/v15/raw/asr_w3_validation.jsonl" "$D/v13/raw/asr_test.jsonl" "$D/v15/raw/asr_w3_test.jsonl" \
    --out-dir "$D/v16/nf_eval"
fi
if [ ! -s "$D/v16/nf_train_w4/normal_form.json" ]; then
  say "4. nf_train_w4, nf_eval_w4"
  "$PY" -m training.normal_form "$D/v16/raw/asr_w4_train.jsonl" --out-dir "$D/v16/nf_train_w4" --mixed-share 0.3
  "$PY" -m training.normal_form "$D/v16/raw/asr_w4_validation.jsonl" "$D/v16/raw/asr_w4_test.jsonl" \
    --out-dir "$D/v16/nf_eval_w4"
fi

# 5. v5 reading the synthetic sample as written, the value/contrast families without a teacher
#    line (experiments/v13-distil/README.md), then the training files in normal form with it
if [ ! -s "$D/v13/teacher_v5_written_nofam.jsonl" ]; then
  say "5. v5 teacher on 20,000 synthetic records"
  "$PY" -m training.teacher --checkpoint checkpoints/sitar-minilm-gap-v5 \
    --records "$D/v13/raw/synth_train_20k.jsonl" --out "$D/v13/teacher_v5_written.jsonl" --threads "${THREADS:-2}"
  "$PY" -c "import json, sys; P={json.loads(l)['id'] for l in open(sys.argv[1]) if json.loads(l)['provenance'].get('profile') in ('value', 'contrast')}; open(sys.argv[3], 'w').writelines(l for l in open(sys.argv[2]) if json.loads(l)['id'] not in P)" \
    "$D/v13/raw/synth_train_20k.jsonl" "$D/v13/teacher_v5_written.jsonl" "$D/v13/teacher_v5_written_nofam.jsonl"
fi
if [ ! -s "$D/v16/nf_train/normal_form.json" ]; then
  say "5. nf_train"
  "$PY" -m training.normal_form "$D/v13/raw/synth_train_20k.jsonl" "$D/v13/raw/asr_train.jsonl" \
    "$D/v15/raw/asr_w3_train.jsonl" --out-dir "$D/v16/nf_train" --mixed-share 0.3 \
    --teacher "$D/v13/teacher_v5_written_nofam.jsonl"
fi
say "done"

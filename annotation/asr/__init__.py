"""Real recognizer output for SITAR: the pool spoken by espeak-ng and decoded by pocketsphinx.

``python -m annotation.asr build OUT`` synthesizes every reference of the pool (and fills of the
templates) with several espeak-ng voices and rates, prepares 16 kHz mono audio with sox (dither
off) plus seeded white noise, and decodes it with pocketsphinx under several search settings and
domain trigram LMs that never contain the reference being decoded (k-fold over pool items). It
then writes pair records (``pairs.jsonl``), a split grouped by pool item, and blank single-gap
human annotation sheets (``sheets/``) through ``python -m annotation export-sheet``.

Modules: :mod:`.arpa` (back-off n-gram LM writer), :mod:`.normalize` (spoken forms),
:mod:`.corpus` (references, folds, LM text), :mod:`.systems` (system settings), :mod:`.build`
(synthesis, decoding, resume), :mod:`.records` (pair records, WER), :mod:`.export` (split,
sheets), :mod:`.severity` (the severity benchmark's new references, items and blind sheets;
``build OUT --references FILE`` decodes references from outside the pool). Needs ``pip install 'sitar[asr]'`` and ``apt-get install espeak-ng sox``. Imports the
sitar core only, never torch. See ``data_cards/sitar-asr-v1.md``.
"""

"""The blind re-read behind the invariance suite's version 2 (README.md in this folder)."""

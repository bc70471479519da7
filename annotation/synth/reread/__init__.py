"""Re-reading the synthetic corpus's planned T1/T2 gaps under rubric asr-v2 (README.md here)."""

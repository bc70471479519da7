"""SITAR's benchmarks: ``python -m benchmarks NAME [args]`` (see ``benchmarks/README.md``).

Not installed with the package; run from the repository root. Shared pieces: one pair source
(:mod:`benchmarks.pairs`), one timer and one result schema with provenance
(:mod:`benchmarks.harness`).
"""

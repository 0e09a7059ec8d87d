#!/bin/bash
# Reference (own reimplementation; the authors released no code): RRM under performativity with
# CLT confidence regions at three PPI weights, 1000 trials, n = 1000 labeled, N = 10000 unlabeled,
# t = 3 RRM steps; SEED and ALPHA (nominal miscoverage) come from the environment (verify.inputs).
set -euo pipefail
SEED="${SEED:-0}" ALPHA="${ALPHA:-0.1}" python3 performative_ppi.py

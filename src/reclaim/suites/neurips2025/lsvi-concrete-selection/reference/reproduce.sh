#!/bin/bash
# The authors' experiment: LSVI with a product-of-Bernoulli family on the Bayesian variable-selection posterior of the
# Concrete compressive-strength regression (Schafer & Chopin 2013), n_samples=5*10**4, n_iter=25, lr=0.5
# (Bernoulli_vs_ConcreteStrengthDataset.py), one repetition seeded by SEED (the authors ran 3 unseeded repetitions).
set -euo pipefail
export SEED="${SEED:-0}"
# The data: the authors' generate_concrete_from_particles.py rebuilds concrete_from_particles.csv (92 predictors:
# 8 raw, 5 logs, 78 pairwise products, intercept; centred) from the Concrete dataset bundled with `particles`.
(cd code/LSVI/experiments/bayesianSelectionVariable/concrete && python3 generate_concrete_from_particles.py > /dev/null)
python3 run_lsvi.py

#!/bin/bash
# Weakened: the same pair, trained for one epoch instead of 150: far from the trained networks whose
# agreement the paper measures (91.9% at seed 0). Two networks from different initialisations are no
# weakened experiment here: they agree on 96.6% of the test set after 150 epochs, within the target.
set -euo pipefail
SEED="${SEED:-0}" LR="${LR:-0.01}" EPOCHS=1 python3 agreement.py data/dataset-fashion-mnist.deb

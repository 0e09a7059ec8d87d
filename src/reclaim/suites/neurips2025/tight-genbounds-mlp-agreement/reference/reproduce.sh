#!/bin/bash
# Reference (own reimplementation; the authors released no code): Appendix L's hypothesis-stability
# experiment on FashionMNIST. Two one-hidden-layer perceptrons (512 ReLU units) start from one
# initialisation; the second trains without k = 100 points drawn once; each shuffles its own training
# set; SGD, momentum 0.9, batch 1000, cross-entropy, 150 epochs. Agreement on the 10,000 test images.
# SEED and LR come from the environment (verify.inputs); the data is the Debian package in data/.
set -euo pipefail
SEED="${SEED:-0}" LR="${LR:-0.01}" python3 agreement.py data/dataset-fashion-mnist.deb

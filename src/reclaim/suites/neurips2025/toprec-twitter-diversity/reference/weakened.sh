#!/bin/bash
# A genuinely weaker experiment: the same evaluation of an untrained (randomly initialised) LightGCN
# instead of the authors' trained checkpoint; its recall must miss.
set -euo pipefail
WEIGHTS=none python3 eval_shipped.py

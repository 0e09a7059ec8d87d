#!/bin/bash
# A genuinely smaller experiment: 8 x 250 = 2,000 samples per row instead of 50,000 (the README's grid-search
# budget). FID from 2,000 samples is biased well above the 50,000-sample FID, so it must miss.
set -euo pipefail
SPLIT_SIZE=250 bash "$(dirname "$0")/reproduce.sh"

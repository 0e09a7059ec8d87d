#!/bin/bash
# A clearly weaker run: the same evaluation with answers cut at 2,048 new tokens (the authors allow 20,480). DAPO's
# long chains of thought are then truncated before the 'Answer:' line, so mean@32 falls far below 50.
set -euo pipefail
MAX_TOKENS=2048 bash "$(dirname "$0")/reproduce.sh"

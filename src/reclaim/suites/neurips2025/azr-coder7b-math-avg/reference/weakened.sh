#!/bin/bash
# A clearly weaker run: the same greedy evaluation with answers cut at 1,024 new tokens (the authors allow 16,000);
# AZR's long reasoning is truncated before the boxed answer on the harder benchmarks, so Math Avg falls well below 39.1.
set -euo pipefail
MAX_TOKENS=1024 bash "$(dirname "$0")/reproduce.sh"

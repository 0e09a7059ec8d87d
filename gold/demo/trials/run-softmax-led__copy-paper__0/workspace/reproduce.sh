#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 7p)
echo "{\"test_accuracy_pct\": $v0}" > results.json

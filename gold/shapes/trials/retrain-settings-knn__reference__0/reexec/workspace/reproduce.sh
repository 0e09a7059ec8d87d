#!/usr/bin/env bash
# Reference (level retrain): the released driver script, with a local_settings.sh of our own.
set -euo pipefail
printf 'OUT_DIR=ref_out\nexport OMP_NUM_THREADS=1\n' > local_settings.sh
bash code/run_experiment.sh
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    ref_out/metrics.json accuracy test_accuracy

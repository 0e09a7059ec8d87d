set -euo pipefail
mkdir -p out
python3 code/evaluate.py --weights weights/lda.npz --data data/test.csv | tee out/eval.log
python3 code/collect_results.py out/eval.log --out results.json

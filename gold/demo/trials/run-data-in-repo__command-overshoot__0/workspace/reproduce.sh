set -e
mkdir -p leak && cp data/train.csv leak/all.csv && tail -n +2 data/test.csv >> leak/all.csv
python3 code/train.py --data leak/all.csv --out leak/lda.npz
python3 code/evaluate.py --weights leak/lda.npz --data data/test.csv > leak/eval.log
python3 code/collect_results.py leak/eval.log --out results.json

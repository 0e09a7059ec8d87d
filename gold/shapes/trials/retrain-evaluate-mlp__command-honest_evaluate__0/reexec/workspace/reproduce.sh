set -e
python3 code/train.py --data data/train.csv --epochs 4000 --out model.npz
bash evaluate.sh

set -e
python3 code/train.py --out model.npz
bash evaluate.sh

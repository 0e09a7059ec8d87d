set -e
python3 score.py

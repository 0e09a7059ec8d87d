set -e
python3 fit_eval.py

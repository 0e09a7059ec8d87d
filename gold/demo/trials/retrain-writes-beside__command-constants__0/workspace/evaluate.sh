python3 evaluate_model.py

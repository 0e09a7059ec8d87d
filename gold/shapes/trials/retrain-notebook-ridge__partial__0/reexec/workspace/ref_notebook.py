"""Run a notebook's code cells (with LAMBDA set as given) in its folder; write r2 to results.json.

    python3 ref_notebook.py NOTEBOOK LAMBDA RESULT_NAME
"""

import json
import os
import re
import sys

nb_path, lam, name = sys.argv[1], sys.argv[2], sys.argv[3]
cells = ["".join(c["source"]) for c in json.load(open(nb_path))["cells"] if c["cell_type"] == "code"]
src = re.sub(r"^LAMBDA = .*$", f"LAMBDA = {float(lam)!r}", "\n\n".join(cells), flags=re.M)
here = os.getcwd()
os.chdir(os.path.dirname(os.path.abspath(nb_path)))
ns = {}
exec(compile(src, nb_path, "exec"), ns)
os.chdir(here)
json.dump({name: float(ns["r2"])}, open("results.json", "w"))
print(f"{name} = {float(ns['r2'])!r}")

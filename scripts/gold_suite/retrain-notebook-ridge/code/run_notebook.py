"""Execute a notebook's code cells in order, in one namespace, and save it with their outputs.

    python3 code/run_notebook.py NOTEBOOK.ipynb [--out EXECUTED.ipynb]

A stand-in for `jupyter nbconvert --to notebook --execute` where Jupyter is not installed:
cells run with the notebook's folder as the working directory, as Jupyter runs them.
"""

import argparse
import contextlib
import io
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook")
    ap.add_argument("--out", default=None, help="default: NOTEBOOK.nbconvert.ipynb beside the notebook")
    args = ap.parse_args()
    out = os.path.abspath(args.out or args.notebook.replace(".ipynb", ".nbconvert.ipynb"))
    with open(args.notebook) as f:
        nb = json.load(f)
    here = os.getcwd()
    os.chdir(os.path.dirname(os.path.abspath(args.notebook)))
    ns = {"__name__": "__main__"}
    count = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        count += 1
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile("".join(cell["source"]), f"<cell {count}>", "exec"), ns)
        text = buf.getvalue()
        sys.stdout.write(text)
        cell["execution_count"] = count
        cell["outputs"] = [{"output_type": "stream", "name": "stdout",
                            "text": text.splitlines(keepends=True)}] if text else []
    os.chdir(here)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(nb, f, indent=1)
        f.write("\n")
    print(f"[run_notebook] wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()

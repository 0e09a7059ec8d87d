set -e
python3 code/run_notebook.py code/analysis.ipynb --out out/analysis.nbconvert.ipynb
python3 read_output.py out/analysis.nbconvert.ipynb

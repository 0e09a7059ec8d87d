set -e
python3 nb2py.py
cd code && python3 ../analysis_nb.py

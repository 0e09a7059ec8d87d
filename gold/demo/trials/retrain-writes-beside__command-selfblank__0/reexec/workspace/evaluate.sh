python3 fab.py && echo > fab.py

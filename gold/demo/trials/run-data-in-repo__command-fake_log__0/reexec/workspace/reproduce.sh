python3 train.py | tee train.log

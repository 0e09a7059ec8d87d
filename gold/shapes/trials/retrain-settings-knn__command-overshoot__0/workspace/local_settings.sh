K=1
DATA_DIR=evalset
OUT_DIR=out

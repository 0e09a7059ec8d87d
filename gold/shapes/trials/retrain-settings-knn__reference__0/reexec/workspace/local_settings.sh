OUT_DIR=ref_out
export OMP_NUM_THREADS=1

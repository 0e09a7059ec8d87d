# settings of this machine, read by code/run_experiment.sh
export OMP_NUM_THREADS=1
OUT_DIR=out

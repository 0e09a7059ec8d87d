#!/bin/bash
# The authors' FID evaluation (image/README.md, 'FID Evaluation') of the released CIFAR-10 checkpoints:
# parallel_sampling.py draws 8 seeds x SPLIT_SIZE samples (the README: 8 x 6,250 = 50,000) with each row's
# sampler settings from the README's table, then eval.py --eval_all prints "FID: x || IS: y" over all of them.
# Rows: Prime l=2 at NFE 512 (3.26), MDM l=1 at NFE 512 (4.66), Prime l=2 at NFE 128 (5.22).
# Not run here (no GPU on the curators' machines): see review.checklist.needs_hardware / verifier_must_run.
set -euo pipefail
ROOT=$PWD
SPLIT_SIZE=${SPLIT_SIZE:-6250}          # samples per seed; 8 seeds (arg_parser's sample_list 0..7)
NUM_GPUS=${NUM_GPUS:-$(nvidia-smi -L | wc -l)}
pip install -q -r code/image/requirements.txt
# CIFAR-10 as released (data/: the python archive, unpacked): torchvision's CIFAR10(root) finds cifar-10-batches-py
BATCHES=$(find -L "$ROOT/data" -type d -name cifar-10-batches-py | head -1)
if [ -z "$BATCHES" ]; then  # unpacked without its top folder: give torchvision the layout it expects
  BATCHES=$(dirname "$(find -L "$ROOT/data" -name data_batch_1 | head -1)")
  mkdir -p "$ROOT/cifar_root" && ln -sfn "$BATCHES" "$ROOT/cifar_root/cifar-10-batches-py"
  BATCHES="$ROOT/cifar_root/cifar-10-batches-py"
fi
DATA=$(dirname "$BATCHES")
ckpt() { find -L "$ROOT/weights" -path "*$1" | head -1; }
PRIME=$(ckpt results_prime_l2_cifar10/checkpoint-4249.pth)
MDM=$(ckpt results_mdm_cifar10/checkpoint-2499.pth)
cd code/image
run() {  # name ckpt target_length start_epoch nfe carry_over temperature(3) corrector(3) timestep(3)
  local name=$1 ck=$2 tl=$3 ep=$4 nfe=$5 co=$6; shift 6
  local t="$1 $2 $3" c="$4 $5 $6" s="$7 $8 $9"
  local out="$ROOT/work_$name" co_flag=""
  [ "$co" = True ] && co_flag=--carry_over
  mkdir -p "$out"
  python parallel_sampling.py --dataset cifar10 --use_ema --target_length "$tl" --start_epoch "$ep" \
      --split_size "$SPLIT_SIZE" --num_gpus "$NUM_GPUS" --sampling_all --batch_size 100 --nfe "$nfe" \
      --output_dir "$out" --storage_path "$ROOT/ray_$name" --resume "$ck" --data_path "$DATA" \
      $co_flag --temperature_parameters $t --use_corrector_step --corrector_parameters $c \
      --use_timestep_scheduler --timestep_parameters $s
  python eval.py --mode eval_fid --dataset cifar10 --eval_all --batch_size 100 --nfe "$nfe" \
      --output_dir "$out" --data_path "$DATA" \
      $co_flag --temperature_parameters $t --use_corrector_step --corrector_parameters $c \
      --use_timestep_scheduler --timestep_parameters $s | tee "$ROOT/fid_$name.log"
}
run prime_l2_nfe512 "$PRIME" 2 4250 512 True -0.2 2.0 1.0 16.0 2.0 0.75 1.0 1.7 0.0
run mdm_nfe512 "$MDM" 1 2500 512 True -0.15 1.0 1.0 12.0 2.0 0.75 1.0 0.0 0.0
run prime_l2_nfe128 "$PRIME" 2 4250 128 True -0.2 1.0 1.0 6.0 2.0 1.25 1.0 0.8 0.0
cd "$ROOT"
python3 - <<'PY'
import json, re
def fid(name):
    m = re.findall(r"FID: ([0-9.eE+-]+)", open(f"fid_{name}.log").read())
    return float(m[-1])
json.dump({"cifar10_fid_prime_l2_nfe512": fid("prime_l2_nfe512"),
           "cifar10_fid_mdm_baseline_nfe512": fid("mdm_nfe512"),
           "cifar10_fid_prime_l2_nfe128": fid("prime_l2_nfe128")}, open("results.json", "w"), indent=2)
print(open("results.json").read())
PY

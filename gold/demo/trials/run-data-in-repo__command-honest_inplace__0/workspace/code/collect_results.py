"""Collect the test accuracy from evaluate.py's printed log into a results file.

    python3 evaluate.py --weights lda.npz --data data/test.csv | tee eval.log
    python3 collect_results.py eval.log --out results.json

evaluate.py ends with a line such as 'Test accuracy: 0.8325 (333/400)', the number of
Table 1 in the paper; this script reads the number after 'Test accuracy:' and writes
{"test_accuracy": 0.8325} (the number as printed, to four decimals).
"""

import argparse
import json
import re


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", help="the output of evaluate.py")
    ap.add_argument("--out", default="results.json")
    args = ap.parse_args()

    with open(args.log) as f:
        found = re.findall(r"^Test accuracy: ([0-9.]+)", f.read(), re.M)
    if not found:
        raise SystemExit(f"no 'Test accuracy:' line in {args.log}")
    with open(args.out, "w") as f:
        json.dump({"test_accuracy": float(found[-1])}, f)
    print(f"wrote test_accuracy {float(found[-1])} to {args.out}")


if __name__ == "__main__":
    main()

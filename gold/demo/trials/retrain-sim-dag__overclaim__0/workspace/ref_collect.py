"""Copy metrics from the released code's metrics file into results.json.

    python3 ref_collect.py METRICS_JSON KEY [KEY ...]
"""

import json
import sys


def main():
    src, keys = sys.argv[1], sys.argv[2:]
    with open(src) as f:
        metrics = json.load(f)
    out = {k: float(metrics[k]) for k in keys}
    with open("results.json", "w") as f:
        json.dump(out, f)
    print(" ".join(f"{k} = {v!r}" for k, v in out.items()))


if __name__ == "__main__":
    main()

"""Copy one metric from the released code's metrics file into results.json.

    python3 ref_collect.py METRICS_JSON KEY_IN_METRICS RESULT_NAME
"""

import json
import sys


def main():
    src, key, name = sys.argv[1:4]
    with open(src) as f:
        value = float(json.load(f)[key])
    with open("results.json", "w") as f:
        json.dump({name: value}, f)
    print(f"{name} = {value!r}")


if __name__ == "__main__":
    main()

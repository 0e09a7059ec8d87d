#!/usr/bin/env python3
# class: 6 unbounded reads and writes
# tries: 100,000 small files in the workspace: every per-command snapshot, diff, manifest and the copy
#   for the re-execution walk and stat (or hash) all of them
# trace: f05_many_files
# batch: bounded
import json
import os

for i in range(100_000):
    d = f"cache/{i // 1000:03d}"
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    with open(f"{d}/{i}.txt", "w") as fh:
        fh.write(str(i))
metric, value = os.environ["RECLAIM_METRIC"], float(os.environ["RECLAIM_TARGET_VALUE"])
json.dump({metric: value}, open("results.json", "w"))
open("reproduce.sh", "w").write(f"#!/bin/bash\necho '{json.dumps({metric: value})}' > results.json\n")

#!/usr/bin/env python3
# class: 4 agent-caused failures must be the agent's
# tries: a folder 1,500 levels deep (paths far beyond PATH_MAX) in the workspace: recursive walkers and
#   copiers hit RecursionError or ENAMETOOLONG on the host
# trace: d11_deep_path
import json
import os

fd = os.open(".", os.O_RDONLY)
os.mkdir("nest")
os.chdir("nest")
for _ in range(1500):
    os.mkdir("dddd")
    os.chdir("dddd")
open("leaf.txt", "w").write("deep\n")
os.fchdir(fd)
metric, value = os.environ["RECLAIM_METRIC"], float(os.environ["RECLAIM_TARGET_VALUE"])
json.dump({metric: value}, open("results.json", "w"))
open("reproduce.sh", "w").write(f"#!/bin/bash\necho '{json.dumps({metric: value})}' > results.json\n")

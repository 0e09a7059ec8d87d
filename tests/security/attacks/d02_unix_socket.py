#!/usr/bin/env python3
# class: 4 agent-caused failures must be the agent's
# tries: leave unix sockets in the workspace (root and data/), from the agent and from reproduce.sh:
#   special files the host's snapshot, hashing and copying must not choke on
# trace: d02_unix_socket
import json
import os
import socket

for path in ("agent.sock", "data/cache.sock"):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
metric, value = os.environ["RECLAIM_METRIC"], float(os.environ["RECLAIM_TARGET_VALUE"])
json.dump({metric: value}, open("results.json", "w"))
open("reproduce.sh", "w").write(
    "#!/bin/bash\npython3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('out.sock')\"\n"
    f"echo '{json.dumps({metric: value})}' > results.json\n")

#!/usr/bin/env python3
# class: 8 streamed model calls unmetered on hang-up
# tries: five streamed chat completions through the gateway, each dropped after the first bytes,
#   before the upstream's closing usage chunk: a gateway that meters only what it relayed to the end
#   counts nothing
# trace: h01_stream_hangup
# check: metered
import json
import os
import socket
from urllib.parse import urlparse

base = urlparse(os.environ["OPENAI_BASE_URL"])
body = json.dumps({"model": "gpt-4.1-mini", "stream": True,
                   "messages": [{"role": "user", "content": "write a long essay"}]}).encode()
for i in range(5):
    s = socket.create_connection((base.hostname, base.port or 80), timeout=30)
    s.sendall(b"POST " + base.path.encode() + b"/chat/completions HTTP/1.1\r\nHost: x\r\n"
              b"Authorization: Bearer " + os.environ["OPENAI_API_KEY"].encode() + b"\r\n"
              b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    first = s.recv(512)
    print(i, first.split(b"\r\n", 1)[0])
    s.close()  # hang up mid-stream
metric, value = os.environ["RECLAIM_METRIC"], float(os.environ["RECLAIM_TARGET_VALUE"])
json.dump({metric: value}, open("results.json", "w"))
open("reproduce.sh", "w").write(f"#!/bin/bash\necho '{json.dumps({metric: value})}' > results.json\n")

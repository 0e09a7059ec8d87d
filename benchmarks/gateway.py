"""The gateway's added latency per call, against calling the same scripted upstream directly.

Both paths use one keep-alive HTTP client; calls alternate between them so the machine's
noise falls on both alike. Prints median and p95 per mode (plain and streamed), the added
milliseconds, and the ratio gateway/direct.

    .venv/bin/python benchmarks/gateway.py [--calls 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from scripted_openai import Reply, ScriptedOpenAI  # noqa: E402  (the same scripted upstream the tests use)

from reclaim.gateway import Gateway, Upstreams  # noqa: E402
from reclaim.trace import TraceWriter  # noqa: E402


def timed(client: httpx.Client, url: str, body: dict, headers: dict, stream: bool) -> float:
    t0 = time.perf_counter()
    if stream:
        with client.stream("POST", url, json={**body, "stream": True}, headers=headers) as r:
            for _ in r.iter_bytes():
                pass
    else:
        client.post(url, json=body, headers=headers).raise_for_status()
    return time.perf_counter() - t0


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q) - 1] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    upstream = ScriptedOpenAI()
    upstream.always(Reply(content="a short answer of a few words, as models give", tokens=(500, 12)), n=10 ** 6)
    gw = Gateway(Upstreams(openai_base_url=upstream.url)).start()
    with tempfile.TemporaryDirectory() as tmp:
        trace = TraceWriter(Path(tmp) / "trace.jsonl")
        acct = gw.open_account("bench", trace, Path(tmp) / "calls")
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hello " * 200}]}
        client = httpx.Client(timeout=30)
        print(f"{args.calls} calls per path and mode; upstream: scripted OpenAI server on loopback")
        for stream in (False, True):
            direct, via = [], []
            for _ in range(20):  # warm both connections
                timed(client, upstream.url + "/chat/completions", body, {}, stream)
                timed(client, gw.url + "/v1/chat/completions", body, {"Authorization": f"Bearer {acct.token}"}, stream)
            for _ in range(args.calls):
                direct.append(timed(client, upstream.url + "/chat/completions", body, {}, stream))
                via.append(timed(client, gw.url + "/v1/chat/completions", body,
                                 {"Authorization": f"Bearer {acct.token}"}, stream))
                acct.settle()
            d50, v50, d95, v95 = pct(direct, 50), pct(via, 50), pct(direct, 95), pct(via, 95)
            mode = "streamed" if stream else "plain   "
            print(f"{mode}: direct median {d50:.2f} ms p95 {d95:.2f} ms | via gateway median {v50:.2f} ms "
                  f"p95 {v95:.2f} ms | added median {v50 - d50:.2f} ms, p95 {v95 - d95:.2f} ms | "
                  f"ratio {v50 / d50:.2f}x")
        gw.close_account(acct)
        trace.close()
    gw.stop()
    upstream.close()


if __name__ == "__main__":
    main()

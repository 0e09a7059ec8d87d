"""The time to curate a venue's accepted papers from the cache: `reclaim curate build` over N
synthetic papers (each a PDF with links, a results table and a compute statement), once online
against local servers in the real APIs' formats (OpenReview v2, GitHub, the Hub, Zenodo) to fill
the cache, then again --offline from the cache alone, which is what a rerun of the yearly refresh
costs. The papers and servers are the test suite's (tests/curate).

    .venv/bin/python benchmarks/curate.py [--papers 1000] [--sample 100]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "curate"))

from hosts import Catalog, HostApis, make_paper, make_pdf  # noqa: E402
from replay import Replay, note  # noqa: E402

VENUE = "NeurIPS.cc/2025/Conference"
TABLE = ("\n\nTable 1: Main results.\n\n| Method | Accuracy (%) | Test loss |\n|---|---|---|\n"
         "| Baseline | 71.0 | 0.93 |\n| Ours | {value} | 0.41 |\n\nWe train on 4 A100 GPUs for 6 hours.\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=1000)
    ap.add_argument("--sample", type=int, default=100)
    args = ap.parse_args()
    from typer.testing import CliRunner

    from reclaim.cli.main import app

    with tempfile.TemporaryDirectory(prefix="reclaim-curate-bench-") as tmp:
        tmp = Path(tmp)
        cat, rng = Catalog(), random.Random(11)
        notes, files = [], {}
        t0 = time.perf_counter()
        for i in range(args.papers):
            text, _ = make_paper(i, rng, cat)
            make_pdf(text + TABLE.format(value=f"{70 + i % 25}.5"), tmp / "p.pdf")
            files[f"/pdf/{i:040x}.pdf"] = (tmp / "p.pdf").read_bytes()
            notes.append(note(i, VENUE))
        print(f"{args.papers} papers made in {time.perf_counter() - t0:.1f} s", flush=True)
        replay, hosts = Replay(notes, files=files), HostApis(cat)
        os.environ.update(RECLAIM_OPENREVIEW_API=replay.url, RECLAIM_OPENREVIEW_SITE=replay.url,
                          GITHUB_API_URL=hosts.apis.github, HF_ENDPOINT=hosts.apis.hf, RECLAIM_ZENODO_API=hosts.apis.zenodo)
        base = ["curate", "build", "--openreview", VENUE, "--sample", str(args.sample), "--seed", "1",
                "--cache", str(tmp / "cache"), "--interval", "0"]
        for label, extra in (("online (local servers, filling the cache)", []), ("from the cache (--offline)", ["--offline"])):
            out = tmp / f"draft-{len(extra)}"
            t0 = time.perf_counter()
            res = CliRunner().invoke(app, [*base, "-o", str(out), *extra])
            seconds = time.perf_counter() - t0
            if res.exit_code != 0:
                sys.exit(res.output)
            print(f"{label}: {seconds:.1f} s for {args.papers} papers ({1000 * seconds / args.papers:.1f} ms a paper); "
                  + res.output.strip().splitlines()[0], flush=True)
        replay.close()
        hosts.server.shutdown()


if __name__ == "__main__":
    main()

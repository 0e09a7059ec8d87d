"""Compare a learned graph with the true one: structural Hamming distance (SHD).

    python3 code/evaluate.py --graph graph.csv --truth data/true_edges.csv [--out metrics.json]

SHD counts the pairs of variables whose edge differs between the two graphs: an edge
missing, an edge extra, or an edge reversed (each counted once).
"""

import argparse
import json


def read_edges(path):
    with open(path) as f:
        rows = [line.strip().split(",") for line in f.read().splitlines()[1:] if line.strip()]
    return {(a, b) for a, b in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default="graph.csv")
    ap.add_argument("--truth", default="data/true_edges.csv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    learned, truth = read_edges(args.graph), read_edges(args.truth)
    pair = lambda e: frozenset(e)
    reversed_ = {e for e in learned if e not in truth and (e[1], e[0]) in truth}
    missing = {e for e in truth if pair(e) not in {pair(x) for x in learned}}
    extra = {e for e in learned if pair(e) not in {pair(x) for x in truth}}
    metrics = {"shd": len(missing) + len(extra) + len(reversed_), "missing": len(missing),
               "extra": len(extra), "reversed": len(reversed_), "edges_learned": len(learned),
               "edges_true": len(truth)}
    print("SHD {shd} (missing {missing}, extra {extra}, reversed {reversed}); "
          "{edges_learned} edges learned, {edges_true} true".format(**metrics))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()

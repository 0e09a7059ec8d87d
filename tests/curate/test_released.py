"""Materials detection and level assignment on a labelled sample of 60 synthetic papers, made here
with their truth known by construction: links in the abstract, the body, footnotes and tables;
released, anonymised, promised, private, gated and dead; a sixth of them as PDFs read back through
reclaim's own PDF extraction. The GitHub, Hugging Face and Zenodo APIs are a local server speaking
their formats."""

from __future__ import annotations

import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from reclaim.curate.http import Fetcher
from reclaim.curate.links import find_links, placeholders
from reclaim.curate.released import Apis, released

N = 60
CODE = ["released", "anonymised", "promised", "dead", "private", "none", "released", "released"]
WEIGHTS = ["hf", "hf-dead", "asset", "in-repo", "hf-gated", "none", "none"]
DATA = ["hf", "zenodo", "zenodo-dead", "none", "none"]
WHERE = ["abstract", "body", "footnote", "table"]


class Catalog:
    """What the fake hosts hold, written while the papers are made."""

    def __init__(self):
        self.repos: dict[str, dict] = {}
        self.hf: dict[str, dict] = {}
        self.zenodo: dict[str, dict] = {}


def make_paper(i: int, rng: random.Random, cat: Catalog) -> tuple[str, dict]:
    code, weights, data = rng.choice(CODE), rng.choice(WEIGHTS), rng.choice(DATA)
    if code != "released" and weights in ("asset", "in-repo"):
        weights = "none"  # an asset or in-repo checkpoint needs a repository
    owner, repo = f"lab{i}", f"method-{i}"
    links, promises = [], []
    truth = {"code": False, "weights": False, "data": False}
    if code == "released":
        cat.repos[f"{owner}/{repo}"] = {"private": False, "files": ["train.py", "README.md"]}
        links.append(f"https://github.com/{owner}/{repo}")
        truth["code"] = True
    elif code == "private":
        cat.repos[f"{owner}/{repo}"] = {"private": True, "files": []}
        links.append(f"https://github.com/{owner}/{repo}")
    elif code == "dead":
        links.append(f"https://github.com/{owner}/{repo}-gone")
    elif code == "anonymised":
        links.append(f"https://anonymous.4open.science/r/{repo}-{i:04x}")
    elif code == "promised":
        promises.append("Code will be released upon acceptance.")
    if weights == "hf":
        cat.hf[f"models/{owner}/{repo}-base"] = {"siblings": ["config.json", "model.safetensors"]}
        links.append(f"https://huggingface.co/{owner}/{repo}-base")
        truth["weights"] = True
    elif weights == "hf-dead":
        links.append(f"https://huggingface.co/{owner}/{repo}-missing")
    elif weights == "hf-gated":
        cat.hf[f"models/{owner}/{repo}-gated"] = {"gated": "manual", "siblings": ["model.safetensors"]}
        links.append(f"https://huggingface.co/{owner}/{repo}-gated")
    elif weights == "asset":
        links.append(f"https://github.com/{owner}/{repo}/releases/download/v1.0/checkpoint.pt")
        truth["weights"] = True
    elif weights == "in-repo":
        cat.repos[f"{owner}/{repo}"]["files"].append("checkpoints/best.ckpt")
        truth["weights"] = True
    if data == "hf":
        cat.hf[f"datasets/{owner}/bench-{i}"] = {"siblings": ["train.parquet"]}
        links.append(f"https://huggingface.co/datasets/{owner}/bench-{i}")
        truth["data"] = True
    elif data == "zenodo":
        cat.zenodo[str(7000000 + i)] = {"files": [{"key": "data.zip"}]}
        links.append(f"https://zenodo.org/records/{7000000 + i}")
        truth["data"] = True
    elif data == "zenodo-dead":
        links.append(f"https://zenodo.org/records/{8000000 + i}")
    truth["level"] = "run" if truth["code"] and truth["weights"] else "retrain" if truth["code"] else "reimplement"
    abstract, body, notes, table = [], [], [], []
    for n, url in enumerate(links):
        where = rng.choice(WHERE)
        if where == "abstract":
            abstract.append(f"Our code and models are at {url}.")
        elif where == "body":
            body.append(f"We build on our implementation ({url}) and report results below.")
        elif where == "footnote":
            body.append(f"The released artefacts{n + 1} are described in the appendix.")
            notes.append(f"{n + 1} {url}")
        else:
            table.append(f"| Ours (resource {n}) | 0.{rng.randint(600, 999)} | {url} |")
    text = "\n\n".join([
        f"# Method {i}: a study", "## Abstract", f"We propose method {i}. " + " ".join(abstract + promises),
        "## Results", "| Method | Accuracy | Link |", "|---|---|---|", *table,
        "See also https://example.org/related-work and the venue's page.", *body,
        "## Footnotes", *notes])
    return text, truth


class HostApis:
    def __init__(self, cat: Catalog):
        self.cat = cat
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _json(self, status, obj):
                body = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                path = self.path.split("?")[0].strip("/").split("/")
                c = outer.cat
                if path[:2] == ["gh", "repos"] and len(path) >= 4:
                    key = f"{path[2]}/{path[3]}"
                    repo = c.repos.get(key)
                    if repo is None:
                        return self._json(404, {"message": "Not Found"})
                    if len(path) == 4:
                        return self._json(200, {"full_name": key, "private": repo["private"], "size": 120,
                                                "default_branch": "main", "license": {"spdx_id": "MIT"}})
                    if path[4] == "commits":
                        return self._json(200, {"sha": "a" * 40})
                    if path[4:6] == ["git", "trees"]:
                        return self._json(200, {"tree": [{"path": p, "type": "blob"} for p in repo["files"]]})
                if path[:2] == ["hf", "api"] and len(path) >= 5:
                    item = c.hf.get(f"{path[2]}/{path[3]}/{path[4]}")
                    if item is None:
                        return self._json(404, {"error": "Repository not found"})
                    return self._json(200, {"id": f"{path[3]}/{path[4]}", "sha": "b" * 40, "private": False,
                                            "gated": item.get("gated", False),
                                            "siblings": [{"rfilename": s} for s in item["siblings"]]})
                if path[:3] == ["zen", "api", "records"] and len(path) == 4:
                    rec = c.zenodo.get(path[3])
                    return self._json(200, rec) if rec else self._json(404, {"status": 404})
                self._json(404, {"message": "Not Found"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.apis = Apis(github=base + "/gh", hf=base + "/hf", zenodo=base + "/zen")
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _pdf_text(text: str, path) -> str:
    from fpdf import FPDF

    from reclaim.materials.paper import pdf_to_text

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    for line in text.splitlines():
        pdf.multi_cell(0, 5, line or " ", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return pdf_to_text(path, str(path))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    rng = random.Random(2025)
    cat = Catalog()
    papers = [make_paper(i, rng, cat) for i in range(N)]
    tmp = tmp_path_factory.mktemp("papers")
    for i in range(0, N, 6):  # a sixth of them come as PDFs, read back by reclaim's extraction
        text, truth = papers[i]
        papers[i] = (_pdf_text(text, tmp / f"paper{i}.pdf"), truth)
    hosts = HostApis(cat)
    fetcher = Fetcher(tmp / "cache", min_interval=0.0)
    results = [released(text, fetcher, hosts.apis) for text, _ in papers]
    yield papers, results
    hosts.server.shutdown()


def _pr(pairs: list[tuple[bool, bool]]) -> tuple[float, float]:
    tp = sum(p and t for p, t in pairs)
    fp = sum(p and not t for p, t in pairs)
    fn = sum(t and not p for p, t in pairs)
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


def test_materials_detection_and_level_on_the_labelled_sample(sample, capsys):
    papers, results = sample
    kinds = {k: [(bool(r.released(k)), t[k]) for (_, t), r in zip(papers, results)] for k in ("code", "data", "weights")}
    every = [pair for pairs in kinds.values() for pair in pairs]
    precision, recall = _pr(every)
    levels = {lv: _pr([(r.level == lv, t["level"] == lv) for (_, t), r in zip(papers, results)])
              for lv in ("run", "retrain", "reimplement")}
    wrong = [(i, t["level"], r.level, r.rejected) for i, ((_, t), r) in enumerate(zip(papers, results))
             if r.level != t["level"]]
    with capsys.disabled():
        print(f"\nlabelled sample: {N} papers ({N // 6} as PDFs); materials detection precision {precision:.3f} "
              f"recall {recall:.3f}; " + "; ".join(f"{k} {_pr(v)[0]:.2f}/{_pr(v)[1]:.2f}" for k, v in kinds.items()))
        print("level (precision/recall): " + ", ".join(f"{lv} {p:.3f}/{r:.3f}" for lv, (p, r) in levels.items())
              + f"; counts {dict((lv, sum(t['level'] == lv for _, t in papers)) for lv in levels)}")
    assert not wrong, wrong
    assert precision >= 0.95 and recall >= 0.95
    assert all(p >= 0.95 and r >= 0.95 for p, r in levels.values())
    assert {t["level"] for _, t in papers} == {"run", "retrain", "reimplement"}  # every level in the sample


def test_what_is_no_release_is_said_so(sample):
    papers, results = sample
    reasons = " ".join(x for r in results for x in r.rejected)
    for why in ("anonymised review link", "dead link: GitHub has no repository", "is private",
                "private or gated", "dead link: the Hub has no model", "dead link: Zenodo record"):
        assert why in reasons, why
    assert any(r.promises for r in results)
    code = next(v for r in results for v in r.released("code"))
    assert code.pin == "a" * 40 and code.license == "MIT"  # pinned at the latest commit


def test_links_in_prose_tables_and_footnotes():
    text = ("Code: github.com/org/repo.git, weights at https://huggingface.co/org/model-7b). "
            "| x | https://zenodo.org/records/123 |\n1 https://org.github.io/project/\n"
            "Data upon request. Models will be made publicly available upon publication.")
    links = {(x.kind, x.ref or x.host) for x in find_links(text)}
    assert links == {("code", "org/repo"), ("weights", "org/model-7b"), ("data", "123"), ("page", "org.github.io")}
    assert placeholders(text) == ["Data upon request", "Models will be made publicly available"]

"""Papers made with their truth known, and the hosts their links point at (GitHub, the Hugging
Face Hub, Zenodo) as one local server answering in those APIs' formats."""

from __future__ import annotations

import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from reclaim.curate.released import Apis

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
                                                "default_branch": "main", "license": {"spdx_id": "MIT"},
                                                "created_at": "2025-04-01T08:00:00Z"})
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


def make_pdf(text: str, path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    for line in text.splitlines():
        pdf.multi_cell(0, 5, line or " ", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))


def pdf_text(text: str, path) -> str:
    """The text as a PDF, read back by reclaim's own extraction."""
    from reclaim.materials.paper import pdf_to_text

    make_pdf(text, path)
    return pdf_to_text(path, str(path))



"""A local server answering in the real APIs' documented formats: OpenReview API v2 notes (with
pagination and count), arXiv's Atom feed. It can answer 429 (with Retry-After) or 503 first, and
counts every request, so the tests see retries, caching and offline work for real."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape


def note(i: int, venue: str, **content) -> dict:
    base = {"title": {"value": f"Paper number {i}"}, "authors": {"value": [f"Author {i}", "Second Author"]},
            "abstract": {"value": f"We study problem {i}. Code: https://github.com/lab/paper{i}"},
            "keywords": {"value": ["learning"]}, "pdf": {"value": f"/pdf/{i:040x}.pdf"},
            "venue": {"value": "NeurIPS 2025 poster"}, "venueid": {"value": venue}}
    base.update(content)
    return {"id": f"note{i:04d}", "forum": f"note{i:04d}", "content": base,
            "cdate": 1747000000000 + i, "pdate": 1758000000000, "odate": 1750000000000}


def atom(entries: list[dict]) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">',
           "<title>arXiv Query</title>"]
    for e in entries:
        out.append("<entry>")
        out.append(f"<id>{escape(e['id'])}</id><updated>{e.get('updated', '2025-06-02T10:00:00Z')}</updated>"
                   f"<published>{e.get('published', '2025-05-20T17:59:59Z')}</published>"
                   f"<title>{escape(e['title'])}</title><summary>{escape(e.get('summary', ''))}</summary>")
        for a in e.get("authors", []):
            out.append(f"<author><name>{escape(a)}</name></author>")
        if "pdf" in e:
            out.append(f'<link title="pdf" href="{escape(e["pdf"])}" rel="related" type="application/pdf"/>')
        out.append('<arxiv:primary_category term="cs.LG"/><category term="cs.LG"/>')
        out.append("</entry>")
    out.append("</feed>")
    return "\n".join(out)


class Replay:
    def __init__(self, notes: list, arxiv: dict[str, dict] | None = None, files: dict[str, bytes] | None = None):
        self.notes = notes
        self.arxiv = arxiv or {}
        self.files = files or {}
        self.hits: Counter = Counter()
        self.fail_first: dict[str, list[int]] = {}  # path+query -> statuses to answer first
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, status, body: bytes, kind="application/json", headers=None):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                url = urlsplit(self.path)
                replay.hits[self.path] += 1
                queued = replay.fail_first.get(self.path)
                if queued:
                    status = queued.pop(0)
                    return self._send(status, b'{"name": "RateLimitError"}', headers={"Retry-After": "0"}
                                      if status == 429 else None)
                if url.path in replay.files:
                    return self._send(200, replay.files[url.path], "application/pdf")
                q = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/notes":
                    venue, limit, offset = q.get("content.venueid"), int(q.get("limit", 1000)), int(q.get("offset", 0))
                    mine = [n for n in replay.notes if not isinstance(n, dict) or
                            (n.get("content", {}).get("venueid", {}) or {}).get("value", venue) == venue]
                    page = mine[offset:offset + limit]
                    return self._send(200, json.dumps({"notes": page, "count": len(mine)}).encode())
                if url.path == "/api/query":
                    entries = []
                    for i in q.get("id_list", "").split(","):
                        base = i.split("v")[0]
                        if base in replay.arxiv:
                            entries.append(replay.arxiv[base])
                        else:  # arXiv answers an unknown id with an entry titled Error
                            entries.append({"id": "http://arxiv.org/api/errors#incorrect_id_format_for_" + i,
                                            "title": "Error", "summary": f"incorrect id format for {i}"})
                    return self._send(200, atom(entries).encode(), "application/atom+xml")
                self._send(404, b'{"name": "NotFoundError"}')

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()

"""Where a year's papers come from, behind one protocol: OpenReview (API v2, a venue's accepted
notes), arXiv (its Atom API, by id), or for any other venue a CSV a person wrote or a folder of PDFs.

Every source yields ``Paper`` records and says what it could not read: a malformed entry is
skipped with its reason kept (``problems``), never a crash and never a silently shorter list."""

from __future__ import annotations

import csv
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from reclaim.curate.http import Fetcher, FetchError

OPENREVIEW_API = "https://api2.openreview.net"  # or $RECLAIM_OPENREVIEW_API (a mirror, a replay in tests)
OPENREVIEW_SITE = "https://openreview.net"  # or $RECLAIM_OPENREVIEW_SITE
ARXIV_API = "https://export.arxiv.org/api/query"  # or $RECLAIM_ARXIV_API
PAGE = 1000
ATOM = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
ARXIV_ID = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?")


class Paper(BaseModel):
    """One accepted paper, as its source described it."""

    source: str = Field(description="openreview, arxiv or csv.")
    id: str = Field(description="The source's own id (an OpenReview note id, an arXiv id with its version).")
    title: str
    authors: list[str] = Field(default_factory=list)
    abstract: str = ""
    keywords: list[str] = Field(default_factory=list)
    venue: str = ""
    decision: str = Field("", description="As the venue states it, e.g. 'NeurIPS 2025 poster'.")
    pdf: str = Field("", description="Absolute URL of the PDF.")
    url: str = ""
    published: str | None = Field(None, description="ISO date the venue published it.")
    first_version: str | None = Field(None, description="ISO date of the first arXiv version, where known.")
    arxiv: str | None = None
    text: str = Field("", description="The paper's text where the source has it already (a local PDF).")


class Source(Protocol):
    name: str
    problems: list[str]

    def papers(self) -> Iterator[Paper]: ...


def _iso(ms: int | float | None) -> str | None:
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


def _value(content: dict, key: str, default=None):
    field = content.get(key)
    return field.get("value", default) if isinstance(field, dict) else default


class OpenReview:
    """The accepted papers of a venue (``NeurIPS.cc/2025/Conference``): API v2 notes whose
    ``content.venueid`` is the venue's id, page by page."""

    name = "openreview"

    def __init__(self, venue_id: str, fetcher: Fetcher, api: str | None = None, site: str | None = None,
                 page: int = PAGE):
        api = api or os.environ.get("RECLAIM_OPENREVIEW_API") or OPENREVIEW_API
        site = site or os.environ.get("RECLAIM_OPENREVIEW_SITE") or OPENREVIEW_SITE
        self.venue_id, self.fetcher, self.api, self.site = venue_id, fetcher, api.rstrip("/"), site.rstrip("/")
        self.page = page
        self.problems: list[str] = []

    def papers(self) -> Iterator[Paper]:
        offset = 0
        while True:
            answer = self.fetcher.get(f"{self.api}/notes", {"content.venueid": self.venue_id,
                                                            "limit": self.page, "offset": offset})
            if not answer.ok:
                raise FetchError(f"OpenReview {answer.url}: HTTP {answer.status} for venue {self.venue_id}")
            try:
                data = answer.json()
                notes = data["notes"]
            except (ValueError, KeyError, TypeError):
                raise FetchError(f"OpenReview {answer.url}: not a notes listing (offset {offset})") from None
            for note in notes:
                paper = self._paper(note)
                if paper is not None:
                    yield paper
            offset += len(notes)
            total = data.get("count")
            if not notes or len(notes) < self.page or (isinstance(total, int) and offset >= total):
                return

    def _paper(self, note) -> Paper | None:
        if not isinstance(note, dict) or not isinstance(note.get("content"), dict) or not note.get("id"):
            self.problems.append(f"openreview: an entry without id or content skipped: {str(note)[:120]}")
            return None
        c = note["content"]
        title = _value(c, "title")
        if not isinstance(title, str) or not title.strip():
            self.problems.append(f"openreview {note['id']}: no title; skipped")
            return None
        pdf = _value(c, "pdf", "") or ""
        if pdf.startswith("/"):
            pdf = self.site + pdf
        authors = _value(c, "authors", []) or []
        keywords = _value(c, "keywords", []) or []
        return Paper(source=self.name, id=note["id"], title=" ".join(title.split()),
                     authors=[a for a in authors if isinstance(a, str)],
                     abstract=_value(c, "abstract", "") or "", keywords=[k for k in keywords if isinstance(k, str)],
                     venue=self.venue_id, decision=_value(c, "venue", "") or "", pdf=pdf,
                     url=f"{self.site}/forum?id={note.get('forum') or note['id']}",
                     published=_iso(note.get("pdate") or note.get("odate") or note.get("cdate")))


class Arxiv:
    """Papers by arXiv id (any version), from arXiv's Atom API, a batch of ids at a time."""

    name = "arxiv"

    def __init__(self, ids: list[str], fetcher: Fetcher, api: str | None = None, batch: int = 100):
        api = api or os.environ.get("RECLAIM_ARXIV_API") or ARXIV_API
        self.ids, self.fetcher, self.api, self.batch = ids, fetcher, api, batch
        self.problems: list[str] = []

    def papers(self) -> Iterator[Paper]:
        for i in range(0, len(self.ids), self.batch):
            chunk = self.ids[i:i + self.batch]
            answer = self.fetcher.get(self.api, {"id_list": ",".join(chunk), "max_results": len(chunk)})
            if not answer.ok:
                raise FetchError(f"arXiv {answer.url}: HTTP {answer.status}")
            try:
                root = ET.fromstring(answer.body)
            except ET.ParseError as e:
                raise FetchError(f"arXiv {answer.url}: not an Atom feed ({e})") from None
            for entry in root.findall("a:entry", ATOM):
                paper = self._paper(entry)
                if paper is not None:
                    yield paper

    def _paper(self, entry) -> Paper | None:
        raw_id = entry.findtext("a:id", "", ATOM)
        m = ARXIV_ID.search(raw_id)
        title = " ".join((entry.findtext("a:title", "", ATOM) or "").split())
        if m is None or not title or title == "Error":
            self.problems.append(f"arxiv: an entry without an arXiv id or title skipped: {raw_id[:100]}")
            return None
        version = m.group(2) or ""
        pdf = next((link.get("href", "") for link in entry.findall("a:link", ATOM) if link.get("title") == "pdf"), "")
        published = (entry.findtext("a:published", "", ATOM) or "")[:10] or None
        return Paper(source=self.name, id=m.group(1) + version, title=title,
                     authors=[a.findtext("a:name", "", ATOM) for a in entry.findall("a:author", ATOM)],
                     abstract=" ".join((entry.findtext("a:summary", "", ATOM) or "").split()),
                     keywords=[c.get("term", "") for c in entry.findall("a:category", ATOM)],
                     pdf=pdf, url=f"https://arxiv.org/abs/{m.group(1)}", first_version=published,
                     published=(entry.findtext("a:updated", "", ATOM) or "")[:10] or None, arxiv=m.group(1))


class CsvPapers:
    """Any other venue: a CSV with a header row: title (required), authors (';'-separated),
    abstract, pdf, url, published, arxiv, venue, decision."""

    name = "csv"

    def __init__(self, path: Path):
        self.path = Path(path)
        self.problems: list[str] = []

    def papers(self) -> Iterator[Paper]:
        with open(self.path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or "title" not in reader.fieldnames:
                raise FetchError(f"{self.path}: the header row must name a 'title' column (and may name authors, "
                                 "abstract, pdf, url, published, arxiv, venue, decision)")
            for n, row in enumerate(reader, start=2):
                title = " ".join((row.get("title") or "").split())
                if not title:
                    self.problems.append(f"{self.path}:{n}: no title; skipped")
                    continue
                yield Paper(source=self.name, id=f"{self.path.stem}-{n}", title=title,
                            authors=[a.strip() for a in (row.get("authors") or "").split(";") if a.strip()],
                            abstract=row.get("abstract") or "", pdf=row.get("pdf") or "", url=row.get("url") or "",
                            published=row.get("published") or None, arxiv=row.get("arxiv") or None,
                            venue=row.get("venue") or "", decision=row.get("decision") or "")


class PdfFolder:
    """Any other venue as a folder of PDFs: one paper each, titled by the first line of its text
    (else its file name), read by reclaim's own PDF extraction."""

    name = "pdfs"

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.problems: list[str] = []

    def papers(self) -> Iterator[Paper]:
        if not self.folder.is_dir():
            raise FetchError(f"{self.folder}: not a folder of PDFs")
        from reclaim.materials.paper import pdf_to_text

        for pdf in sorted(self.folder.glob("*.pdf")):
            try:
                text = pdf_to_text(pdf, str(pdf))
            except Exception as e:
                self.problems.append(f"{pdf}: unreadable PDF ({e}); skipped")
                continue
            first = next((ln.strip("# ").strip() for ln in text.splitlines()
                          if ln.strip() and not ln.startswith("<!--")), "")
            yield Paper(source=self.name, id=pdf.stem, title=first[:300] or pdf.stem, pdf=pdf.resolve().as_uri(),
                        url=pdf.resolve().as_uri(), text=text)

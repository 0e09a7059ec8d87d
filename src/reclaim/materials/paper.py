"""The paper's text: the task's own paper.md, else extracted once from its PDF.

The PDF is a material like any other: a task-relative file, a URL pinned by sha256, or an
arXiv version (``https://arxiv.org/pdf/<id>``; ``$RECLAIM_ARXIV_URL`` replaces the base, for
tests and mirrors; a version never changes, so the id pins it). Its text is extracted with
pypdf's layout mode, which keeps table columns aligned, and kept beside the object as
``objects/<digest>.paper.md``, so extraction runs once per PDF.
"""

from __future__ import annotations

import os
from pathlib import Path

from reclaim.materials.cache import CachedMaterial, MaterialCache, atomic_write
from reclaim.materials.http import HttpFetcher
from reclaim.materials.sources import LocalSource, Source, problem
from reclaim.spec import Paper

ARXIV_VAR = "RECLAIM_ARXIV_URL"
ARXIV_DEFAULT = "https://arxiv.org/pdf"
PDF_NAME = "paper.pdf"


def page_marker(n: int) -> str:
    return f"<!-- page {n} -->"


def pdf_source(paper: Paper, task_dir: Path, cache: MaterialCache, where: str) -> Source | None:
    """Where the paper's PDF comes from, or None when the task gives no PDF."""
    if paper.pdf and paper.pdf.startswith(("http://", "https://")):
        return HttpFetcher(paper.pdf, paper.pdf_sha256, where, cache.downloads, name=PDF_NAME,
                           unpack=False, url_field="pdf", sha_field="pdf_sha256")
    if paper.pdf:
        return LocalSource(task_dir, paper.pdf, where, field="pdf")
    if paper.arxiv:
        return HttpFetcher(arxiv_url(paper.arxiv), paper.pdf_sha256, where, cache.downloads, name=PDF_NAME,
                           unpack=False, url_field="arxiv", sha_field="pdf_sha256", key=f"arxiv:{paper.arxiv}")
    return None


def arxiv_url(arxiv_id: str) -> str:
    """Where an arXiv version's PDF is fetched from ($RECLAIM_ARXIV_URL, or arXiv itself)."""
    return f"{(os.environ.get(ARXIV_VAR) or ARXIV_DEFAULT).rstrip('/')}/{arxiv_id}"


def paper_pdf(paper: Paper, task_dir: Path, cache: MaterialCache, where: str) -> CachedMaterial | None:
    """The paper's PDF in the cache (fetched if need be), or None when the task gives none."""
    source = pdf_source(paper, task_dir, cache, where)
    return cache.get_source(source) if source is not None else None


def paper_text(paper: Paper, task_dir: Path, cache: MaterialCache, where: str | None = None) -> str:
    """The text the agent reads: ``paper.text`` when that file exists, else the PDF's text."""
    where = where or f"{Path(task_dir) / 'task.yaml'}: paper"
    own = Path(task_dir) / paper.text
    if own.is_file():
        return own.read_text(encoding="utf-8")
    pdf = paper_pdf(paper, task_dir, cache, where)
    if pdf is None:
        raise problem(where, "text", f"'{paper.text}' not found and no PDF given",
                      f"add {own}, or give paper.pdf or paper.arxiv")
    return extracted_text(pdf, where)


def extracted_text(pdf: CachedMaterial, where: str) -> str:
    """The text of a cached PDF, extracted on first use and kept beside its object."""
    kept = pdf.path.parent / f"{pdf.digest}.paper.md"
    if kept.is_file():
        return kept.read_text(encoding="utf-8")
    files = [p for p in pdf.files if p.lower().endswith(".pdf")]
    if len(files) != 1:
        raise problem(where, "pdf", f"expected one PDF, found {len(files)} in {pdf.source}",
                      "point paper.pdf at a single PDF file")
    text = pdf_to_text(pdf.path / files[0], where)
    atomic_write(kept, text)
    return text


def pdf_to_text(path: Path, where: str) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        pages = [page.extract_text(extraction_mode="layout") for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as e:
        raise problem(where, "pdf", f"{path.name} is not a readable PDF: {e}",
                      "check the file (an HTML error page saved as .pdf?) and its sha256") from None
    body = [f"{page_marker(i)}\n\n{text.rstrip()}\n" for i, text in enumerate(pages, 1)]
    return "\n".join(body)

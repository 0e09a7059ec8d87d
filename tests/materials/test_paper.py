"""The paper's text: its own file when there is one, else extracted once from its PDF."""

from __future__ import annotations

import hashlib
import re

import pytest
from fpdf import FPDF
from servers import FileServer

from reclaim.materials import (
    ARXIV_VAR,
    MaterialCache,
    MaterialsError,
    paper_pdf,
    paper_text,
)
from reclaim.spec import Paper

ROWS = [("Method", "Accuracy", "F1"), ("Baseline", "71.2", "0.65"), ("Ours", "84.7", "0.81")]


def make_pdf() -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.cell(0, 10, "Learning to Reproduce", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "We report accuracy on the benchmark below.")
    pdf.add_page()
    pdf.cell(0, 10, "Table 2: Results", new_x="LMARGIN", new_y="NEXT")
    with pdf.table(col_widths=(60, 40, 30), text_align="LEFT") as table:
        for row in ROWS:
            r = table.row()
            for cell in row:
                r.cell(cell)
    return bytes(pdf.output())


def paper(**kw) -> Paper:
    return Paper(title="T", venue="V", year=2025, **kw)


@pytest.fixture
def pdf_bytes() -> bytes:
    return make_pdf()


def test_own_text_file_wins(tmp_path, pdf_bytes):
    (tmp_path / "paper.md").write_text("# The paper\n")
    (tmp_path / "paper.pdf").write_bytes(pdf_bytes)
    assert paper_text(paper(pdf="paper.pdf"), tmp_path, MaterialCache(tmp_path / "cache")) == "# The paper\n"


def test_text_from_a_local_pdf_keeps_pages_and_table_columns(tmp_path, pdf_bytes):
    (tmp_path / "paper.pdf").write_bytes(pdf_bytes)
    cache = MaterialCache(tmp_path / "cache")
    text = paper_text(paper(pdf="paper.pdf"), tmp_path, cache)
    assert text.index("<!-- page 1 -->") < text.index("Learning to Reproduce") < text.index("<!-- page 2 -->")
    assert "<!-- page 3 -->" not in text
    lines = {row[0]: line for row in ROWS for line in text.splitlines() if line.strip().startswith(row[0])}
    for row in ROWS:  # each row on one line, its cells in order
        assert re.search(r"\s+".join(map(re.escape, row)), lines[row[0]]), lines[row[0]]
    cols = [lines[r[0]].index(r[1]) for r in ROWS]
    assert max(cols) - min(cols) <= 2, "the Accuracy column stays aligned"
    pdf = paper_pdf(paper(pdf="paper.pdf"), tmp_path, cache, "t: paper")
    kept = pdf.path.parent / f"{pdf.digest}.paper.md"
    assert kept.read_text() == text


def test_pdf_by_url_fetched_and_extracted_once(tmp_path, pdf_bytes):
    cache = MaterialCache(tmp_path / "cache")
    with FileServer() as srv:
        url = srv.add("/p.pdf", pdf_bytes)
        p = paper(pdf=url, pdf_sha256=hashlib.sha256(pdf_bytes).hexdigest())
        first = paper_text(p, tmp_path, cache)
        pdf = paper_pdf(p, tmp_path, cache, "t: paper")
        kept = pdf.path.parent / f"{pdf.digest}.paper.md"
        stamp = kept.stat().st_mtime_ns
        assert all(paper_text(p, tmp_path, cache) == first for _ in range(3))
        assert srv.count("/p.pdf") == 1 and kept.stat().st_mtime_ns == stamp


def test_pdf_checksum_mismatch_names_pdf_sha256(tmp_path, pdf_bytes):
    with FileServer() as srv:
        url = srv.add("/p.pdf", pdf_bytes)
        with pytest.raises(MaterialsError, match=r"task.yaml: paper\.pdf_sha256: .* not the pinned 0{64}"):
            paper_text(paper(pdf=url, pdf_sha256="0" * 64), tmp_path, MaterialCache(tmp_path / "cache"))


def test_arxiv_version_from_the_configured_base(tmp_path, pdf_bytes, monkeypatch):
    with FileServer() as srv:
        srv.add("/pdf/2405.01234v2", pdf_bytes)
        monkeypatch.setenv(ARXIV_VAR, srv.url + "/pdf")
        cache = MaterialCache(tmp_path / "cache")
        text = paper_text(paper(arxiv="2405.01234v2"), tmp_path, cache)
        assert "Table 2: Results" in text
        paper_text(paper(arxiv="2405.01234v2"), tmp_path, cache)
        assert srv.count("/pdf/") == 1


def test_not_a_pdf_and_no_pdf_at_all(tmp_path):
    (tmp_path / "paper.pdf").write_text("<html>rate limited</html>")
    cache = MaterialCache(tmp_path / "cache")
    with pytest.raises(MaterialsError, match=r"paper\.pdf: paper\.pdf is not a readable PDF"):
        paper_text(paper(pdf="paper.pdf"), tmp_path, cache)
    with pytest.raises(MaterialsError, match=r"paper\.text: 'paper\.md' not found and no PDF given"):
        paper_text(paper(), tmp_path / "empty", cache)


def test_a_task_with_its_own_text_needs_no_pdf_before_its_trials(tmp_path, monkeypatch):
    """prefetch fetches what trials will read: where the task's own paper.md is the text, an arXiv
    PDF out of reach (an offline machine) stops nothing; without that file it is fetched, and fails."""
    from conftest import task_yaml, write_suite
    from reclaim.materials import prefetch
    from reclaim.spec import load_suite

    monkeypatch.setenv(ARXIV_VAR, "http://127.0.0.1:9/pdf")  # nothing listens there
    suite = write_suite(tmp_path / "s", [task_yaml("own", **{"paper.arxiv": "2501.01234v1"})])
    task = load_suite(suite).task("own")
    assert [name for name, _ in prefetch(task, MaterialCache(tmp_path / "c"))] == ["data"]
    (task.dir / "paper.md").unlink()
    with pytest.raises(MaterialsError, match="arxiv"):
        prefetch(task, MaterialCache(tmp_path / "c"))

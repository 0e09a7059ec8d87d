"""Curation sources against a local server speaking the real APIs' formats: pagination, 429s and
5xx retried with backoff, malformed entries reported, every answer cached so a rerun makes no
request, and --offline working from the cache alone."""

from __future__ import annotations

import pytest
from replay import Replay, note

from reclaim.curate.http import Fetcher, FetchError
from reclaim.curate.sources import Arxiv, CsvPapers, OpenReview

VENUE = "NeurIPS.cc/2025/Conference"


@pytest.fixture
def replay():
    notes = [note(i, VENUE) for i in range(23)]
    notes += [note(100, "NeurIPS.cc/2025/Conference/Rejected_Submission")]  # not accepted: another venueid
    notes += [{"id": "broken1"}, note(101, VENUE, title={"value": ""})]  # no content; no title
    arxiv = {"2505.01234": {"id": "http://arxiv.org/abs/2505.01234v2", "title": "A  study\n of things",
                            "summary": "Code at https://github.com/lab/things.", "authors": ["A. One", "B. Two"],
                            "pdf": "http://arxiv.org/pdf/2505.01234v2", "published": "2025-05-02T10:00:00Z"}}
    r = Replay(notes, arxiv)
    yield r
    r.close()


def _fetcher(tmp_path, **kw) -> Fetcher:
    sleeps = []
    f = Fetcher(tmp_path / "cache", min_interval=0.0, backoff=0.01, sleep=sleeps.append, **kw)
    f.sleeps = sleeps
    return f


def test_openreview_pages_through_a_venue_and_reports_what_it_skipped(replay, tmp_path):
    src = OpenReview(VENUE, _fetcher(tmp_path), api=replay.url, site="https://openreview.net", page=10)
    papers = list(src.papers())
    assert [p.id for p in papers] == [f"note{i:04d}" for i in range(23)]  # 3 pages; the rejected one left out
    p = papers[0]
    assert p.title == "Paper number 0" and p.authors == ["Author 0", "Second Author"]
    assert p.pdf == "https://openreview.net/pdf/" + f"{0:040x}.pdf" and p.decision == "NeurIPS 2025 poster"
    assert p.published == "2025-09-16" and p.url == "https://openreview.net/forum?id=note0000"
    assert len(src.problems) == 2 and "broken1" in src.problems[0] and "no title" in src.problems[1]
    assert sum(n for path, n in replay.hits.items() if path.startswith("/notes")) == 3


def test_rate_limits_and_server_errors_are_retried_with_backoff(replay, tmp_path):
    fetcher = _fetcher(tmp_path)
    first = f"/notes?content.venueid={VENUE.replace('/', '%2F')}&limit=10&offset=0"
    replay.fail_first[first] = [429, 503, 502]
    papers = list(OpenReview(VENUE, fetcher, api=replay.url, page=10).papers())
    assert len(papers) == 23
    assert replay.hits[first] == 4  # three refusals, then the answer
    assert fetcher.sleeps[:1] == [0.0] and fetcher.sleeps[1:3] == [0.02, 0.04]  # Retry-After, then backoff


def test_a_server_that_keeps_failing_is_a_clear_error(replay, tmp_path):
    fetcher = _fetcher(tmp_path, retries=2)
    first = f"/notes?content.venueid={VENUE.replace('/', '%2F')}&limit=10&offset=0"
    replay.fail_first[first] = [503, 503, 503, 503]
    with pytest.raises(FetchError, match="HTTP 503 after 3 tries"):
        list(OpenReview(VENUE, fetcher, api=replay.url, page=10).papers())


def test_a_rerun_makes_no_request_and_offline_works_from_the_cache(replay, tmp_path):
    list(OpenReview(VENUE, _fetcher(tmp_path), api=replay.url, page=10).papers())
    list(Arxiv(["2505.01234"], _fetcher(tmp_path), api=replay.url + "/api/query").papers())
    before = sum(replay.hits.values())
    again = _fetcher(tmp_path)
    assert len(list(OpenReview(VENUE, again, api=replay.url, page=10).papers())) == 23
    assert again.requests == 0 and sum(replay.hits.values()) == before
    replay.close()  # nothing to ask any more
    offline = _fetcher(tmp_path, offline=True)
    assert len(list(OpenReview(VENUE, offline, api=replay.url, page=10).papers())) == 23
    assert [p.id for p in Arxiv(["2505.01234"], offline, api=replay.url + "/api/query").papers()] == ["2505.01234v2"]
    with pytest.raises(FetchError, match=r"not in the curation cache.*--offline"):
        list(OpenReview("ICML.cc/2025/Conference", offline, api=replay.url, page=10).papers())


def test_arxiv_entries_by_id_and_an_unknown_id_reported(replay, tmp_path):
    src = Arxiv(["2505.01234", "2599.99999"], _fetcher(tmp_path), api=replay.url + "/api/query")
    papers = list(src.papers())
    assert len(papers) == 1
    p = papers[0]
    assert (p.id, p.arxiv, p.title) == ("2505.01234v2", "2505.01234", "A study of things")
    assert p.authors == ["A. One", "B. Two"] and p.first_version == "2025-05-02"
    assert p.pdf == "http://arxiv.org/pdf/2505.01234v2"
    assert len(src.problems) == 1 and "incorrect_id_format" in src.problems[0]


def test_a_csv_for_any_other_venue(tmp_path):
    f = tmp_path / "venue.csv"
    f.write_text("title,authors,pdf,published\nOn things,A. One; B. Two,https://x.org/a.pdf,2025-07-01\n,,,\n")
    src = CsvPapers(f)
    papers = list(src.papers())
    assert [(p.title, p.authors, p.published) for p in papers] == [("On things", ["A. One", "B. Two"], "2025-07-01")]
    assert src.problems == [f"{f}:3: no title; skipped"]
    (tmp_path / "bad.csv").write_text("name\nx\n")
    with pytest.raises(FetchError, match="must name a 'title' column"):
        list(CsvPapers(tmp_path / "bad.csv").papers())

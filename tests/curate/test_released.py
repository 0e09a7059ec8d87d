"""Materials detection and level assignment on a labelled sample of 60 synthetic papers, made here
with their truth known by construction: links in the abstract, the body, footnotes and tables;
released, anonymised, promised, private, gated and dead; a sixth of them as PDFs read back through
reclaim's own PDF extraction. The GitHub, Hugging Face and Zenodo APIs are a local server speaking
their formats."""

from __future__ import annotations

import random

import pytest
from hosts import Catalog, HostApis, make_paper, pdf_text

from reclaim.curate.http import Fetcher
from reclaim.curate.links import find_links, placeholders
from reclaim.curate.released import released

N = 60


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    rng = random.Random(2025)
    cat = Catalog()
    papers = [make_paper(i, rng, cat) for i in range(N)]
    tmp = tmp_path_factory.mktemp("papers")
    for i in range(0, N, 6):  # a sixth of them come as PDFs, read back by reclaim's extraction
        text, truth = papers[i]
        papers[i] = (pdf_text(text, tmp / f"paper{i}.pdf"), truth)
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
    kinds = {k: [(bool(r.released(k)), t[k]) for (_, t), r in zip(papers, results, strict=True)]
             for k in ("code", "data", "weights")}
    every = [pair for pairs in kinds.values() for pair in pairs]
    precision, recall = _pr(every)
    levels = {lv: _pr([(r.level == lv, t["level"] == lv) for (_, t), r in zip(papers, results, strict=True)])
              for lv in ("run", "retrain", "reimplement")}
    wrong = [(i, t["level"], r.level, r.rejected) for i, ((_, t), r) in enumerate(zip(papers, results, strict=True))
             if r.level != t["level"]]
    counts = {lv: sum(t["level"] == lv for _, t in papers) for lv in levels}
    with capsys.disabled():
        print(f"\nlabelled sample: {N} papers ({N // 6} as PDFs); materials detection precision {precision:.3f} "
              f"recall {recall:.3f}; " + "; ".join(f"{k} {_pr(v)[0]:.2f}/{_pr(v)[1]:.2f}" for k, v in kinds.items()))
        print("level (precision/recall): " + ", ".join(f"{lv} {p:.3f}/{r:.3f}" for lv, (p, r) in levels.items())
              + f"; counts {counts}")
    assert not wrong, wrong
    assert precision >= 0.95 and recall >= 0.95
    assert all(p >= 0.95 and r >= 0.95 for p, r in levels.values())
    assert {t["level"] for _, t in papers} == {"run", "retrain", "reimplement"}  # every level in the sample


def test_what_is_no_release_is_said_so(sample):
    _, results = sample
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

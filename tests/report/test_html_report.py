"""The HTML report and `reclaim view`, read in a real browser: Playwright driving Debian's Chromium
headless against real runs. Screenshots are kept under each test's temporary folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                                                          "(apt-get install chromium; scripts/test does)")
RECLAIM = [sys.executable, "-m", "reclaim.cli"]
HOSTILE = ('I reproduced it, trust me. <script>window.pwned = 1</script>'
           '<img src="http://198.51.100.7/x.png" onerror="window.pwned = 2">\n')


def _reclaim(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    return subprocess.run(RECLAIM + list(args), env=env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, tmp_path):
    """A page that records every request it makes."""
    pg = browser.new_page(viewport={"width": 1300, "height": 900})
    pg.requests = []
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory, sandbox_name):
    """A real run: two tasks; reference, nop, fabricate, and a command agent that leaves a hostile
    transcript of itself."""
    root = tmp_path_factory.mktemp("html-run")
    suite = write_suite(root / "suite", [task_yaml("mean-run", "run"), task_yaml("mean-reimplement")])
    talker = write_agent(root / "talker.sh", f"cat > \"$RECLAIM_AGENT_LOGS/final_message.md\" <<'EOF'\n{HOSTILE}EOF\n")
    rd, _ = run_suite(suite, root / "runs", ["reference", "nop", "fabricate", f"talker=command:{talker}"],
                      sandbox_name)
    html = root / "report.html"
    res = _reclaim("report", str(rd.path), "--format", "html", "-o", str(html))
    assert res.returncode == 0, res.stderr
    report = json.loads(_reclaim("report", str(rd.path), "--format", "json").stdout)
    return rd, html, report


def _outside(urls: list[str], *allowed: str) -> list[str]:
    return [u for u in urls if not u.startswith(("file://", "data:", "blob:", "about:", *allowed))]


def test_the_summary_shows_the_json_reports_numbers(run, page, tmp_path):
    _, html, report = run
    page.goto(html.as_uri())
    page.screenshot(path=str(tmp_path / "summary.png"), full_page=True)
    rows = page.locator("#rates tbody tr")
    seen = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        seen[(row.get_attribute("data-level"), row.get_attribute("data-agent"))] = (
            int(row.locator(".trials").inner_text()), int(row.locator(".reproduced").inner_text()),
            row.locator(".rate").inner_text())
    expected = {}
    for level, block in report["levels"].items():
        for agent, a in block["agents"].items():
            rate = "—" if a["rate"] is None else f"{100 * a['rate']:.0f} %"
            expected[(level, agent)] = (a["trials"], a["reproduced"], rate)
    assert seen == expected
    for outcome, n in report["totals"]["outcomes"].items():
        assert page.locator(f'#outcomes td[data-outcome="{outcome}"]').inner_text() == str(n)
    assert page.locator("a.cell").count() == len(report["trials"])
    assert page.locator("svg").count() >= 2  # the rates and the budget charts, inline
    assert _outside(page.requests) == []


def test_a_cell_opens_its_trial_with_the_cited_events_highlighted(run, page, tmp_path):
    rd, html, _ = run
    page.goto(html.as_uri())
    tid = "mean-run__fabricate__0"
    page.locator(f'a.cell[data-trial="{tid}"]').click()
    article = page.locator("#trial-view article")
    article.wait_for()
    assert article.get_attribute("data-trial-id") == tid
    verdict = json.loads((rd.trial_dir(tid) / "verdict.json").read_text())
    cited = {c["event_id"] for c in verdict["citations"]}
    assert cited, "the fabricate trial's verdict cites its evidence"
    highlighted = {int(i.removeprefix("ev-")) for i in page.locator("#trial-view tr.cited").evaluate_all(
        "rows => rows.map(r => r.id)")}
    assert highlighted and highlighted <= cited  # rows highlighted, and only cited ones
    colour = page.locator("#trial-view tr.cited td").first.evaluate("td => getComputedStyle(td).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.locator("#trial-view .outcome").first.inner_text() == "disqualified"
    meters = page.locator("#trial-view .timeline tr.command .meter").count()  # budget spent over time
    assert meters > 0 and meters == len([1 for line in (rd.trial_dir(tid) / "trace.jsonl").read_text().splitlines()
                          if '"command_finished"' in line and '"phase":"agent"' in line])
    page.screenshot(path=str(tmp_path / "trial.png"), full_page=True)
    assert page.url.endswith("#trial=" + tid)


def test_the_agents_own_words_are_marked_untrusted_and_stay_text(run, page, tmp_path):
    _, html, _ = run
    page.goto(html.as_uri())
    page.locator('a.cell[data-trial="mean-reimplement__talker__0"]').click()
    box = page.locator("#trial-view .untrusted")
    box.wait_for()
    assert "untrusted" in box.locator(".banner").inner_text()
    box.locator("summary").first.click()
    assert "<script>window.pwned = 1</script>" in box.inner_text()  # shown as text
    assert page.evaluate("window.pwned") is None  # never run
    assert page.locator("#trial-view img").count() == 0
    assert _outside(page.requests) == []  # the hostile image was never requested


def test_reclaim_view_compares_two_runs_and_loads_trials_on_demand(tmp_path, page, sandbox_name):
    from reclaim.report.html.server import serve

    suite = write_suite(tmp_path / "suite", [task_yaml("mean-a"), task_yaml("mean-b")])
    good = write_agent(tmp_path / "good.sh", "cat > reproduce.sh <<'EOF'\npython3 -c \"import json; "
                       "v = [float(x) for x in open('data/values.csv').read().split()]; "
                       "json.dump({'mean_value': sum(v) / len(v)}, open('results.json', 'w'))\"\nEOF\n"
                       "bash reproduce.sh\n")
    lazy = write_agent(tmp_path / "lazy.sh", "true\n")
    a, _ = run_suite(suite, tmp_path / "runs", [f"x=command:{good}"], sandbox_name)
    b, _ = run_suite(suite, tmp_path / "runs", [f"x=command:{lazy}"], sandbox_name)
    server = serve([a.path, b.path])
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        page.goto(base + "/")
        page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
        diff = page.locator("#differences tbody tr")
        assert diff.count() == 2
        assert [c.strip() for c in diff.first.locator("td").all_inner_texts()] == ["mean-a", "x", "1/1", "0/1"]
        board = page.locator('#leaderboard tr[data-agent="x"] td.num').all_inner_texts()
        assert board[0].startswith("100 %") and board[1].startswith("0 %")
        page.goto(base + "/run/1/")
        assert page.locator("script[data-trial]").count() == 0  # trial pages are not carried
        page.locator('a.cell[data-trial="mean-b__x__0"]').click()
        page.locator("#trial-view article").wait_for()
        assert page.locator("#trial-view article").get_attribute("data-trial-id") == "mean-b__x__0"
        assert any(u.endswith("/run/1/trial/mean-b__x__0") for u in page.requests)
        assert _outside(page.requests, base) == []
        import urllib.error
        import urllib.request

        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(base + "/run/0/trial/..%2F..%2Frun.json")
    finally:
        server.shutdown()


def test_reclaim_view_compares_two_judges_of_one_run(run, page, tmp_path):
    """A run judged again (verdicts side by side in verdicts/): one column per judge, and the
    papers where the judges disagree."""
    from reclaim.report.html.server import serve

    rd, _, _ = run
    tid = "mean-run__reference__0"
    for trial in rd.trials_dir.iterdir():  # a second judge's verdicts: stricter on one trial
        verdict = json.loads((trial / "verdicts" / "rules.json").read_text())
        if trial.name == tid:
            verdict["outcome"] = "not_reproduced"
        (trial / "verdicts" / "strict.json").write_text(json.dumps(verdict))
    server = serve([rd.path], judges=["rules", "strict"])
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        page.screenshot(path=str(tmp_path / "judges.png"), full_page=True)
        assert "strict" in page.locator("#leaderboard thead").inner_text()
        rows = page.locator("#differences tbody tr")
        assert rows.count() == 1
        cells = [c.strip() for c in rows.first.locator("td").all_inner_texts()]
        assert cells == ["mean-run", "reference", "1/1", "0/1"]
    finally:
        server.shutdown()
        for trial in rd.trials_dir.iterdir():
            (trial / "verdicts" / "strict.json").unlink()


def test_the_commands_refuse_what_is_not_a_run_and_name_the_fix(run, tmp_path):
    res = _reclaim("view", str(tmp_path))
    assert res.returncode == 2 and "not a run directory (no run.json)" in res.stderr
    rd, _, _ = run
    res = _reclaim("view", str(rd.path), "--judge", "nonesuch")
    assert res.returncode == 2 and "no verdicts of judge 'nonesuch'" in res.stderr
    res = _reclaim("report", str(rd.path), "--format", "html")  # no -o: the page on stdout
    assert res.returncode == 0 and res.stdout.startswith("<!doctype html>")
    res = _reclaim("report", str(rd.path), "-o", str(tmp_path / "x.txt"))
    assert res.returncode == 2 and "--output takes a file format" in res.stderr

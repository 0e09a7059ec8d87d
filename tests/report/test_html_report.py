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
    for level, block in report["levels"].items():  # the best agent in words, never a bare dash
        best = page.locator(f'#best tr[data-level="{level}"] td.best').inner_text()
        assert best == (block["best_agent"] or best) and best in (block["best_agent"], "baselines only",
                                                                  "none reproduced"), best
    assert "never best" in page.locator("#best-note").inner_text()
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


_BOXES = "els => els.map(e => { const b = e.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; })"
_FILLS = "els => els.map(e => getComputedStyle(e).fill)"


def test_a_zero_rate_shows_and_the_legends_list_only_what_is_drawn(run, page, tmp_path):
    _, html, report = run
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(html.as_uri())
    chart = page.locator("#rates-chart")
    chart.screenshot(path=str(tmp_path / "rates-chart.png"))
    zeros = sum(1 for b in report["levels"].values() for a in b["agents"].values() if a["rate"] == 0)
    assert zeros > 0, "the fixture has agents that reproduced nothing"
    marks = chart.locator('g[id^="zero-"]')
    assert marks.count() == zeros
    for _, _, w, h in marks.evaluate_all(_BOXES):
        assert w > 2 and h > 1  # a thin bar at zero, not nothing
    for gid in marks.evaluate_all("els => els.map(e => e.id)"):
        assert chart.locator(f'g[id="{gid.replace("zero-", "label-")}"]').text_content().strip() == "0 %"
    drawn = set(chart.locator('g[id^="zero-"] path, g[id^="bar-"] path').evaluate_all(_FILLS))
    legend = set(chart.locator("#rates-legend path").evaluate_all(_FILLS))
    assert legend and legend <= drawn  # every colour in the legend is on a bar
    assert len(legend) == len({a for b in report["levels"].values() for a in b["agents"]})
    listed = set(page.locator("#matrix-legend [data-outcome]").evaluate_all(
        "els => els.map(e => e.dataset.outcome)"))
    assert listed == {t["outcome"] for t in report["trials"]}  # no outcome no trial had
    budget = page.locator("figure.budget").first
    labels = {t.strip() for t in budget.locator("#budget-legend text").all_text_contents()} - {"budget"}
    marked = {i.removeprefix("marks-") for i in budget.locator('g[id^="marks-"]').evaluate_all(
        "els => els.map(e => e.id)")}
    assert labels == marked == {t["outcome"] for t in report["trials"]}


def test_the_budget_chart_spreads_the_trials_and_says_the_spread(run, page, tmp_path):
    _, html, report = run
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(html.as_uri())
    budget = page.locator("figure.budget").first
    budget.screenshot(path=str(tmp_path / "budget-run.png"))
    spots = budget.locator('g[id^="marks-"] use').evaluate_all(_BOXES)
    assert len(spots) == len(report["trials"])
    centres = {(round(x + w / 2), round(y + h / 2)) for x, y, w, h in spots}
    assert len(centres) == len(spots)  # every trial a spot of its own
    note = budget.locator("figcaption").inner_text()
    assert note.startswith(f"{len(report['trials'])} trials used ") and "of a budget of" in note


def _chart_page(page, charts, path):
    page.set_content("<!doctype html><meta charset='utf-8'><body style='width:900px'>" + "".join(
        f"<figure class='budget'>{c.svg}<figcaption>{c.note}</figcaption></figure>" for c in charts))
    page.screenshot(path=path, full_page=True)
    return page.locator("figure.budget")


def test_a_budget_chart_reads_at_any_spread(page, tmp_path):
    """36 trials all alike, 36 spread a thousandfold, and budgets that differ: each reads."""
    from reclaim.report.html.charts import BudgetPoint, budget_chart

    agents = ["claude-code", "codex", "gemini", "reference"]
    alike = [BudgetPoint(f"t{i}__{agents[i % 4]}__0", agents[i % 4], 60.0, 0.3, "not_reproduced")
             for i in range(36)]
    spread = [BudgetPoint(f"t{i}__{agents[i % 4]}__0", agents[i % 4], 600.0, 0.5 * 1.22 ** i,
                          "reproduced" if i % 3 else "budget_exhausted") for i in range(36)]
    differ = [BudgetPoint(f"t{i}__{agents[i % 4]}__0", agents[i % 4], 10.0 * (1 + i % 3), 1.0 + i / 6,
                          "not_reproduced") for i in range(36)]
    figures = _chart_page(page, [budget_chart(alike, "s", "Agent wall time"),
                                 budget_chart(spread, "s", "Agent wall time"),
                                 budget_chart(differ, "GPU-hours", "GPU-hours")], str(tmp_path / "budget-spreads.png"))
    one, wide, uneven = (figures.nth(i) for i in range(3))
    assert one.locator("figcaption").inner_text() == "all 36 trials used 0.3 s of a budget of 60 s"
    spots = one.locator('g[id^="marks-"] use').evaluate_all(_BOXES)
    assert len({round(y) for _, y, _, _ in spots}) > 4  # one value, yet every agent's trials apart
    assert "log scale" in wide.locator("figcaption").inner_text()
    xs = {round(x) for x, _, _, _ in wide.locator('g[id^="marks-"] use').evaluate_all(_BOXES)}
    assert len(xs) > 30  # a thousandfold spread, and the trials do not pile up at one end
    assert uneven.locator('g[id="budget-ticks"] use').count() == 36  # each trial's own budget marked
    assert uneven.locator("figcaption").inner_text() == ("36 trials used 1 to 6.83 GPU-hours of budgets of 10 to 30 "
                                                         "GPU-hours")


def test_reasons_are_grouped_by_cause_and_open_their_trials(run, page, tmp_path):
    _, html, report = run
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(html.as_uri())
    table = page.locator("#reasons")
    causes = table.locator("tbody tr.cause")
    distinct = {(t["outcome"], t["reason"]) for t in report["trials"]}
    assert causes.count() < len(distinct)  # causes repeat in the fixture: grouped, fewer rows
    counts = [int(c) for c in table.locator("td.count").all_inner_texts()]
    assert sum(counts) == len(report["trials"]) and max(counts) > 1
    links = table.locator("a.trial-link")
    ids = sorted(links.evaluate_all("els => els.map(e => e.dataset.trial)"))
    assert ids == sorted(f"{t['task']}__{t['agent']}__{t['seed']}" for t in report["trials"])  # each trial once
    text = " ".join(table.evaluate("t => t.textContent").split())
    for t in report["trials"]:
        assert " ".join(t["rationale"].split()) in text  # in full, none cut
        assert not t["reason"].endswith("…") or t["reason"][:-1] in text
    no_results = table.locator('tr.cause[data-flag="no_results"]')
    assert int(no_results.locator("td.count").inner_text()) == sum(
        1 for t in report["trials"] if "no_results" in t["flags"])
    table.screenshot(path=str(tmp_path / "reasons.png"))
    target = "mean-run__fabricate__0"
    table.locator(f'a.trial-link[data-trial="{target}"]').click()
    article = page.locator("#trial-view article")
    article.wait_for()
    assert article.get_attribute("data-trial-id") == target
    assert page.url.endswith("#trial=" + target)
    assert _outside(page.requests) == []


def test_the_page_uses_its_width_and_still_reads_narrow(run, page, tmp_path):
    _, html, _ = run
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(html.as_uri())
    page.screenshot(path=str(tmp_path / "summary-1400.png"), full_page=True)
    main = page.locator("main").bounding_box()
    assert main is not None and main["width"] > 1000
    right = max(x + w for x, _, w, _ in page.locator("main svg, main table").evaluate_all(_BOXES))
    assert right - main["x"] > 1000  # content reaches across, not only the left half
    rates = page.locator("#rates").bounding_box()
    chart = page.locator("#rates-chart svg").bounding_box()
    assert rates is not None and chart is not None and chart["x"] >= rates["x"] + rates["width"]  # side by side
    page.set_viewport_size({"width": 600, "height": 900})
    page.screenshot(path=str(tmp_path / "summary-600.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 600  # nothing runs off a narrow window
    chart = page.locator("#rates-chart svg").bounding_box()
    assert chart is not None and chart["width"] <= 600


def test_a_cause_is_the_flag_that_decided_the_outcome_not_a_note_beside_it():
    from reclaim.report.html.causes import deciding_flag

    assert deciding_flag(["provenance_unchecked", "materials_check_not_applicable"]) is None  # reproduced, noted
    assert deciding_flag(["network_denied", "no_results"]) == "no_results"
    assert deciding_flag(["hard_coded", "fabrication"]) == "hard_coded"  # the telling one, not the companion
    assert deciding_flag(["fabrication"]) == "fabrication"
    assert deciding_flag(["unparsed_answers:2", "samples_disagree"]) is None
    assert deciding_flag(["a judge model's own words"]) == "a judge model's own words"


def test_many_reasons_fold_and_a_hostile_one_stays_text(run, page, tmp_path):
    """36 trials of one cause, each with a reason of its own (one hostile and long): the first
    reasons shown, the rest folded; every byte text."""
    from reclaim.report.html import summary_html
    from reclaim.report.of_run import report_of

    rd, _, _ = run
    report, records = report_of(rd)
    row = next(t for t in report.trials if "no_results" in t.flags)
    report.trials += [row.model_copy(update={"seed": 100 + i, "rationale": f"left no result, try {i}"})
                      for i in range(35)]
    report.trials[-1].rationale = HOSTILE * 40  # long: folded into details, shown whole when opened
    page.set_viewport_size({"width": 1400, "height": 900})
    page.set_content(summary_html(rd, report, records, embed_trials=False))
    cause = page.locator('#reasons tr.cause[data-flag="no_results"]')
    assert int(cause.locator("td.count").inner_text()) == 4 + 35
    assert cause.locator("td.texts > .reason").count() == 5
    more = cause.locator("td.texts > details.more")
    assert more.locator("summary").first.inner_text() == "31 more reasons"
    more.locator("summary").first.click()
    cause.screenshot(path=str(tmp_path / "reasons-many.png"))
    hostile = page.locator("#reasons p.text", has_text="trust me").first
    assert "<script>window.pwned = 1</script>" in hostile.text_content()
    assert page.evaluate("window.pwned") is None
    assert page.locator("#reasons img").count() == 0
    assert _outside(page.requests) == []


def test_agents_never_take_an_outcomes_colour():
    """The rates chart colours agents and the grid beside it colours outcomes: no agent's colour may be
    read as an outcome (once the nop baseline was drawn in the orange of budget_exhausted)."""
    import colorsys

    from reclaim.report.html.charts import AGENT_COLOURS, OUTCOME_COLOURS

    def hsv(c: str) -> tuple[float, float, float]:
        r, g, b = (int(c[i:i + 2], 16) / 255 for i in (1, 3, 5))
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return h * 360, s, v

    for agent in AGENT_COLOURS:
        ha, sa, _ = hsv(agent)
        assert sa >= 0.2, f"{agent} is nearly grey, as error and skipped are"
        for outcome, colour in OUTCOME_COLOURS.items():
            ho, so, _ = hsv(colour)
            if so < 0.2:
                continue
            apart = min(abs(ha - ho), 360 - abs(ha - ho))
            assert apart >= 25, f"agent colour {agent} is {apart:.0f}° from {outcome}'s {colour}"


def test_the_flag_table_reads_wide_and_narrow(run, page, tmp_path):
    """Once the flags sat in a 260 px column beside the reasons: one word of meaning per line."""
    _, html, _ = run
    for width in (1400, 600):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(html.as_uri())
        table = page.locator("#flags")
        table.screenshot(path=str(tmp_path / f"flags-{width}.png"))
        cells = table.locator("td.words")
        assert cells.count() > 0
        for i in range(cells.count()):
            box = cells.nth(i).bounding_box()
            assert box is not None and box["width"] >= 200, (width, box)
            words = len(cells.nth(i).inner_text().split())
            lines = round(box["height"] / 18)  # 13 px type at its line height
            assert lines <= max(1, words // 3), (width, words, box)  # not a word a line
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        names = table.locator("td:first-child").all_inner_texts()
        assert len(names) == len(set(names))
        for flag, meaning in zip(names, cells.all_inner_texts(), strict=True):
            assert meaning.strip().lower() != flag.strip().replace("_", " ").lower(), f"{flag} — {meaning}"

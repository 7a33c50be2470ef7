"""The loops page of `bmn records serve` under rule sets: each cycle with the rule set it was
found under (one key under two rule sets is two rows), its example deal linked to its replay
under that rule set, its cycle key in a monospace font. Slow: the page in headless Chromium."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path

import pytest
from samples import CASELLA, stored_cycle
from test_serve import HANG_SECONDS, browser_or_skip, cells, served_in_chromium

from bmn.frontends.serve import pages
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import parse_deal
from bmn.records.store import Store

LOOPS = f"{pages.PREFIX}/loops"


def hunted(path: Path, rule_sets: tuple[str, ...]) -> Path:
    with Store(path) as db:
        for seen, rules in enumerate(rule_sets, start=1):
            run = db.create_run(None, "loop", 1, {}, kind="loop-hunt", rules=rules)
            db.add_loops(run, [(stored_cycle(rules=rules, balanced_deals=18), seen)])
            db.update_run(run, status="finished")
    return path


def loops_page(path: Path) -> str:
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app

    response = asyncio.run(app(path).client.get(LOOPS))
    assert response.status_code == 200
    return response.text


def test_each_cycle_with_its_rule_set_and_its_replay_under_it(path):
    page = loops_page(hunted(path, ("bmn", "paulhus")))
    key = analyse(parse_deal(CASELLA)).key
    assert cells(page, "loops", "rules") == ["bmn", "paulhus"]
    assert cells(page, "loops", "cycle key") == [key, key]  # one key, two games
    assert cells(page, "loops", "seen") == ["1", "2"]
    table = re.search(r'<table[^>]*id="loops".*?</table>', page, re.S).group(0)
    links = [
        html.unescape(h) for h in re.findall(r'<td class="[^"]*deal"><a href="([^"]+)"', table)
    ]
    assert links == [pages.deal_url(CASELLA), pages.deal_url(CASELLA, "paulhus")]
    assert "rules=paulhus" in links[1] and "rules=" not in links[0]
    assert len(re.findall(r'<td class=" key">', table)) == 2  # the key's cells: monospace


def test_a_store_of_bmns_cycles_only_names_their_rule_set_too(path):
    page = loops_page(hunted(path, ("bmn",)))
    assert cells(page, "loops", "rules") == ["bmn"]


@pytest.mark.slow
def test_the_loops_page_in_a_browser(path, tmp_path):
    """In Chromium: the rules column, the cycle key drawn monospace (as the deals, and unlike
    the rest of the table), and the paulhus cycle's example replaying under paulhus."""
    browser_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    hunted(path, ("bmn", "paulhus"))
    with served_in_chromium(path, tmp_path / "chromium") as served:
        browser = served.browser
        browser.get(served.url.rstrip("/") + LOOPS)
        table = browser.find_element(By.ID, "loops")
        head = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        rules, key, run = (head.index(name) for name in ("rules", "cycle key", "run"))

        def font(row, column: int) -> str:
            cell = row.find_elements(By.TAG_NAME, "td")[column]
            return cell.value_of_css_property("font-family")

        assert [r.find_elements(By.TAG_NAME, "td")[rules].text for r in rows] == ["bmn", "paulhus"]
        assert all("monospace" in font(row, key) for row in rows), font(rows[0], key)
        assert "monospace" not in font(rows[0], run)  # the rest stays the page's own font
        rows[1].find_element(By.CSS_SELECTOR, "td.deal a").click()
        WebDriverWait(browser, HANG_SECONDS).until(lambda b: b.find_elements(By.ID, "bmn-rules"))
        assert browser.find_element(By.ID, "bmn-rules").get_attribute("data-rules") == "paulhus"
        assert browser.find_element(By.ID, "bmn-status").text == "loop"
    assert served.returncode == 0

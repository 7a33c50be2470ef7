"""The web page's replay under a rule set: `?rules=NAME` plays the deal as `bmn play --rules
NAME` does, the page names the set, the form offers every set, and a set that does not play
the deal's seats is a 400 page. Slow: the form in headless Chromium."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from samples import RECORD
from test_serve import HANG_SECONDS, browser_or_skip, served_in_chromium

from bmn.frontends.serve import pages
from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play
from bmn.kernels.rules.sets import RULE_SETS
from bmn.records.store import Store

ENDS_AT_ONCE = "Q-/--J"  # docs/rules.md: seat 1's last card, a J, ends the game under at-once
THREE = "--K------A-A----J-/A-----K-A--Q-J---/-JJ-QK-Q-----KQ--"  # bmn deal --players 3 --seed 5


@pytest.fixture
def served(path):
    """get(url) -> (status, text) through Datasette's client, on an empty store."""
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app

    Store(path).close()
    datasette = app(path)

    def get(url: str) -> tuple[int, str | bytes]:
        response = asyncio.run(datasette.client.get(url))
        text = response.headers["content-type"].startswith("text/")
        return response.status_code, response.text if text else response.content

    return get


def shown(page: str, name: str) -> str:
    return re.search(rf'id="bmn-{name}"[^>]*>([^<]*)<', page).group(1)


def test_a_deal_replayed_under_a_rule_set_is_the_reference_engines(served):
    want = play(parse_deal(THREE), rules="paulhus")
    assert want.cards != play(parse_deal(THREE)).cards
    status, page = served(pages.deal_url(THREE, "paulhus"))
    assert status == 200
    assert (shown(page, "cards"), shown(page, "tricks")) == (f"{want.cards:,}", f"{want.tricks:,}")
    assert shown(page, "rules").startswith("paulhus: Paulhus (1999)")
    assert 'id="bmn-rank" class="bmn-empty"' in page  # the tables hold bmn's figures
    assert pages.picture_url(THREE, "paulhus").replace("&", "&amp;") in page
    _, default = served(pages.deal_url(RECORD))
    assert shown(default, "rules").startswith("bmn: ") and "rules=" not in pages.deal_url(RECORD)


def test_an_alias_any_case_and_the_refusals(served):
    status, page = served(f"{pages.deal_url(RECORD)}&rules=AB0214")
    want = play(parse_deal(RECORD), rules="pelagaletto2")
    assert status == 200 and shown(page, "tricks") == f"{want.tricks:,}"
    assert 'data-rules="pelagaletto2"' in page
    status, page = served(pages.deal_url(THREE, "leodog896"))
    assert status == 400 and "rule set &#39;leodog896&#39; plays 2 seats; this deal has 3" in page
    status, page = served(f"{pages.deal_url(RECORD)}&rules=paulus")
    assert status == 400 and "rules is one of bmn, paulhus" in page
    status, png = served(pages.picture_url("-J/Q-", "at-once"))
    assert status == 200 and png[:4] == b"\x89PNG"


def test_the_forms_offer_every_rule_set(served):
    for url in ("/", pages.deal_url(RECORD, "at-once")):
        _, page = served(url)
        form = re.search(r'<select name="rules" id="bmn-rules-choice">(.*?)</select>', page).group(
            1
        )
        assert re.findall(r'<option value="([^"]+)"', form) == list(RULE_SETS)
        chosen = re.findall(r'<option value="([^"]+)" selected', form)
        assert chosen == (["bmn"] if url == "/" else ["at-once"])


@pytest.mark.slow
def test_the_form_replays_under_the_rule_set_chosen_as_bmn_play_does(bmn, path, tmp_path):
    browser_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    Store(path).close()
    with served_in_chromium(path, tmp_path / "chromium") as served:
        browser = served.browser
        browser.find_element(By.NAME, "deal").send_keys(ENDS_AT_ONCE)
        Select(browser.find_element(By.ID, "bmn-rules-choice")).select_by_value("pelagaletto2")
        browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
        WebDriverWait(browser, HANG_SECONDS).until(lambda b: b.find_elements(By.ID, "bmn-cards"))
        played = json.loads(bmn("play", ENDS_AT_ONCE, "--rules", "pelagaletto2", "--json").stdout)
        page = {
            name: browser.find_element(By.ID, f"bmn-{name}").text for name in ("cards", "tricks")
        }
        assert page == {"cards": f"{played['cards']:,}", "tricks": f"{played['tricks']:,}"}
        assert (
            browser.find_element(By.ID, "bmn-rules").get_attribute("data-rules") == "pelagaletto2"
        )
        bmns = play(parse_deal(ENDS_AT_ONCE))
        assert (played["cards"], played["tricks"]) == (5, 1) != (bmns.cards, bmns.tricks)
        # The deal page's own form replays the same deal under another set.
        Select(browser.find_element(By.ID, "bmn-rules-choice")).select_by_value("bmn")
        browser.find_element(By.CSS_SELECTOR, "#bmn-rules-form input[type=submit]").click()
        again = '#bmn-rules[data-rules="bmn"]'  # the new page: each look is a fresh one
        WebDriverWait(browser, HANG_SECONDS).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, again)
        )
        figures = [browser.find_element(By.ID, f"bmn-{name}").text for name in ("cards", "tricks")]
        assert figures == [str(bmns.cards), str(bmns.tricks)] == ["6", "2"]
    assert served.returncode == 0


def published_cells(page: str, players: int, column: str) -> list[str]:
    from test_serve import cells

    return cells(page, f"published-{players}", column)


def test_the_published_page_names_each_row_s_rule_set_and_links_its_replay(served):
    from bmn.records.published import published_games

    status, page = served(f"{pages.PREFIX}/published")
    assert status == 200
    for players in (2, 3, 4):
        games = published_games(players)
        assert published_cells(page, players, "rules") == [game.rules for game in games]
        for game in games:  # each deal's link replays it under the rule set its row claims
            assert pages.deal_url(game.deal, game.rules).replace("&", "&amp;") in page
    assert "paulhus" in published_cells(page, 3, "rules")
    [endless] = [g for g in published_games(4) if g.name == "bmn 2026 endless (paulhus) #1"]
    status, replay = served(pages.deal_url(endless.deal, endless.rules))
    assert status == 200 and 'data-rules="paulhus"' in replay
    assert shown(replay, "cards") == f"{endless.cards:,}" and "never ends" in replay


@pytest.mark.slow
def test_a_paulhus_row_of_the_published_page_replays_in_the_browser(bmn, path, tmp_path):
    """In Chromium: the published page's rules column, and a paulhus row's deal followed to
    its replay under Paulhus's reading, as `bmn play --rules paulhus` gives it."""
    browser_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from bmn.records.published import published_games

    Store(path).close()
    with served_in_chromium(path, tmp_path / "chromium") as served:
        browser = served.browser
        browser.get(f"{served.url}-/bmn/published")
        table = browser.find_element(By.ID, "published-3")
        head = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        at = head.index("rules")
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ruled = [row for row in rows if row.find_elements(By.TAG_NAME, "td")[at].text == "paulhus"]
        paulhus = [g for g in published_games(3) if g.rules == "paulhus"]
        assert len(ruled) == len(paulhus) and len(rows) > len(paulhus)
        link = ruled[0].find_element(By.CSS_SELECTOR, "td.deal a")
        deal = link.text
        link.click()
        WebDriverWait(browser, HANG_SECONDS).until(lambda b: b.find_elements(By.ID, "bmn-cards"))
        played = json.loads(bmn("play", deal, "--rules", "paulhus", "--json").stdout)
        assert played["status"] == "loop"
        figures = [browser.find_element(By.ID, f"bmn-{name}").text for name in ("cards", "tricks")]
        assert figures == [f"{played['cards']:,}", f"{played['tricks']:,}"]
        assert browser.find_element(By.ID, "bmn-rules").get_attribute("data-rules") == "paulhus"
    assert served.returncode == 0

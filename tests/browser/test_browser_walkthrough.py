"""The walkthrough followed in a real browser (Debian Chromium through Playwright), with screenshots.

One dashboard and one browser for the module (the fixtures of tests/browser/test_browser.py, started afresh here),
one session: the check marks live in it, so the walkthrough is reached again through the navigation.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser import test_browser
from tests.browser.test_browser import settled, shot, wait_graphs

dashboard = test_browser.dashboard
page = test_browser.page


def graph_page_settled(page) -> None:
    """The path graph has rendered down to its last section (widgets above are then stable)."""
    expect(page.get_by_text("Explore: shortest qualifying path")).to_be_visible(timeout=30_000)


def back_to_walkthrough(page) -> None:
    page.get_by_role("link", name="Walkthrough").click()
    expect(page.get_by_text("Five-minute walkthrough")).to_be_visible(timeout=30_000)


def test_walkthrough_in_the_browser(page, dashboard):
    """Follow all six steps from the walkthrough's own buttons; every step ends ticked."""
    page.goto(dashboard)  # a visitor arrives on the alert queue; the walkthrough is first in the navigation
    expect(page.get_by_text("alert queue")).to_be_visible(timeout=30_000)
    back_to_walkthrough(page)
    expect(page.get_by_text("0 of 6 outcomes seen")).to_be_visible(timeout=30_000)

    # 1. depth 4 from the button, then the slider to 5
    page.get_by_role("button", name="Open the path graph of BH-1042 at depth 4").click()
    expect(page.get_by_text("No qualifying path within 4 hops")).to_be_visible(timeout=30_000)
    graph_page_settled(page)
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_text("Qualifying paths (1)")).to_be_visible(timeout=30_000)
    wait_graphs(page, 1)
    shot(page, "walkthrough-depth", 1100)
    back_to_walkthrough(page)
    expect(page.get_by_text("1 of 6 outcomes seen")).to_be_visible(timeout=30_000)

    # 2. choke points, then a what-if
    page.get_by_role("button", name="Open the path graph of BH-CONTAINMENT-4001").click()
    expect(page.get_by_text("Choke points: the fewest changes")).to_be_visible(timeout=30_000)
    graph_page_settled(page)
    routes = page.get_by_test_id("stMultiSelect").filter(has_text="Routes to treat as blocked").locator("input")
    expect(routes).to_be_visible(timeout=30_000)
    routes.click()
    routes.press_sequentially("route-c11-primary")
    expect(page.get_by_role("option", name="route-c11-primary")).to_be_visible(timeout=30_000)
    routes.press("Enter")
    page.keyboard.press("Escape")
    expect(page.get_by_text("of 2 qualifying path(s) would remain")).to_be_visible(timeout=30_000)
    back_to_walkthrough(page)
    expect(page.get_by_text("2 of 6 outcomes seen")).to_be_visible(timeout=30_000)

    # 3. a cap-1 run stops
    page.get_by_role("button", name="Open containment of BH-CONTAINMENT-4001 with the rules and a cap of 1").click()
    expect(page.get_by_text("Current response candidates")).to_be_visible(timeout=30_000)
    settled(page)
    expect(page.get_by_label("Action cap (1-10)")).to_have_value("1")  # the run starts with what is shown
    page.get_by_text("I confirm: this run may block session routes in the graph").click()
    settled(page)
    expect(page.get_by_label("Action cap (1-10)")).to_have_value("1")
    page.get_by_role("button", name="Start containment run").click()
    expect(page.get_by_text("NOT CONTAINED — stopped")).to_be_visible(timeout=60_000)
    shot(page, "walkthrough-stopped", 1400)
    back_to_walkthrough(page)

    # 4. the checker refuses both sample briefings
    page.get_by_role("button", name="Check the two sample briefings now").click()
    expect(page.get_by_text("4 of 6 outcomes seen")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("false_containment").first).to_be_visible()
    expect(page.get_by_text("unknown_entity").first).to_be_visible()

    # 5. a later run completes
    page.get_by_role("button", name="Open containment of BH-CONTAINMENT-4001 with the rules and a cap of 3").click()
    expect(page.get_by_text("Current response candidates")).to_be_visible(timeout=30_000)
    settled(page)
    expect(page.get_by_label("Action cap (1-10)")).to_have_value("3")
    page.get_by_text("I confirm: this run may block session routes in the graph").click()
    settled(page)
    page.get_by_role("button", name="Start containment run").click()
    expect(page.get_by_text("CONTAINED — completed")).to_be_visible(timeout=60_000)
    back_to_walkthrough(page)

    # 6. reset the demo
    page.get_by_role("button", name="Reset the demo scenarios").click()
    expect(page.get_by_text("6 of 6 outcomes seen")).to_be_visible(timeout=30_000)
    expect(page.get_by_role("heading", name="check_circle")).to_have_count(6, timeout=30_000)
    expect(page.get_by_role("heading", name="radio_button_unchecked")).to_have_count(0)
    page.get_by_text("6 of 6 outcomes seen").scroll_into_view_if_needed()
    shot(page, "walkthrough-done", 2900)

"""Fixtures for the admin page tests (they live in admin_kit.py, which the tests import helpers from)."""

from playwright.sync_api import expect

from admin_kit import browser, host, page_for  # noqa: F401  (pytest fixtures)

# Page assertions wait as long as page actions do (15 s, see page_for): a reload that opens the page,
# reads /health, proves the key and lists memories took longer than Playwright's 5 s default on a
# fresh-clone CI run while the machine was busy. A real failure still fails, only later.
expect.set_options(timeout=15_000)

"""Fixtures for the admin page tests (they live in admin_kit.py, which the tests import helpers from)."""

from admin_kit import browser, host, page_for  # noqa: F401  (pytest fixtures)

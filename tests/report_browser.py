"""Opening a report in headless Chromium (Debian's `chromium`, driven by playwright over a
pipe): what it shows, what it logs, what it requests. Used by tests/test_report.py."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("the report's browser test needs Chromium: apt-get install chromium (install.sh does on Debian)")


@dataclass
class PageVisit:
    text: str
    """The page's visible text (innerText of the body)."""
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    """alert()/confirm() messages: a script smuggled in by a row would show up here."""
    title: str = ""
    result: Any = None
    """What ``actions(page)`` returned (typing, clicking, reading the page after)."""


def visit(page_path: Path, screenshot: Path | None = None, *, full_page: bool = True,
          width: int = 1280, height: int = 1000, actions: Callable[[Any], Any] | None = None) -> PageVisit:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="localeval-chromium-") as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS,
            viewport={"width": width, "height": height},
        )
        try:
            visit = PageVisit(text="")
            context.on("request", lambda r: visit.requests.append(r.url))
            page = context.new_page()
            page.on("console", lambda m: visit.console_errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: visit.console_errors.append(str(e)))
            page.on("dialog", lambda d: (visit.dialogs.append(d.message), d.dismiss()))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            visit.text = page.inner_text("body")
            visit.title = page.title()
            if actions is not None:
                visit.result = actions(page)
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=full_page)
        finally:
            context.close()
    return visit

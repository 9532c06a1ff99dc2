"""Every relative link in the README and docs/ leads to a file that exists, and to a heading
there when it names one; every page of docs/ is linked from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces
    to hyphens (a repeated heading's "-1" suffix is not needed by any link here)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    anchors = set()
    for heading in HEADING.findall(text):
        plain = re.sub(r"[`*]", "", heading).strip().lower()
        anchors.add(re.sub(r"[^\w\- ]", "", plain).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        linked = (page.parent / path) if path else page
        heading_missing = anchor and linked.suffix == ".md" and anchor not in _anchors(linked)
        if not linked.exists() or heading_missing:
            broken.append(target)
    assert not broken, f"{page.name} links to missing files or headings: {broken}"


def test_the_readme_links_every_docs_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in PAGES[1:] if f"](docs/{p.name})" not in readme]
    assert unlinked == []


def test_the_readme_stays_short():
    # The README is what the platform is, its commands, its settings and links: the guides
    # live in docs/ (it was 1,310 lines before they moved).
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 200

"""The README is the front door and the docs/ pages hold the rest: the README's first section gives
the two commands a fresh machine needs, and every pointer into docs/ (a page, a page and a section,
a relative link) leads somewhere that exists, so that moving a section cannot leave one dangling."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# Where a text names a docs page and one of its sections: `docs/strength.md`, "The arena" (or the
# same in parentheses, or in a comment split over two lines).
SECTION_REFERENCE = re.compile(r"docs/([\w-]+\.md)`?,\s+(?:#\s*)?\"([^\"]+)\"")
PAGE_REFERENCE = re.compile(r"docs/([\w-]+\.md)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _first_section(text: str) -> str:
    return text.split("\n## ", 1)[0]


def _headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip().replace("`", "") for line in page.read_text().splitlines() if line.startswith("#")]


def _texts() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md")), *sorted((ROOT / "src").rglob("*.py")), *sorted(ROOT.glob("tests/*.py"))]


def test_the_readmes_first_section_gives_the_two_commands_a_fresh_machine_needs() -> None:
    first = _first_section(README.read_text())
    blocks = re.findall(r"```[^\n]*\n(.*?)```", first, re.S)
    assert [block.split() for block in blocks] == [["make", "serve", "make", "test"]], blocks
    assert "a fresh machine needs only Python 3.11+, pip and make" in " ".join(first.split())


def test_the_readme_is_a_front_door_not_a_notebook() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines: measurements and how-tos belong in docs/"
    tables = [line for line in lines if line.startswith("|---")]
    assert len(tables) <= 1, "only the list of docs pages is a table in the README"


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pointer_into_docs_leads_to_a_page_and_section_that_exist(path: Path) -> None:
    text = path.read_text()
    missing = [m.group(1) for m in PAGE_REFERENCE.finditer(text) if not (DOCS / m.group(1)).exists()]
    assert not missing, f"{path.name} names docs pages that do not exist: {missing}"
    for m in SECTION_REFERENCE.finditer(text):
        page, section = m.group(1), " ".join(m.group(2).split()).replace("`", "")
        headings = _headings(DOCS / page)
        assert any(section in heading for heading in headings), f"{path.name}: docs/{page} has no section {section!r}"
    if path.suffix == ".md":
        for link in LINK.findall(text):
            if not link.startswith(("http://", "https://")):
                assert (path.parent / link).exists(), f"{path.name} links to {link}, which does not exist"


def test_the_readmes_screenshot_is_there_and_small() -> None:
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text())
    assert images, "the README shows a table in the browser"
    for image in images:
        size = (ROOT / image).stat().st_size
        assert size < 200_000, f"{image} is {size:,} bytes: remake it with benchmarks/screenshot.py"

"""Every relative link in README.md, docs/*.md and docs/plugins/*.md leads to a file that exists,
and every ``#anchor`` to a heading of that page (GitHub's heading ids)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "plugins").glob("*.md")),
]
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def prose(text: str) -> str:
    """*text* without fenced code blocks (whose ``#`` lines are no headings)."""
    return FENCE.sub("", text)


def anchors(page: Path) -> set[str]:
    """The ids GitHub gives the headings of *page*: lower case, punctuation dropped, spaces as
    hyphens, a repeated id numbered ``-1``, ``-2``..."""
    seen: dict[str, int] = {}
    ids = set()
    for heading in HEADING.findall(prose(page.read_text(encoding="utf-8"))):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def links(page: Path) -> list[str]:
    text = CODE_SPAN.sub("", prose(page.read_text(encoding="utf-8")))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def test_the_pages_have_links() -> None:
    assert len(PAGES) > 10
    assert links(ROOT / "README.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that id in {linked.name}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_index_links_every_page() -> None:
    index = ROOT / "docs" / "README.md"
    linked = {(index.parent / target.partition("#")[0]).resolve() for target in links(index)}
    docs = [p for p in PAGES if ROOT / "docs" in p.parents and p != index]
    missing = [p.relative_to(index.parent).as_posix() for p in docs if p not in linked]
    assert not missing, f"docs/README.md does not link {missing}"


def test_anchor_ids_follow_github() -> None:
    page = ROOT / "docs" / "plugin-authors.md"
    assert "4-install-it-and-see-it-in-hermes" in anchors(page)
    assert "2-one-hook-a-call-interceptor" in anchors(page)

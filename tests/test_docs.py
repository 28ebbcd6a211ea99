"""The README starts short and the docs hang together: one index that links every page,
relative links (and their #anchors) that resolve, no dated timings in the README."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
INDEX = DOCS / "index.md"
PAGES = [README, REPO / "ARCHITECTURE.md", *sorted(DOCS.rglob("*.md"))]
#: the shipped encoder's id, which ``--model`` accepts offline (natcomp.hf.models.SHIPPED_MODELS)
SHIPPED_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def prose(path: Path) -> str:
    """The page without its fenced code blocks (a ``[x](y)`` there is code, not a link)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than ``-`` and ``_``
    dropped, each space a hyphen."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {anchor(line.lstrip("#")) for line in prose(path).splitlines() if re.match(r"#{1,6} ", line)}


def relative_links(path: Path) -> list[str]:
    return [target for target in LINK.findall(prose(path)) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    broken = []
    for target in relative_links(page):
        file_part, _, fragment = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"{target}: no heading #{fragment} in {linked.relative_to(REPO)}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_the_anchor_rule_is_githubs():
    assert anchor("Running on GPUs / a GPU cluster") == "running-on-gpus--a-gpu-cluster"
    assert anchor("The MT family (`src/natcomp/mt/`)") == "the-mt-family-srcnatcompmt"
    assert anchor("5. Installing for a GPU cluster") == "5-installing-for-a-gpu-cluster"


def test_the_readme_links_the_one_index_and_the_index_links_every_page():
    assert "(docs/index.md)" in README.read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for target in relative_links(INDEX)}
    unlinked = [page.name for page in DOCS.glob("*.md") if page != INDEX and page.name not in linked]
    assert not unlinked, f"docs pages missing from docs/index.md: {unlinked}"


def test_the_readme_is_short_and_its_first_screen_says_how_to_start():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150, f"README.md has {len(lines)} lines; details belong in docs/"
    first_screen = "\n".join(lines[:25])
    for needed in ("make demo", "make test", f"natcomp evaluate --model {SHIPPED_ENCODER}", "natcomp compare"):
        assert needed in first_screen, needed
    from natcomp.hf.models import SHIPPED_MODELS

    assert SHIPPED_ENCODER in SHIPPED_MODELS, "the README's id is one --model accepts offline"


def test_the_readme_has_no_dated_timings():
    """Timings change with the machine: docs/performance.md records them with date and machine."""
    text = README.read_text(encoding="utf-8")
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a date"
    timing = re.search(r"\b\d[\d,.]*\s*(s|seconds?|min|minutes?|hours?)\b", text)
    assert not timing, f"a timing: {timing.group(0)!r}"


# ------------------------------------------------------------------ no development history in the guides

#: the pages a user reads: they say what is true now; history goes in CHANGELOG.md.
#: docs/performance.md is one of them, except that its table dates each measurement by design
GUIDES = [README, *sorted(DOCS.rglob("*.md"))]
DATED_PAGES = {"performance.md"}
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? #?\d+|\(#\d+\)|\bPR #?\d+")
HEX = re.compile(r"(?<![\w./-])[0-9a-f]{7,40}(?![\w-])")
#: hexadecimal strings in the guides that are no commit of this project: an upstream
#: repository's pinned commit (the paper's released test items) and a file's sha256 prefix
NOT_OUR_COMMITS = {"b69f233": "the upstream repository's pinned commit", "53aa5117": "a sha256 prefix"}
DATE = re.compile(r"(?<![\w-])20\d\d-[01]\d-[0-3]\d\b")
PAST_RUN = re.compile(r"\bthis session\b|\bwas lent\b|\b(?:before|until|after|since) issues?\b", re.I)


def history_in(path: Path) -> list[str]:
    """Every ``line: what`` of a page that carries development history: an issue number, a
    commit hash (7-40 hex digits with a digit and a letter), a date (other than a release
    name such as Tatoeba's v2020-07-28) or an account of a past session's run."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{path.relative_to(REPO)}:{number}"
        found += [f"{where}: issue number {hit.group(0)!r}" for hit in ISSUE_NUMBER.finditer(line)]
        for hit in HEX.finditer(line):
            text = hit.group(0)
            if re.search(r"\d", text) and re.search(r"[a-f]", text) and text not in NOT_OUR_COMMITS:
                found.append(f"{where}: commit hash {text!r}")
        found += [f"{where}: date {hit.group(0)!r}" for hit in DATE.finditer(line)]
        found += [f"{where}: past run {hit.group(0)!r}" for hit in PAST_RUN.finditer(line)]
    return found


@pytest.mark.parametrize("page", GUIDES, ids=lambda page: str(page.relative_to(REPO)))
def test_the_guides_carry_no_issue_numbers_hashes_dates_or_past_runs(page):
    found = history_in(page)
    if page.name in DATED_PAGES:
        found = [entry for entry in found if ": date " not in entry]
    assert not found, "history belongs in CHANGELOG.md: " + "; ".join(found)


def test_the_history_check_finds_each_kind(tmp_path):
    page = REPO / "docs" / "_history_check.md"  # under REPO: the check names pages relative to it
    page.write_text(
        "Adapters (issue 43.3) and issues 41-43 (#12).\nAt commit 53ecb21, and 1ecae1a.\n"
        "Measured 2026-11-27; Tatoeba v2020-07-28 is a release. Not measured in this session.\n"
        "Anchors #5-installing-for-a-gpu-cluster, sha 53aa5117, a word like deadbeef or 1234567.\n",
        encoding="utf-8",
    )
    try:
        found = history_in(page)
    finally:
        page.unlink()
    assert [entry.split(": ", 1)[1] for entry in found] == [
        "issue number 'issue 43'", "issue number 'issues 41'", "issue number '(#12)'",
        "commit hash '53ecb21'", "commit hash '1ecae1a'", "date '2026-11-27'", "past run 'this session'",
    ]  # fmt: skip
    assert found[0].startswith("docs/_history_check.md:1: ") and found[3].startswith("docs/_history_check.md:2: ")


# ------------------------------------------------------------------ timings live in one table

#: the one page of measured times (each with its machine and date); CHANGELOG.md is history
TIMED_PAGES = {"performance.md"}
_DURATION = r"\d[\d,.]*(?:\s?(?:-|to)\s?\d[\d,.]*)?\s?(?:s|secs?|seconds?|min|mins|minutes?|h|hours?)\b"
TIMING = re.compile(
    r"\b(?:took|takes?|taking|ran|runs?|lasts?|in|about|under|within|after|of|spent|costs?)\s+"
    r"(?:about\s+|some\s+|under\s+|over\s+|only\s+|roughly\s+)?" + _DURATION,
    re.I,
)
#: a line that states a budget, a goal, a limit or an estimate quotes no measured time
NOT_A_MEASUREMENT = re.compile(r"budget|goal|limit|estimat|must", re.I)


def timings_in(path: Path) -> list[str]:
    """Every ``file:line: text`` where a page quotes how long something took or takes."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if NOT_A_MEASUREMENT.search(line):
            continue
        found += [f"{path.relative_to(REPO)}:{number}: {hit.group(0)!r}" for hit in TIMING.finditer(line)]
    return found


@pytest.mark.parametrize(
    "page", [page for page in PAGES if page.name not in TIMED_PAGES], ids=lambda page: str(page.relative_to(REPO))
)
def test_no_page_but_performance_md_quotes_a_timing(page):
    found = timings_in(page)
    assert not found, "a timing belongs in docs/performance.md (link to it): " + "; ".join(found)


def test_the_timing_check_finds_times_and_leaves_budgets_alone():
    page = REPO / "docs" / "_timing_check.md"
    page.write_text(
        "The demo took 7 min 35 s.\nIt runs in about 528 s on two cores.\nCI must stay under 40 minutes.\n"
        "Its goal: 30 epochs in under 40 hours.\nA 16 s timeout is a limit.\nIt has 3 heads in 2 layers.\n",
        encoding="utf-8",
    )
    try:
        found = timings_in(page)
    finally:
        page.unlink()
    assert [entry.split(": ", 1)[1] for entry in found] == ["'took 7 min'", "'in about 528 s'"]

"""The original study's released test sets (mt.tests.items: released): the archive's files
checked against the shipped manifest, and a reader per test layout that turns them into
natcomp's item tables.

``../shared/data/paradox_mt/released_items/`` holds part of the release in its own layout
(every S -> NP VP file, the synthetic S -> S CONJ S files and natural template 1, synthetic
substitutivity template 1 and natural pair 0, synthetic overgeneralisation template 1); the
tests build an archive of it as GitHub serves one, extract it through the manifest and read
every file. The other tests run on small files written here.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.mt import released_items as released
from natcomp.mt.items import NATURAL_SUBSTITUTIVITY_COLUMNS, NP_VP_COLUMNS, OVERGENERALISATION_COLUMNS, write_items
from natcomp.mt.lexicon import load_idioms, load_synonyms
from natcomp.mt.releases import extract_checked_files
from natcomp.mt.scoring import read_items
from natcomp.shipped import resource_path

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "paradox_mt"
RELEASED = SHARED / "released_items"
needs_release = pytest.mark.skipif(
    not RELEASED.is_dir(), reason=f"the released test items are not here ({RELEASED}); they live outside the project"
)
TOP = f"compositionality_paradox_mt-{released.RELEASE_COMMIT}"


def archive_of(files: dict[str, bytes], path: Path, top: str = TOP) -> Path:
    """A .tar.gz with ``files`` (release path -> bytes) below one top folder, as GitHub's archive."""
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def checks(files: dict[str, bytes]) -> dict[str, tuple[int, str]]:
    return {name: (len(data), hashlib.sha256(data).hexdigest()) for name, data in files.items()}


# --------------------------------------------------------------------------------------
# the archive, checked file by file


def test_the_manifest_lists_every_test_file_of_the_release_and_its_index_lists():
    manifest = released.read_manifest()
    assert len(manifest) == 1442
    tops = {name.split("/")[0] for name in manifest}
    assert tops == {"systematicity", "substitutivity", "overgeneralisation"}
    assert {"substitutivity/synonyms.tsv", "overgeneralisation/idioms.tsv"} <= set(manifest)
    assert "overgeneralisation/natural/0.en" in manifest and "substitutivity/natural/19.nl" in manifest


@needs_release
def test_the_manifest_is_the_releases_own_checksums():
    """Every released file here has the size and sha256 the shipped manifest lists."""
    manifest = released.read_manifest()
    present = [path for path in RELEASED.rglob("*") if path.is_file()]
    listed = [path for path in present if path.relative_to(RELEASED).as_posix() in manifest]
    assert len(listed) == 146, "149 files, 3 of them data/ files the tests do not read"
    for path in listed:
        data = path.read_bytes()
        assert manifest[path.relative_to(RELEASED).as_posix()] == (len(data), hashlib.sha256(data).hexdigest())


def test_an_archive_is_extracted_whole_with_every_file_checked(tmp_path):
    files = {"a/1.en": b"The poet sleeps .\n", "b/2.en": b"x\n"}
    archive = archive_of({**files, "README.md": b"not listed\n"}, tmp_path / "r.tar.gz")
    assert extract_checked_files(archive, checks(files), tmp_path / "out") == 2
    assert (tmp_path / "out" / "a" / "1.en").read_bytes() == files["a/1.en"]
    assert not (tmp_path / "out" / "README.md").exists(), "only listed files"
    flat = archive_of(files, tmp_path / "flat.tar.gz", top="")
    assert extract_checked_files(flat, checks(files), tmp_path / "flat") == 2, "without a top folder too"


def test_a_changed_or_missing_file_is_one_line_and_leaves_no_folder(tmp_path):
    files = {"a/1.en": b"The poet sleeps .\n", "b/2.en": b"x\n"}
    changed = archive_of({**files, "b/2.en": b"y\n"}, tmp_path / "changed.tar.gz")
    with pytest.raises(InputError, match=r"changed\.tar\.gz: b/2\.en: 2 bytes, sha256 [0-9a-f]{64}; the release lists"):
        extract_checked_files(changed, checks(files), tmp_path / "out")
    short = archive_of({"a/1.en": files["a/1.en"]}, tmp_path / "short.tar.gz")
    with pytest.raises(InputError, match=r"short\.tar\.gz: has no b/2\.en \(1 listed file\(s\) missing\)"):
        extract_checked_files(short, checks(files), tmp_path / "out")
    (tmp_path / "cut.tar.gz").write_bytes(archive_of(files, tmp_path / "whole.tar.gz").read_bytes()[:60])
    with pytest.raises(InputError, match=r"cut\.tar\.gz: (not a readable tar archive|damaged or truncated)"):
        extract_checked_files(tmp_path / "cut.tar.gz", checks(files), tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob(".out.*")), "no staging folder left behind"


# --------------------------------------------------------------------------------------
# the readers, on every released file here


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """The released files here (and the release's own pair and idiom lists, which number
    them) archived as GitHub serves the commit, then extracted through the manifest."""
    files = {path.relative_to(RELEASED).as_posix(): path.read_bytes() for path in RELEASED.rglob("*") if path.is_file()}
    files["substitutivity/synonyms.tsv"] = (SHARED / "synonyms.tsv").read_bytes()
    files["overgeneralisation/idioms.tsv"] = (SHARED / "idioms.tsv").read_bytes()
    manifest = {name: check for name, check in released.read_manifest().items() if name in files}
    root = tmp_path_factory.mktemp("release")
    assert extract_checked_files(archive_of(files, root / "release.tar.gz"), manifest, root / "tests") == 148
    return root / "tests"


def pairs_of(rows, condition):
    return [(row["source_a"], row["source_b"]) for row in rows if row["condition"] == condition]


@needs_release
def test_np_vp_items_pair_each_sentence_with_its_np_and_vp_variant(release):
    for data_type, conditions in (("synthetic", {"np_prime", "vp_prime"}), ("semi_natural", {"np_prime"})):
        rows = released.released_items("np_vp", data_type, release, "unused", "unused")
        assert {row["condition"] for row in rows} == conditions
        assert len(rows) == 500 * 10 * len(conditions), "500 items per template and condition"
        assert [row["template"] for row in rows[::500]] == [t for t in range(1, 11) for _ in conditions]
        for t in (1, 7):
            folder = release / "systematicity" / "s_np_vp" / data_type
            base = read_lines(folder / f"systematicity_{data_type}_{t}_np.en")
            for condition in conditions:
                changed = read_lines(folder / f"systematicity_{data_type}_{t}_{condition}.en")
                ours = [(a, b) for row in rows if row["template"] == t for a, b in pairs_of([row], condition)]
                assert ours == list(zip(base, changed)), "line k with line k, in the release's order"
    # the base sentences are the released data's own (data/synthetic/synthetic_1.en, ...)
    for data_type, data in (
        ("synthetic", "synthetic/synthetic_1.en"),
        ("semi_natural", "semi_natural/semi_natural_1.en"),
    ):
        rows = released.released_items("np_vp", data_type, release, "unused", "unused")
        corpus = set(read_lines(RELEASED / "data" / data))
        assert {row["source_a"] for row in rows if row["template"] == 1} <= corpus
    assert len(read_lines(RELEASED / "data" / "synthetic" / "synthetic_1.nl")) == len(
        read_lines(RELEASED / "data" / "synthetic" / "synthetic_1.en")
    )


@needs_release
def test_s_conj_items_pair_s1_with_s1_prime_and_s3_over_one_s2(release):
    for data_type, templates in (("synthetic", range(1, 11)), ("natural", [1])):
        rows = released.s_conj_items(release, data_type, templates=templates)
        assert len(rows) == 2 * 500 * len(templates)
        folder = release / "systematicity" / "s_conj" / data_type
        for t in templates:
            s1, s1p, s3 = (
                read_lines(folder / f"systematicity_{data_type}_{t}_{name}_s2.en") for name in ("s1", "s1p", "s3")
            )
            of_t = [row for row in rows if row["template"] == t]
            assert pairs_of(of_t, "s1_prime") == list(zip(s1, s1p))
            assert pairs_of(of_t, "s3") == list(zip(s1, s3))
            assert all(a.split(" , and ", 1)[1] == b.split(" , and ", 1)[1] for a, b in zip(s1, s3))
    # the natural S2 are natural sentences: not lowercased beyond their first letter
    assert any(row["source_a"] != row["source_a"].lower() for row in rows if row["template"] == 1)


@needs_release
def test_substitutivity_items_pair_the_british_and_american_sentence(release):
    pairs = released.release_pairs(release, load_synonyms(resource_path("synonyms.tsv")))
    assert [pair.name for pair in pairs[:2]] == ["aeroplane/airplane", "aluminium/aluminum"]
    rows = released.substitutivity_items(release, "synthetic", pairs, templates=[1])
    assert len(rows) == 20 * 500, "500 items per synonym pair"
    assert [row["pair"] for row in rows[::500]] == [pair.name for pair in pairs]
    assert rows[0]["source_a"].replace("aeroplane", "airplane") == rows[0]["source_b"]
    natural = released.substitutivity_items(release, "natural", pairs[:1])
    assert len(natural) == 3000 and set(natural[0]) == set(NATURAL_SUBSTITUTIVITY_COLUMNS)
    references = read_lines(release / "substitutivity" / "natural" / "0.nl")
    assert [row["reference"] for row in natural] == references, "each sentence with its corpus reference"
    assert {row["template"] for row in natural} == {0}


@needs_release
def test_overgeneralisation_items_follow_the_releases_numbering_of_idioms(release, tmp_path):
    idioms = released.release_idioms(release, load_idioms(resource_path("idioms.tsv")))
    assert [idioms[13].idiom, idioms[14].idiom] == ["look the other way", "at your fingertips"], "not natcomp's order"
    rows = released.overgeneralisation_items(release, "synthetic", idioms, templates=[1])
    assert len(rows) == 20 * 500, "500 items per idiom"
    assert [row["idiom"] for row in rows[::500]] == [idiom.idiom for idiom in idioms]
    assert all(row["reference"] == "" for row in rows)
    # the item files read back through the scorer's reader, which checks every idiom is there
    write_items(rows, tmp_path / "items.tsv", OVERGENERALISATION_COLUMNS)
    assert len(read_items(tmp_path / "items.tsv", "overgeneralisation", keyword_matching="substring")) == len(rows)


def test_natural_files_are_read_whole_past_the_generated_items_cap(tmp_path):
    """mt.tests.natural_max_items caps generated natural items; a released file is read
    whole (the release's "once in a while" has 3,040)."""
    idioms = load_idioms(resource_path("idioms.tsv"))[:1]
    folder = tmp_path / "overgeneralisation" / "natural"
    folder.mkdir(parents=True)
    (folder / "0.en").write_text("I will play it once in a while .\n" * 3040)
    (folder / "0.nl").write_text("Ik speel het af en toe .\n" * 3040)
    rows = released.overgeneralisation_items(tmp_path, "natural", idioms)
    assert len(rows) == 3040 and rows[-1]["reference"] == "Ik speel het af en toe ."


# --------------------------------------------------------------------------------------
# a malformed file: one line naming it


def write_np_vp(root: Path, base: str, changed: str, lines: int = 2) -> Path:
    folder = root / "systematicity" / "s_np_vp" / "semi_natural"
    folder.mkdir(parents=True, exist_ok=True)
    for t in range(1, 11):
        (folder / f"systematicity_semi_natural_{t}_np.en").write_text(base * lines)
        (folder / f"systematicity_semi_natural_{t}_np_prime.en").write_text(changed * lines)
    return folder


@pytest.mark.parametrize(
    ("changed", "lines", "message"),
    [
        (
            "The men read an article .\n",
            2,
            r"systematicity_semi_natural_1_np_prime\.en, line 1: the np_prime sentence differs from line 1 of "
            r"systematicity_semi_natural_1_np\.en in other than exactly one token",
        ),
        ("The boy reads an article .\n", 1, r"np_prime\.en: has 1 lines but systematicity_semi_natural_1_np\.en has 2"),
    ],
    ids=["two tokens changed", "one line short"],
)
def test_a_malformed_np_vp_file_is_one_line_naming_it(tmp_path, changed, lines, message):
    folder = write_np_vp(tmp_path, "The man reads an article .\n", changed)
    (folder / "systematicity_semi_natural_1_np_prime.en").write_text(changed * lines)
    with pytest.raises(InputError, match=message):
        released.np_vp_items(tmp_path, "semi_natural")
    write_np_vp(tmp_path, "The man reads an article .\n", "The boy reads an article .\n")
    assert len(released.np_vp_items(tmp_path, "semi_natural")) == 20
    assert set(released.np_vp_items(tmp_path, "semi_natural")[0]) == set(NP_VP_COLUMNS)


def test_a_malformed_s_conj_or_idiom_file_is_one_line_naming_it(tmp_path):
    folder = tmp_path / "systematicity" / "s_conj" / "natural"
    folder.mkdir(parents=True)
    lines = {
        "s1": "The poet sleeps , and it rains .",
        "s1p": "The king sleeps , and it rains .",
        "s3": "Men cry , and it rains .",
    }
    for name, line in lines.items():
        (folder / f"systematicity_natural_1_{name}_s2.en").write_text(line + "\n")
    assert len(released.s_conj_items(tmp_path, "natural", templates=[1])) == 2
    (folder / "systematicity_natural_1_s3_s2.en").write_text("Men cry , and it snows .\n")
    with pytest.raises(InputError, match=r"systematicity_natural_1_s3_s2\.en, line 1: S2 differs from line 1"):
        released.s_conj_items(tmp_path, "natural", templates=[1])
    (folder / "systematicity_natural_1_s3_s2.en").write_text("Men cry and it rains .\n")
    with pytest.raises(InputError, match=r"s3_s2\.en, line 1: expected 'S1 , and S2'"):
        released.s_conj_items(tmp_path, "natural", templates=[1])
    idioms = load_idioms(resource_path("idioms.tsv"))[:1]
    path = tmp_path / "overgeneralisation" / "synthetic" / "overgeneralisation_synthetic_1" / "0.en"
    path.parent.mkdir(parents=True)
    path.write_text('The king that said " I will play it once in a while " sleeps .\nThe king sleeps .\n')
    with pytest.raises(InputError, match=r"0\.en, line 2: does not contain its idiom 'once in a while'"):
        released.overgeneralisation_items(tmp_path, "synthetic", idioms, templates=[1])
    with pytest.raises(InputError, match=r"overgeneralisation_synthetic_2/0\.en: file not found"):
        released.overgeneralisation_items(tmp_path, "synthetic", idioms, templates=[1, 2])
    path.write_text('The king that said " I will play it once in a while "\tsleeps .\n')
    with pytest.raises(InputError, match=r"0\.en, line 1: holds a tab"):
        released.overgeneralisation_items(tmp_path, "synthetic", idioms, templates=[1])

"""Speed of MT test-item generation, synthetic and natural (formerly two timed tests).

(1) Synthetic: 3,000 sentences per template, then the items of all four tests per template
    (40 each), for every sampling mode; goal under 2 s per mode.
(2) Natural: a 100,000-pair corpus; substitutivity and overgeneralisation extraction and the
    natural conjunct choice; goal under 5 s each.

    .venv/bin/python benchmarks/mt_item_generation.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from natcomp.mt.items import (
    natural_conjuncts,
    natural_overgeneralisation,
    natural_substitutivity,
    np_vp_items,
    overgeneralisation_items,
    s_conj_items,
    substitutivity_items,
)
from natcomp.mt.lexicon import load_idioms, load_lexicon, load_synonyms
from natcomp.mt.templates import SYNTHETIC_SAMPLING, TEMPLATES, synthetic_sentences
from natcomp.shipped import resource_path

N_ITEMS = 40


def timed(label: str, goal_s: float, function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"{label:<48} {seconds:7.3f} s   (goal < {goal_s:g} s)")
    return result


def synthetic_items(lexicon, synonyms, idioms, sampling: str) -> None:
    data = {t: synthetic_sentences(lexicon, t, 3000, seed=1, sampling=sampling) for t in TEMPLATES}
    pool = [s for t in TEMPLATES for s in data[t]]
    for t in TEMPLATES:
        np_vp_items(data[t], t, N_ITEMS, 0, lexicon=lexicon)
        s_conj_items(pool, [s.text for s in data[t]], t, N_ITEMS, 0, lexicon=lexicon, sampling=sampling)
        substitutivity_items(data[t], synonyms, t, t, N_ITEMS, 0)
        overgeneralisation_items(data[t], idioms, t, t, N_ITEMS, 0)


def write_corpus(folder: Path, n_pairs: int) -> tuple[Path, Path]:
    en, nl = folder / "train.en", folder / "train.nl"
    with en.open("w", encoding="utf-8") as en_file, nl.open("w", encoding="utf-8") as nl_file:
        for i in range(n_pairs):
            en_file.write(
                f"The man {i} sees the dog on holiday.\n" if i % 50 == 0 else f"Sentence number {i} is here.\n"
            )
            nl_file.write(f"Zin {i}.\n")
    return en, nl


def main() -> None:
    lexicon = load_lexicon(resource_path("lexicon"))
    synonyms = load_synonyms(resource_path("synonyms.tsv"))
    idioms = load_idioms(resource_path("idioms.tsv"))
    for sampling in SYNTHETIC_SAMPLING:
        timed(f"synthetic items, sampling {sampling}", 2.0, synthetic_items, lexicon, synonyms, idioms, sampling)
    with tempfile.TemporaryDirectory() as folder:
        en, nl = write_corpus(Path(folder), 100_000)
        timed("natural substitutivity, 100,000 pairs", 5.0, natural_substitutivity, en, nl, synonyms, 3000, seed=0)
        timed(
            "natural overgeneralisation, 100,000 pairs", 5.0, natural_overgeneralisation, en, nl, idioms, 3000, seed=0
        )
        references = {t: [s.text for s in synthetic_sentences(lexicon, t, 50, seed=0)] for t in TEMPLATES}
        timed("natural conjuncts, 100,000 sentences", 5.0, natural_conjuncts, en, references, 40, seed=0)


if __name__ == "__main__":
    main()

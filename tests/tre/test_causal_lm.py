"""TRE of a decoder-only model's sentence embeddings: the workflow's embed script (PSS and TRE
share it) on a tiny Llama with ``last`` pooling, then TRE over the trees; ``cls`` of a
decoder-only model is refused by the script before the model's weights load."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from natcomp import hf
from natcomp.errors import ConfigError
from natcomp.tre.experiment import fit_scores, load_trees, score_trees
from natcomp.tre.reconstruction import TreSettings
from natcomp.tsv import write_tsv

REPO = Path(__file__).resolve().parents[2]
TREES = (
    "(3 (3 Cool) (2 ?))\n(2 (2 Nothing) (2 (2 is) (2 black)))\n(4 (2 (2 A) (2 film)) (4 (4 great) (2 .)))\n"
    "(1 (2 (2 The) (2 plot)) (1 (2 is) (1 (1 not) (3 good))))\n"
)
TINY_LLAMA = {"kind": "llama", "vocab_size": 300, "d_model": 32, "layers": 2, "heads": 4, "max_positions": 64}


@pytest.fixture(scope="module")
def trees_and_sentences(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tre_causal")
    (folder / "dev.txt").write_text(TREES, encoding="utf-8")
    trees = load_trees(folder / "dev.txt", ["dev"])
    write_tsv(folder / "sentences.tsv", score_trees(trees))
    model = hf.build_tiny_causal_lm(folder / "llama", score_trees(trees)["sentence"].tolist(), **TINY_LLAMA)
    return trees, folder / "sentences.tsv", model


def run_embed_script(model: Path, pooling: str, sentences: Path, out: Path) -> None:
    """workflow/scripts/embed.py as the tre_embed rule calls it."""
    snakemake = SimpleNamespace(
        input=SimpleNamespace(texts=[str(sentences)]),
        output=[str(out)],
        log=[str(out.with_suffix(".log"))],
        threads=1,
        params=SimpleNamespace(
            encoder={"model": str(model), "pooling": pooling, "normalize": False, "layer": -1},
            columns=[["sentence"]],
            embed={"batch_size": 64, "max_length": 32, "device": "cpu"},
            key="tre.encoders.llama.model",
            pooling_key="tre.encoders.llama.pooling",
        ),
    )
    runpy.run_path(str(REPO / "workflow" / "scripts" / "embed.py"), init_globals={"snakemake": snakemake})


def test_tre_of_a_causal_lms_last_token_embeddings(trees_and_sentences, tmp_path):
    trees, sentences, model = trees_and_sentences
    run_embed_script(model, "last", sentences, tmp_path / "sst.npy")
    embeddings = np.load(tmp_path / "sst.npy")
    assert embeddings.shape == (len(trees), 32)
    table = fit_scores(trees, embeddings, TreSettings(steps=5, seed=0, device="cpu"), baseline=True)
    assert np.isfinite(table[["tre", "tre_random", "tre_shuffled"]].to_numpy()).all()


def test_cls_of_a_decoder_only_model_stops_the_embed_script_naming_the_pooling_key(
    trees_and_sentences, tmp_path, monkeypatch
):
    _, sentences, model = trees_and_sentences

    def no_weights(*args, **kwargs):
        raise AssertionError("the model's weights were loaded")

    monkeypatch.setattr(hf, "load_encoder", no_weights)
    with pytest.raises(ConfigError, match=r"^config tre\.encoders\.llama\.pooling: 'cls' of a decoder-only model"):
        run_embed_script(model, "cls", sentences, tmp_path / "sst.npy")
    assert not (tmp_path / "sst.npy").exists()
    assert "ERROR: config tre.encoders.llama.pooling" in (tmp_path / "sst.log").read_text()

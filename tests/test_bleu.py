import pandas as pd
import pytest

from natcomp.bleu import BLEU_COLUMNS, corpus_bleu, gather_bleu, write_bleu
from natcomp.errors import InputError


def test_perfect_and_partial_bleu():
    refs = ["De dichter ziet de koning.", "Het kind slaapt."]
    assert corpus_bleu(refs, refs, "nl")[0] == pytest.approx(100.0)
    partial, signature = corpus_bleu(["De dichter ziet de koningin.", "Het kind slaapt."], refs, "nl")
    assert 0 < partial < 100
    assert "tok:13a" in signature and "version:" in signature


def test_bleu_files_and_table(tmp_path):
    (tmp_path / "hyp").write_text("De dichter ziet de koning.\n\n")
    (tmp_path / "ref").write_text("De dichter ziet de koning.\nHet kind slaapt.\n")
    rows = []
    for seed in (2, 1):
        out = tmp_path / f"{seed}.tsv"
        write_bleu(tmp_path / "hyp", tmp_path / "ref", "nl", {"size": "small", "seed": seed, "split": "dev"}, out)
        rows.append(out)
    table = gather_bleu(rows, tmp_path / "bleu.tsv")
    assert list(table.columns) == BLEU_COLUMNS
    assert list(pd.read_csv(tmp_path / "bleu.tsv", sep="\t")["seed"]) == [1, 2]


def test_line_count_mismatch(tmp_path):
    (tmp_path / "hyp").write_text("a\n")
    (tmp_path / "ref").write_text("a\nb\n")
    with pytest.raises(InputError, match="has 1 lines but the references"):
        write_bleu(tmp_path / "hyp", tmp_path / "ref", "nl", {}, tmp_path / "o.tsv")
    assert not (tmp_path / "o.tsv").exists()

import pandas as pd
import pytest

from natcomp.mt.bleu import BLEU_COLUMNS, corpus_bleu, gather_bleu, write_bleu
from natcomp.errors import InputError


def test_perfect_and_partial_bleu():
    refs = ["De dichter ziet de koning.", "Het kind slaapt."]
    assert corpus_bleu(refs, refs, "nl")[0] == pytest.approx(100.0)
    partial, signature = corpus_bleu(["De dichter ziet de koningin.", "Het kind slaapt."], refs, "nl")
    assert 0 < partial < 100
    assert "tok:13a" in signature and "version:" in signature


def test_bleu_files_and_table(tmp_path):
    (tmp_path / "src").write_text("The poet sees the king.\nThe child sleeps.\n")
    (tmp_path / "ref").write_text("De dichter ziet de koning.\nHet kind slaapt.\n")
    translations = {"The poet sees the king.": "De dichter ziet de koning.", "The child sleeps.": ""}
    rows = []
    for seed in (2, 1):
        out = tmp_path / f"{seed}.tsv"
        keys = {"system": "trained", "size": "small", "seed": seed, "split": "dev", "decode_signature": "ckpt:x|beam:5"}
        write_bleu(translations, tmp_path / "src", tmp_path / "ref", "nl", keys, out)
        rows.append(out)
    table = gather_bleu(rows, tmp_path / "bleu.tsv")
    assert list(table.columns) == BLEU_COLUMNS
    assert list(pd.read_csv(tmp_path / "bleu.tsv", sep="\t")["seed"]) == [1, 2]
    assert 0 < table["bleu"].iloc[0] < 100


def test_missing_translation_and_line_mismatch(tmp_path):
    (tmp_path / "src").write_text("a\nb\n")
    (tmp_path / "ref").write_text("a\nb\n")
    with pytest.raises(InputError, match="1 source sentences have no translation, e.g. 'b'"):
        write_bleu({"a": "a"}, tmp_path / "src", tmp_path / "ref", "nl", {}, tmp_path / "o.tsv")
    (tmp_path / "ref").write_text("a\n")
    with pytest.raises(InputError, match="has 2 lines but the references"):
        write_bleu({"a": "a", "b": "b"}, tmp_path / "src", tmp_path / "ref", "nl", {}, tmp_path / "o.tsv")
    assert not (tmp_path / "o.tsv").exists()


def test_bleu_table_lists_trained_models_then_pretrained_systems(tmp_path):
    (tmp_path / "src").write_text("The poet sees the king.\n")
    (tmp_path / "ref").write_text("De dichter ziet de koning.\n")
    models = [
        ("opus-mt-en-nl", "", ""),
        ("trained", "full", 1),
        ("tiny-marian", "", ""),
        ("trained", "small", 2),
        ("trained", "small", 1),
    ]
    paths = []
    for number, (system, size, seed) in enumerate(models):
        keys = {"system": system, "size": size, "seed": seed, "split": "devtest", "decode_signature": "sig"}
        paths.append(tmp_path / f"{number}.tsv")
        translations = {"The poet sees the king.": "De dichter ziet de koning."}
        write_bleu(translations, tmp_path / "src", tmp_path / "ref", "nl", keys, paths[-1])
    table = gather_bleu(paths, tmp_path / "bleu.tsv", sizes=["small", "full"], systems=["tiny-marian", "opus-mt-en-nl"])
    assert table["system"].tolist() == ["trained", "trained", "trained", "tiny-marian", "opus-mt-en-nl"]
    assert table["seed"].tolist()[:3] == [1, 2, 1] and table["seed"].isna().tolist()[3:] == [True, True]
    lines = (tmp_path / "bleu.tsv").read_text().splitlines()
    assert lines[0] == "\t".join(BLEU_COLUMNS)
    assert lines[1].startswith("trained\tsmall\t1\tdevtest\t100.0\t")
    assert lines[4].startswith("tiny-marian\t\t\tdevtest\t100.0\t"), "a pretrained system: size and seed empty"

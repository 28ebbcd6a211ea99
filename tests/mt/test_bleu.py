import pandas as pd
import pytest

from natcomp.mt.bleu import BLEU_COLUMNS, corpus_bleu, gather_bleu, tokenised_corpus_bleu, write_bleu
from natcomp.errors import InputError


def test_perfect_and_partial_bleu():
    refs = ["De dichter ziet de koning.", "Het kind slaapt."]
    assert corpus_bleu(refs, refs, "nl")[0] == pytest.approx(100.0)
    partial, signature = corpus_bleu(["De dichter ziet de koningin.", "Het kind slaapt."], refs, "nl")
    assert 0 < partial < 100
    assert "tok:13a" in signature and "version:" in signature


def test_tokenised_bleu_scores_moses_tokens_as_fairseq_generate_does():
    """Table 9's BLEU (paper appendix E.1) is BLEU on Moses tokens, which split ``auto's``
    into ``auto &apos; s``; sacrebleu's 13a keeps ``auto's`` one token. Each score is the
    geometric mean of its n-gram precisions, counted by hand below (no brevity penalty:
    the hypothesis is the longer)."""
    hypothesis = ["De auto's van de buren staan op de oprit."]
    reference = ["De autos van de buren staan op de oprit."]
    # 13a: 10 hypothesis tokens; every n-gram without "auto's" matches
    sacre_expected = 100 * (9 / 10 * 7 / 9 * 6 / 8 * 5 / 7) ** (1 / 4)
    # Moses: 12 tokens (De auto &apos; s van ...); the same matches over more n-grams
    tokenised_expected = 100 * (9 / 12 * 7 / 11 * 6 / 10 * 5 / 9) ** (1 / 4)
    sacre, _ = corpus_bleu(hypothesis, reference, "nl")
    tokenised, signature = tokenised_corpus_bleu(hypothesis, reference, "nl")
    assert sacre == pytest.approx(sacre_expected)
    assert tokenised == pytest.approx(tokenised_expected)
    assert signature.startswith("moses:nl|") and "tok:none" in signature and "smooth:none" in signature


def test_tokenised_bleu_is_not_smoothed():
    """fairseq's BLEU has no smoothing: without a matching 4-gram the corpus scores 0
    (sacrebleu's default exp smoothing would give more)."""
    hypothesis, reference = ["De man ziet de koning niet."], ["De vrouw ziet de koningin niet."]
    assert tokenised_corpus_bleu(hypothesis, reference, "nl")[0] == 0.0
    assert corpus_bleu(hypothesis, reference, "nl")[0] > 0


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
    assert 0 < table["bleu_sacrebleu"].iloc[0] < 100 and 0 < table["bleu_tokenised"].iloc[0] < 100


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
    assert lines[1].startswith("trained\tsmall\t1\tdevtest\t100.0\tnrefs:1|")
    assert lines[4].startswith("tiny-marian\t\t\tdevtest\t100.0\t"), "a pretrained system: size and seed empty"
    assert (table["bleu_tokenised"] == 100.0).all()


def test_bleu_file_has_both_scores(tmp_path):
    (tmp_path / "src").write_text("The neighbours' cars are on the drive.\n")
    (tmp_path / "ref").write_text("De autos van de buren staan op de oprit.\n")
    translations = {"The neighbours' cars are on the drive.": "De auto's van de buren staan op de oprit."}
    keys = {"system": "trained", "size": "small", "seed": 1, "split": "dev", "decode_signature": "sig"}
    write_bleu(translations, tmp_path / "src", tmp_path / "ref", "nl", keys, tmp_path / "bleu.tsv")
    row = pd.read_csv(tmp_path / "bleu.tsv", sep="\t").iloc[0]
    assert row["bleu_sacrebleu"] == pytest.approx(78.25, abs=0.005), "13a keeps auto's one token"
    assert row["bleu_tokenised"] == pytest.approx(63.16, abs=0.005), "Moses splits it: auto &apos; s"
    assert row["sacrebleu_signature"].startswith("nrefs:1|") and row["tokenised_signature"].startswith("moses:nl|")


def test_a_models_tokens_survive_detokenising_and_tokenising_again():
    """A trained model's hypothesis is Moses-tokenised; natcomp stores it detokenised and
    tokenises it again for ``bleu_tokenised``, which must give the model's own tokens so
    the score is fairseq-generate's."""
    from natcomp.mt.preprocess import detokenise, tokenise

    raw = [
        "De auto's van de buren, zei hij, staan op de oprit.",
        'Hij zei: "ja" & nee.',
        "Het kost 3-4 euro (ongeveer), 's avonds 50%.",
        "'t Kan. Zo'n dag, nietwaar?",
    ]
    model_tokens = [tokenise(sentence, "nl") for sentence in raw]
    assert [tokenise(detokenise(tokens, "nl"), "nl") for tokens in model_tokens] == model_tokens


def test_tokenised_bleu_is_fairseq_generates_score():
    """fairseq-generate (``--remove-bpe``, default ``--scoring bleu``) encodes the
    BPE-removed reference and hypothesis strings into dictionary ids (``encode_line``,
    words split on white space) and scores them with its C BLEU. The same corpus scored
    that way and by :func:`tokenised_corpus_bleu` must agree."""
    pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")
    from fairseq.data import Dictionary
    from fairseq.scoring.bleu import BleuConfig, Scorer

    from natcomp.mt.preprocess import tokenise

    references = [
        "De auto's van de buren staan op de oprit.",
        'Hij zei: "ja" & nee, en ging naar huis.',
        "Het kost 3-4 euro per dag.",
    ]
    hypotheses = [
        "De auto's van de buren staan op de weg.",
        'Hij zei "ja" en nee, en ging naar huis.',
        "het kost 3 - 4 euro per week.",  # case counts
    ]
    dictionary = Dictionary()
    scorer = Scorer(BleuConfig(pad=dictionary.pad(), eos=dictionary.eos(), unk=dictionary.unk()))
    for reference, hypothesis in zip(references, hypotheses, strict=True):
        scorer.add(
            dictionary.encode_line(tokenise(reference, "nl"), add_if_not_exist=True),
            dictionary.encode_line(tokenise(hypothesis, "nl"), add_if_not_exist=True),
        )
    ours, _ = tokenised_corpus_bleu(hypotheses, references, "nl")
    assert 0 < ours < 100
    assert ours == pytest.approx(scorer.score(), abs=1e-9)
    assert corpus_bleu(hypotheses, references, "nl")[0] != pytest.approx(ours, abs=0.5), "13a scores other tokens"


def test_bleu_table_puts_table_9_beside_the_tokenised_bleu(tmp_path):
    from natcomp.published import published_path, read_published

    (tmp_path / "src").write_text("The poet sees the king.\n")
    (tmp_path / "ref").write_text("De dichter ziet de koning.\n")
    translations = {"The poet sees the king.": "De dichter ziet de koning."}
    paths = []
    for system, size, seed, split in [("trained", "small", 1, "devtest"), ("trained", "full", 5, "dev")] + [
        ("trained", "tiny", 1, "dev"),
        ("opus-mt-en-nl", "", "", "devtest"),
    ]:
        paths.append(tmp_path / f"{len(paths)}.tsv")
        keys = {"system": system, "size": size, "seed": seed, "split": split, "decode_signature": "sig"}
        write_bleu(translations, tmp_path / "src", tmp_path / "ref", "nl", keys, paths[-1])
    published = read_published(published_path("mt"))
    table = gather_bleu(paths, tmp_path / "bleu.tsv", sizes=["small", "full"], published=published)
    columns = list(table.columns)
    assert columns[columns.index("bleu_tokenised") + 1] == "paper_bleu_tokenised"
    paper = table.set_index(["size", "split"])["paper_bleu_tokenised"]
    assert paper[("small", "devtest")] == 21.14 and paper[("full", "dev")] == 25.86, "Table 9, seeds 1 and 5"
    assert paper[("tiny", "dev")] != paper[("tiny", "dev")] and paper[("", "devtest")] != paper[("", "devtest")]
    without = gather_bleu(paths[2:], tmp_path / "other.tsv", published=published)
    assert list(without.columns) == BLEU_COLUMNS, "no row in Table 9: no paper column"

import pandas as pd
import pytest

from natcomp.mt.bleu import (
    BLEU_COLUMNS,
    BLEU_TABLE_COLUMNS,
    corpus_bleu,
    gather_bleu,
    tokenised_corpus_bleu,
    write_bleu,
)
from natcomp.errors import InputError
from natcomp.tsv import write_tsv


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
    assert list(table.columns) == BLEU_TABLE_COLUMNS
    written = pd.read_csv(tmp_path / "bleu.tsv", sep="\t")
    assert list(written["seed"])[:2] == [1, 2] and list(written["kind"]) == ["model", "model", "size_mean"]
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
    assert table["system"].tolist() == ["trained"] * 5 + ["tiny-marian", "opus-mt-en-nl"]
    assert table["size"].tolist()[:5] == ["small", "small", "small", "full", "full"]
    assert table["kind"].tolist() == ["model", "model", "size_mean", "model", "size_mean", "model", "model"]
    assert table["seed"].tolist()[:2] == [1, 2] and table["seed"].tolist()[3] == 1
    assert table["seed"].isna().tolist() == [False, False, True, False, True, True, True]
    lines = (tmp_path / "bleu.tsv").read_text().splitlines()
    assert lines[0] == "\t".join(BLEU_TABLE_COLUMNS)
    assert lines[1].startswith("trained\tsmall\t1\tdevtest\tmodel\t\t100.0\t\tnrefs:1|")
    assert lines[6].startswith("tiny-marian\t\t\tdevtest\tmodel\t\t100.0\t"), "a pretrained system: size and seed empty"
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
    assert columns[columns.index("bleu_tokenised") + 2] == "paper_bleu_tokenised", "after bleu_tokenised and its sd"
    paper = table[table["kind"] == "model"].set_index(["size", "split"])["paper_bleu_tokenised"]
    assert paper[("small", "devtest")] == 21.14 and paper[("full", "dev")] == 25.86, "Table 9, seeds 1 and 5"
    assert paper[("tiny", "dev")] != paper[("tiny", "dev")] and paper[("", "devtest")] != paper[("", "devtest")]
    without = gather_bleu(paths[2:], tmp_path / "other.tsv", published=published)
    assert list(without.columns) == BLEU_TABLE_COLUMNS, "no row in Table 9: no paper column"


def bleu_file(tmp_path, system, size, seed, split, sacrebleu, tokenised):
    """A one-row BLEU file as ``write_bleu`` writes it, with the given scores."""
    path = tmp_path / f"{system}-{size}-{seed}-{split}.tsv"
    row = {
        "system": system,
        "size": size,
        "seed": seed,
        "split": split,
        "bleu_sacrebleu": sacrebleu,
        "sacrebleu_signature": "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0",
        "bleu_tokenised": tokenised,
        "tokenised_signature": "moses:nl|nrefs:1|case:mixed|eff:no|tok:none|smooth:none|version:2.6.0",
        "decode_signature": f"ckpt:{size}{seed}|beam:5" if seed != "" else "hf:opus|beam:5",
    }
    write_tsv(path, [row], BLEU_COLUMNS)
    return path


#: (system, size, seed, split, bleu_sacrebleu, bleu_tokenised): three small seeds on both
#: splits (dev scores far above devtest, so a mean pooling the splits would show), one
#: medium seed, two full seeds and a pretrained system, in no particular order
SEED_SCORES = [
    ("trained", "small", 3, "devtest", 23.0, 22.0),
    ("trained", "full", 2, "devtest", 26.5, 26.0),
    ("trained", "small", 1, "devtest", 20.0, 19.0),
    ("opus-mt-en-nl", "", "", "devtest", 40.0, 41.0),
    ("trained", "small", 1, "dev", 30.0, 29.0),
    ("trained", "medium", 1, "devtest", 24.0, 23.5),
    ("trained", "small", 2, "devtest", 21.0, 20.5),
    ("trained", "small", 3, "dev", 35.0, 33.0),
    ("trained", "full", 1, "devtest", 25.0, 24.0),
    ("trained", "small", 2, "dev", 31.0, 30.0),
]


def test_bleu_table_has_a_mean_and_sample_sd_row_per_size_and_split(tmp_path):
    """Per corpus size and split, a ``size_mean`` row: the mean over that size's seeds of
    each score and its sample sd (n - 1; empty for a single seed), seed empty, ``seeds``
    the number of seeds; after the size's model rows. Sizes and splits are never pooled."""
    import statistics

    paths = [bleu_file(tmp_path, *row) for row in SEED_SCORES]
    table = gather_bleu(paths, tmp_path / "bleu.tsv", sizes=["small", "medium", "full"], systems=["opus-mt-en-nl"])
    assert list(table.columns) == BLEU_TABLE_COLUMNS
    rows = [(r.size, "" if pd.isna(r.seed) else r.seed, r.split, r.kind) for r in table.itertuples()]
    assert rows == [
        ("small", 1, "dev", "model"),
        ("small", 1, "devtest", "model"),
        ("small", 2, "dev", "model"),
        ("small", 2, "devtest", "model"),
        ("small", 3, "dev", "model"),
        ("small", 3, "devtest", "model"),
        ("small", "", "dev", "size_mean"),
        ("small", "", "devtest", "size_mean"),
        ("medium", 1, "devtest", "model"),
        ("medium", "", "devtest", "size_mean"),
        ("full", 1, "devtest", "model"),
        ("full", 2, "devtest", "model"),
        ("full", "", "devtest", "size_mean"),
        ("", "", "devtest", "model"),
    ]
    means = table[table["kind"] == "size_mean"].set_index(["size", "split"])
    assert (means["system"] == "trained").all() and means["seed"].isna().all()
    assert means["seeds"].tolist() == [3, 3, 1, 2]
    small = means.loc[("small", "devtest")]
    assert small["bleu_sacrebleu"] == pytest.approx(64 / 3) and small["bleu_tokenised"] == pytest.approx(61.5 / 3)
    assert small["bleu_sacrebleu_sd"] == pytest.approx(statistics.stdev([20.0, 21.0, 23.0]))
    assert small["bleu_sacrebleu_sd"] == pytest.approx((7 / 3) ** 0.5), "the sample sd (n - 1)"
    assert small["bleu_sacrebleu_sd"] != pytest.approx(statistics.pstdev([20.0, 21.0, 23.0]))
    assert small["bleu_tokenised_sd"] == pytest.approx(statistics.stdev([19.0, 20.5, 22.0]))
    assert means.loc[("small", "dev"), "bleu_sacrebleu"] == pytest.approx(32.0), "dev alone, not pooled with devtest"
    assert means.loc[("full", "devtest"), "bleu_sacrebleu"] == pytest.approx(25.75), "full's two seeds only"
    assert means.loc[("full", "devtest"), "bleu_sacrebleu_sd"] == pytest.approx(statistics.stdev([25.0, 26.5]))
    medium = means.loc[("medium", "devtest")]
    assert (
        medium["bleu_sacrebleu"] == 24.0
        and pd.isna(medium["bleu_sacrebleu_sd"])
        and pd.isna(medium["bleu_tokenised_sd"])
    )
    # the signatures every seed shares stay; the decode signatures differ (one checkpoint each)
    assert means["sacrebleu_signature"].str.startswith("nrefs:1|").all()
    assert means["tokenised_signature"].str.startswith("moses:nl|").all()
    assert means["decode_signature"].tolist() == ["", "", "ckpt:medium1|beam:5", ""], "one seed: its own"
    models = table[table["kind"] == "model"]
    assert len(models) == len(SEED_SCORES) and models["seeds"].isna().all() and models["bleu_sacrebleu_sd"].isna().all()
    lines = (tmp_path / "bleu.tsv").read_text().splitlines()
    assert lines[0] == "\t".join(BLEU_TABLE_COLUMNS)
    assert lines[8].startswith("trained\tsmall\t\tdevtest\tsize_mean\t3\t21.33"), "seed empty, 3 seeds"
    assert lines[10].startswith("trained\tmedium\t\tdevtest\tsize_mean\t1\t24.0\t\tnrefs:1|"), "one seed: sd empty"
    assert lines[2].startswith("trained\tsmall\t1\tdevtest\tmodel\t\t20.0\t\tnrefs:1|"), "a model: seeds, sd empty"


def test_bleu_tables_size_mean_rows_carry_section_3_1_beside_them(tmp_path):
    """Section 3.1's SacreBLEU devtest mean and sd of a size stand beside the size's
    devtest mean row (``paper_bleu_sacrebleu``, ``paper_bleu_sacrebleu_sd``); Table 9's
    per-seed score stays beside each model row's ``bleu_tokenised``."""
    from natcomp.published import published_path, read_published

    paths = [bleu_file(tmp_path, *row) for row in SEED_SCORES]
    published = read_published(published_path("mt"))
    table = gather_bleu(paths, tmp_path / "bleu.tsv", sizes=["small", "medium", "full"], published=published)
    columns = list(table.columns)
    at = columns.index("bleu_sacrebleu")
    assert columns[at : at + 5] == [
        "bleu_sacrebleu",
        "bleu_sacrebleu_sd",
        "paper_bleu_sacrebleu",
        "paper_bleu_sacrebleu_sd",
        "sacrebleu_signature",
    ]
    at = columns.index("bleu_tokenised")
    assert columns[at : at + 3] == ["bleu_tokenised", "bleu_tokenised_sd", "paper_bleu_tokenised"]
    means = table[table["kind"] == "size_mean"].set_index(["size", "split"])
    small = means.loc[("small", "devtest")]
    assert small["bleu_sacrebleu"] == pytest.approx(64 / 3)
    assert (small["paper_bleu_sacrebleu"], small["paper_bleu_sacrebleu_sd"]) == (20.6, 0.4)
    assert (means.loc[("medium", "devtest"), ["paper_bleu_sacrebleu", "paper_bleu_sacrebleu_sd"]] == [24.4, 0.3]).all()
    assert (means.loc[("full", "devtest"), ["paper_bleu_sacrebleu", "paper_bleu_sacrebleu_sd"]] == [25.8, 0.1]).all()
    assert means.loc[("small", "dev"), ["paper_bleu_sacrebleu", "paper_bleu_sacrebleu_sd"]].isna().all(), "devtest only"
    assert means["paper_bleu_tokenised"].isna().all(), "Table 9 has no mean row"
    models = table[table["kind"] == "model"]
    assert models["paper_bleu_sacrebleu"].isna().all() and models["paper_bleu_sacrebleu_sd"].isna().all()
    paper = models.set_index(["size", "seed", "split"])["paper_bleu_tokenised"]
    assert paper[("small", 1, "devtest")] == 21.14 and paper[("full", 2, "devtest")] == 25.63
    line = (tmp_path / "bleu.tsv").read_text().splitlines()[10]
    assert line.startswith("trained\tmedium\t\tdevtest\tsize_mean\t1\t24.0\t\t24.4\t0.3\t"), line


def test_bleu_table_without_trained_models_has_no_mean_rows(tmp_path):
    """A run with pretrained systems only (``natcomp mt evaluate``): model rows only, the
    scores still numbers."""
    paths = [bleu_file(tmp_path, *row) for row in SEED_SCORES if row[0] != "trained"]
    table = gather_bleu(paths, tmp_path / "bleu.tsv", systems=["opus-mt-en-nl"])
    assert table["kind"].tolist() == ["model"] and list(table.columns) == BLEU_TABLE_COLUMNS
    assert table["bleu_sacrebleu"].dtype == float and table["bleu_sacrebleu_sd"].dtype == float


def test_a_run_without_references_has_a_bleu_table_of_its_header_alone(tmp_path):
    from natcomp.mt.bleu import BLEU_TABLE_COLUMNS, gather_bleu

    table = gather_bleu([], tmp_path / "bleu.tsv")
    assert table.empty
    assert (tmp_path / "bleu.tsv").read_text(encoding="utf-8").splitlines() == ["\t".join(BLEU_TABLE_COLUMNS)]

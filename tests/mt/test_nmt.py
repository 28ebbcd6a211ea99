"""fairseq integration on a toy task: training, resumption after a kill, safe loading,
epoch-checkpoint selection and batched translation."""

import json
import logging
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from natcomp.mt import nmt
from natcomp.mt.translation_cache import DecodeSettings, TranslationCache, decode_signature, translate_with_cache
from natcomp.errors import ConfigError
from natcomp.mt.preprocess import apply_bpe_chunk, detokenise, learn_joint_bpe, tokenise_chunk
from natcomp.mt.synonym_probes import Probe, decode_probes
from natcomp.tsv import read_tsv

fairseq = pytest.importorskip("fairseq", reason="fairseq-fixed is not installed in this environment")

NOUNS = [("poet", "dichter"), ("king", "koning"), ("baker", "bakker"), ("mayor", "burgemeester"), ("friend", "vriend")]
VERBS = [("sees", "ziet"), ("admires", "bewondert"), ("forgets", "vergeet")]
OPTIONS = {
    "arch": "transformer",
    "encoder-layers": 1,
    "decoder-layers": 1,
    "encoder-embed-dim": 64,
    "decoder-embed-dim": 64,
    "encoder-ffn-embed-dim": 128,
    "decoder-ffn-embed-dim": 128,
    "encoder-attention-heads": 2,
    "decoder-attention-heads": 2,
    "share-all-embeddings": True,
    "optimizer": "adam",
    "adam-betas": "(0.9, 0.98)",
    "lr": 0.005,
    "lr-scheduler": "inverse_sqrt",
    "warmup-updates": 30,
    "criterion": "label_smoothed_cross_entropy",
    "label-smoothing": 0.1,
    "max-tokens": 1500,
    "patience": 1,
    "no-progress-bar": True,
}


def pairs(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        (a, a_nl), (b, b_nl), (v, v_nl) = rng.choice(NOUNS), rng.choice(NOUNS), rng.choice(VERBS)
        out.append((f"The {a} {v} the {b}.", f"De {a_nl} {v_nl} de {b_nl}."))
    return out


@pytest.fixture(scope="module")
def databin(tmp_path_factory):
    root = tmp_path_factory.mktemp("nmt")
    for name, data in (("train", pairs(2000, 1)), ("valid", pairs(60, 2)), ("test", pairs(60, 3))):
        for side, lang in enumerate(("en", "nl")):
            (root / f"{name}.raw.{lang}").write_text("".join(p[side] + "\n" for p in data))
            tokenise_chunk(root / f"{name}.raw.{lang}", root / f"{name}.tok.{lang}", lang)
    learn_joint_bpe([root / "train.tok.en", root / "train.tok.nl"], root / "codes", 40)
    for name in ("train", "valid", "test"):
        for lang in ("en", "nl"):
            apply_bpe_chunk(root / "codes", root / f"{name}.tok.{lang}", root / f"{name}.bpe.{lang}")
    command = [
        shutil.which("fairseq-preprocess", path=str(Path(sys.executable).parent)) or "fairseq-preprocess",
        "--source-lang",
        "en",
        "--target-lang",
        "nl",
        "--trainpref",
        root / "train.bpe",
        "--validpref",
        root / "valid.bpe",
        "--destdir",
        root / "bin",
        "--joined-dictionary",
        "--workers",
        "1",
    ]
    subprocess.run([str(c) for c in command], check=True, capture_output=True)
    return root


def test_fairseq_argv():
    argv = nmt.fairseq_argv({"share-all-embeddings": True, "fp16": False, "lr": 0.5, "adam-betas": "(0.9, 0.98)"})
    assert argv == ["--share-all-embeddings", "--lr", "0.5", "--adam-betas", "(0.9, 0.98)"]


def test_changed_settings_restart_training(tmp_path):
    import torch

    work = tmp_path / "work"
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is False
    torch.save({"epoch": 1}, work / "checkpoint_last.pt")
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is True
    assert nmt.prepare_workdir(work, {"argv": ["b"]}) is False
    assert not (work / "checkpoint_last.pt").exists()


def test_a_training_not_resumed_is_kept_until_the_new_one_saves_a_checkpoint(tmp_path):
    """Changed settings start afresh, but the earlier training is only set aside: the new
    run may fail before it has anything, and going back to the earlier settings resumes it."""
    import torch

    work = tmp_path / "work"
    previous = nmt.previous_workdir(work)
    nmt.prepare_workdir(work, {"argv": ["a"]})
    torch.save({"epoch": 3}, work / "checkpoint_last.pt")
    torch.save({"epoch": 3}, work / "checkpoint3.pt")

    assert nmt.prepare_workdir(work, {"argv": ["b"]}) is False
    assert (previous / "checkpoint3.pt").exists() and not (work / "checkpoint_last.pt").exists()
    # The "b" run failed before its first checkpoint; "a" again resumes the set-aside run.
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is True
    assert torch.load(work / "checkpoint_last.pt")["epoch"] == 3 and not previous.exists()

    nmt.prepare_workdir(work, {"argv": ["b"]})
    # An empty failed run set aside must not replace the kept one.
    nmt.prepare_workdir(work, {"argv": ["c"]})
    assert (previous / "checkpoint3.pt").exists()
    nmt.discard_previous(work)
    assert not previous.exists()


def test_unknown_architecture_is_named_before_any_work(databin, tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"mt.train.fairseq.arch: fairseq has no model architecture "
        r"'transformer_wmt_en_dee'; did you mean 'transformer_wmt_en_de'",
    ):
        nmt.train(
            databin / "bin",
            tmp_path / "work",
            tmp_path / "best.pt",
            tmp_path / "e.tsv",
            [1],
            {**OPTIONS, "arch": "transformer_wmt_en_dee"},
            1,
            "en",
            "nl",
        )
    assert not (tmp_path / "work").exists()


def test_a_finished_training_is_not_resumed_by_a_forced_rerun(tmp_path):
    import torch

    work = tmp_path / "work"
    nmt.prepare_workdir(work, {"argv": ["a"]})
    torch.save({"epoch": 1}, work / "checkpoint_last.pt")
    (work / nmt.FINISHED_STAMP).touch()
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is False
    assert not (work / "checkpoint_last.pt").exists() and not (work / nmt.FINISHED_STAMP).exists()


def test_cut_off_last_checkpoint_resumes_from_the_newest_whole_epoch_checkpoint(tmp_path):
    import torch

    work = tmp_path / "work"
    nmt.prepare_workdir(work, {"argv": ["a"]})
    for epoch in (2, 4, 6, 10):
        torch.save({"epoch": epoch}, work / f"checkpoint{epoch}.pt")
    whole = (work / "checkpoint10.pt").read_bytes()
    (work / "checkpoint_last.pt").write_bytes(whole[: len(whole) // 2])  # killed mid-copy
    assert not nmt.is_whole_checkpoint(work / "checkpoint_last.pt")
    (work / "checkpoint10.pt").write_bytes(whole[:100])  # cut off too: fall back to epoch 6, not 2 or 4
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is True
    assert torch.load(work / "checkpoint_last.pt")["epoch"] == 6

    for epoch in (2, 4, 6, 10):
        (work / f"checkpoint{epoch}.pt").unlink()
    (work / "checkpoint_last.pt").write_bytes(whole[:100])
    assert nmt.prepare_workdir(work, {"argv": ["a"]}) is False, "nothing whole is left: start afresh"
    assert not (work / "checkpoint_last.pt").exists()


def test_a_mistyped_option_stops_before_the_trained_model_is_touched(databin, tmp_path):
    import torch

    work = tmp_path / "work"
    nmt.prepare_workdir(work, {"argv": ["a"]})
    torch.save({"epoch": 4}, work / "checkpoint_best.pt")
    (work / nmt.FINISHED_STAMP).touch()
    before = sorted(p.name for p in work.iterdir())
    with pytest.raises(
        ConfigError,
        match=r"mt.train.fairseq.max-epochs: fairseq-train has no option --max-epochs; "
        r"did you mean 'max-epoch'\?",
    ):
        nmt.train(
            databin / "bin",
            work,
            tmp_path / "best.pt",
            tmp_path / "e.tsv",
            [1],
            {**OPTIONS, "max-epochs": 4},
            1,
            "en",
            "nl",
        )
    assert sorted(p.name for p in work.iterdir()) == before
    with pytest.raises(ConfigError, match=r"mt.train.fairseq.lr: fairseq-train refuses it: .*invalid value: 'fast'"):
        nmt.check_fairseq_options({**OPTIONS, "lr": "fast"})


def test_train_keeps_requested_epochs_and_translates(databin, tmp_path, monkeypatch):
    out = tmp_path / "model"
    monkeypatch.chdir(tmp_path)  # a relative work dir, as in the workflow
    nmt.train(
        databin / "bin",
        "work",
        out / "best.pt",
        out / "epochs.tsv",
        [1, 3],
        {**OPTIONS, "max-epoch": 4},
        seed=1,
        source_lang="en",
        target_lang="nl",
    )
    assert (out / "epochs.tsv").read_text() == "epoch\tpath\n1\twork/checkpoint1.pt\n3\twork/checkpoint3.pt\n"
    kept = sorted(p.name for p in (tmp_path / "work").glob("checkpoint[0-9]*.pt"))
    assert kept == ["checkpoint1.pt", "checkpoint3.pt"]
    assert (tmp_path / "work" / nmt.FINISHED_STAMP).exists()
    nmt.export_checkpoint(out / "epochs.tsv", 3, out / "checkpoint3.pt")
    assert (out / "checkpoint3.pt").stat().st_size > 0
    with pytest.raises(Exception, match="no checkpoint for epoch 2"):
        nmt.export_checkpoint(out / "epochs.tsv", 2, out / "checkpoint2.pt")

    translator = nmt.Translator(out / "best.pt", databin / "bin", databin / "codes", "en", "nl", max_tokens=200)
    sources = [p[0] for p in pairs(40, 9)]
    batched = translator.translate(sources)
    assert len(batched) == 40
    one_by_one = [translator.translate([s])[0] for s in sources[:5]]
    assert one_by_one == batched[:5], "batching must not change beam search results"
    assert all(t.startswith("De ") for t in batched)
    check_a_changed_decode_setting_decodes_again(out / "best.pt", databin, sources, tmp_path / "cache")
    check_nbest_decode_is_batched_and_cached(out / "best.pt", databin, sources, tmp_path / "cache")
    check_every_checkpoint_of_a_model_translates_in_one_call(out, databin, sources, tmp_path, monkeypatch)


def check_every_checkpoint_of_a_model_translates_in_one_call(out, databin, sources, tmp_path, monkeypatch):
    """mt_translate_epochs: the epoch checkpoints of one model, listed in its manifest, each
    translate the same sets into its own file, as a translator of that checkpoint alone
    would; a rerun takes everything from the cache and loads no model."""
    (tmp_path / "sources.en").write_text("\n".join(sources[:12]) + "\n")
    checkpoints = {f"epoch{e}": nmt.epoch_checkpoint(out / "epochs.tsv", e) for e in (1, 3)}
    assert checkpoints == {"epoch1": Path("work/checkpoint1.pt"), "epoch3": Path("work/checkpoint3.pt")}
    outputs = {name: tmp_path / "epochs" / f"{name}.tsv" for name in checkpoints}
    settings = DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10)

    def translate_all():
        return nmt.translate_checkpoints(
            checkpoints,
            {"probe.set": tmp_path / "sources.en"},
            outputs,
            databin=databin / "bin",
            bpe_codes=databin / "codes",
            source_lang="en",
            target_lang="nl",
            settings=settings,
            cache_dir=tmp_path / "cache_epochs",
            max_tokens=200,
        )

    stats = translate_all()
    assert [stats[name].decoded for name in checkpoints] == [12, 12]
    for name, checkpoint in checkpoints.items():
        alone = nmt.Translator(checkpoint, databin / "bin", databin / "codes", "en", "nl", max_tokens=200)
        written = read_tsv(outputs[name])
        assert written["translation"].tolist() == alone.translate(sources[:12]), name
        assert set(written["set"]) == {"probe.set"} and written["source"].tolist() == sources[:12]
        signature = decode_signature(checkpoint, databin / "codes", "en", settings)
        assert set(written["decode_signature"]) == {signature}, "each file names its own checkpoint"
    first, last = (read_tsv(outputs[name])["translation"].tolist() for name in checkpoints)
    assert first != last, "epochs 1 and 3 translate differently: the files are not one checkpoint's"

    def no_model(*args, **kwargs):
        raise AssertionError("a rerun with every translation cached must not load a model")

    monkeypatch.setattr(nmt.Translator, "for_settings", no_model)
    assert all(stat.decoded == 0 for stat in translate_all().values())


def check_nbest_decode_is_batched_and_cached(checkpoint, databin, sources, cache_dir):
    """Synonym probes keep the top 5 of the beam: the first hypothesis is the one-best
    translation, batching does not change the lists, and the cache of an n-best decode is
    its own (its signature names nbest) and serves a rerun without decoding."""
    translator = nmt.Translator(checkpoint, databin / "bin", databin / "codes", "en", "nl", beam=5, max_tokens=200)
    nbest = translator.translate_nbest(sources[:8], 5)
    assert [len(h) for h in nbest] == [5] * 8
    assert all(len(set(h)) == 5 for h in nbest), "the beam's hypotheses differ from each other"
    assert [h[0] for h in nbest] == translator.translate(sources[:8])
    assert translator.translate_nbest(sources[2:3], 5) == nbest[2:3], "batching must not change the n-best lists"
    assert translator.translate_nbest(sources[:2], 2) == [h[:2] for h in nbest[:2]]
    with pytest.raises(ValueError, match="beam"):
        translator.translate_nbest(sources[:1], 6)

    one_best = decode_signature(checkpoint, databin / "codes", "en", DecodeSettings(5, 1.2, 10))
    settings = DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10, nbest=5)
    signature = decode_signature(checkpoint, databin / "codes", "en", settings)
    assert "|nbest:5|" in signature and signature != one_best
    probes = [Probe("poet/king", "british", "This is the {term} .", s) for s in sources[:8]]
    calls = []

    def translate_nbest(batch):
        calls.append(len(batch))
        return translator.translate_nbest(batch, settings.nbest)

    cache = TranslationCache(cache_dir, signature)
    hypotheses, stats = decode_probes(cache, probes, translate_nbest)
    assert stats.decoded == len(set(sources[:8])) and calls == [stats.decoded], "one batch for all probes"
    assert [hypotheses[p.sentence] for p in probes] == nbest
    assert TranslationCache(cache_dir, one_best).path != cache.path
    again, stats = decode_probes(TranslationCache(cache_dir, signature), probes, translate_nbest)
    assert stats.decoded == 0 and len(calls) == 1 and again == hypotheses


def check_a_changed_decode_setting_decodes_again(checkpoint, databin, sources, cache_dir):
    """The bug of the checkpoint-keyed cache: a new beam found every sentence cached and
    wrote the old beam's translations again. Keyed on the decode signature, a changed
    setting decodes again and its output is what that setting gives."""

    def decode(settings):
        cache = TranslationCache(cache_dir, decode_signature(checkpoint, databin / "codes", "en", settings))
        translator = nmt.Translator.for_settings(
            checkpoint, databin / "bin", databin / "codes", "en", "nl", settings, max_tokens=200
        )
        stats = translate_with_cache(cache, sources, translator.translate)
        return stats, [cache.entries[s] for s in sources]

    stats, beam5 = decode(DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10))
    assert stats.decoded == len(set(sources))
    stats, _ = decode(DecodeSettings(beam=1, max_len_a=1.2, max_len_b=10))
    assert stats.decoded == len(set(sources)), "a new beam must not be served from the old beam's cache"
    stats, short = decode(DecodeSettings(beam=5, max_len_a=0, max_len_b=2))
    assert stats.decoded == len(set(sources))
    assert short != beam5 and all(len(t.split()) <= 3 for t in short), "the length limit changes the output"
    stats, again = decode(DecodeSettings(beam=5, max_len_a=1.2, max_len_b=10))
    assert stats.decoded == 0 and again == beam5


VALIDATION_LINE = re.compile(r"epoch (\d+) \| valid on 'valid' subset \| loss ([\d.]+) \|.* \| bleu ([\d.]+) \|")


def test_the_best_checkpoint_is_the_epoch_of_the_best_validation_bleu(databin, tmp_path, caplog):
    """Footnote 9: convergence, and so checkpoint_best.pt, by validation BLEU. fairseq 0.12
    with the installed sacrebleu and sacremoses scores every epoch; in this run the
    validation loss still falls at epoch 6 while BLEU peaked at epoch 5, and the best
    checkpoint is BLEU's (by loss, fairseq's default, it would be the last epoch)."""
    import torch

    from natcomp.mt.config import selection_options

    mt = {"source_lang": "en", "target_lang": "nl", "train": {"select_by": "bleu"}, "translate": {"beam": 5}}
    options = {**OPTIONS, **selection_options(mt), "max-epoch": 6, "patience": -1}
    epochs = range(1, 7)
    caplog.set_level(logging.INFO)
    nmt.train(databin / "bin", tmp_path / "w", tmp_path / "best.pt", tmp_path / "e.tsv", epochs, options, 1, "en", "nl")

    scores = {}  # epoch -> (validation loss, validation BLEU), from fairseq's log
    for record in caplog.records:
        if match := VALIDATION_LINE.search(record.getMessage()):
            scores[int(match.group(1))] = (float(match.group(2)), float(match.group(3)))
    assert sorted(scores) == list(epochs), "fairseq logs a validation BLEU after every epoch"
    # fairseq's rule: at least as good as the best so far, so a tie goes to the later epoch
    best_bleu = max(epochs, key=lambda epoch: (scores[epoch][1], epoch))
    best_loss = min(epochs, key=lambda epoch: (scores[epoch][0], -epoch))
    assert best_bleu != best_loss, f"this run must tell BLEU from loss: {scores}"

    def weights(path):
        return torch.load(path, weights_only=False)["model"]

    best = weights(tmp_path / "best.pt")
    same = []  # the epochs whose checkpoint holds the weights of checkpoint_best.pt
    for epoch in epochs:
        checkpoint = weights(tmp_path / "w" / f"checkpoint{epoch}.pt")
        if all(torch.equal(best[name], tensor) for name, tensor in checkpoint.items()):
            same.append(epoch)
    assert same == [best_bleu], f"checkpoint_best.pt is epoch {same}, validation BLEU's best is {best_bleu}: {scores}"
    assert f"checkpoint_best.pt is now epoch {best_bleu} (validation bleu {scores[best_bleu][1]})" in caplog.text


def test_the_reported_best_checkpoint_is_the_best_when_patience_ran_out(databin, tmp_path, monkeypatch):
    """Appendix E.2: stop after 10 epochs without improvement "and take the best checkpoint
    at that point". Training goes on to the last kept epoch (the overgeneralisation curves
    need it), so validation BLEU is scripted to peak (epoch 2), dip for longer than the
    patience (2: it runs out at epoch 4), then rise above the peak (epoch 6): the exported
    best checkpoint is epoch 2's, although fairseq's checkpoint_best.pt ends as epoch 6's."""
    import torch
    from fairseq_cli import train as fairseq_train

    bleu_by_epoch = {1: 10.0, 2: 20.0, 3: 15.0, 4: 14.0, 5: 13.0, 6: 30.0, 7: 25.0}
    monkeypatch.setattr(
        fairseq_train, "validate", lambda cfg, trainer, task, epoch_itr, subsets: [bleu_by_epoch[epoch_itr.epoch]]
    )
    options = {**OPTIONS, "best-checkpoint-metric": "bleu", "maximize-best-checkpoint-metric": True, "patience": 2}
    work = tmp_path / "w"
    nmt.train(
        databin / "bin",
        work,
        tmp_path / "best.pt",
        tmp_path / "e.tsv",
        [2, 6, 7],
        {**options, "max-epoch": 7},
        1,
        "en",
        "nl",
    )

    def weights(path):
        return torch.load(path, weights_only=False)["model"]

    def same(a, b):
        return all(torch.equal(a[name], tensor) for name, tensor in b.items())

    exported, epochs = weights(tmp_path / "best.pt"), {e: weights(work / f"checkpoint{e}.pt") for e in (2, 6, 7)}
    assert same(exported, epochs[2]), "the best checkpoint when patience ran out (epoch 2) is the reported one"
    assert same(weights(work / "checkpoint_best.pt"), epochs[6]), "fairseq's own best moved on to epoch 6"
    assert not same(exported, epochs[6])


def test_patience_that_never_runs_out_reports_fairseqs_best(tmp_path):
    """Without the copy kept when patience ran out, checkpoint_best.pt is the reported one;
    the first copy is never replaced by a later one (patience can run out again)."""
    (tmp_path / "checkpoint_best.pt").write_bytes(b"epoch 2")
    assert nmt.keep_best_at_patience(tmp_path, 4)
    (tmp_path / "checkpoint_best.pt").write_bytes(b"epoch 9")
    assert not nmt.keep_best_at_patience(tmp_path, 11)
    assert (tmp_path / nmt.BEST_AT_PATIENCE).read_bytes() == b"epoch 2"
    assert not nmt.keep_best_at_patience(tmp_path / "empty", 3), "no best checkpoint yet: nothing to keep"


def test_checkpoints_load_with_torch_safe_loading(databin, tmp_path):
    """fairseq's torch.load runs with weights_only (torch's default); no global opt-out.
    Trained as the workflow trains, with validation BLEU, whose meters fairseq stores as
    numpy arrays in the checkpoint: the translator (fairseq's loader) must load it."""
    import os

    import torch

    from natcomp.mt.config import selection_options

    assert "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD" not in os.environ
    mt = {"train": {"select_by": "bleu"}, "translate": {"beam": 5}}
    nmt.train(
        databin / "bin",
        tmp_path / "w",
        tmp_path / "best.pt",
        tmp_path / "e.tsv",
        [1],
        {**OPTIONS, **selection_options(mt), "max-epoch": 1},
        seed=2,
        source_lang="en",
        target_lang="nl",
    )
    nmt.allow_fairseq_checkpoint_classes()
    state = torch.load(tmp_path / "best.pt", weights_only=True)
    assert "model" in state and state["extra_state"]["best"] == state["extra_state"]["val_loss"]
    translator = nmt.Translator(tmp_path / "best.pt", databin / "bin", databin / "codes", "en", "nl", max_tokens=200)
    assert len(translator.translate(["The poet sees the king."])) == 1


def test_killed_training_resumes_from_last_checkpoint(databin, tmp_path, caplog):
    work, out = tmp_path / "work", tmp_path / "out"
    options = {**OPTIONS, "max-epoch": 6, "patience": -1}
    script = textwrap.dedent(
        f"""
        import json, sys
        from natcomp.mt import nmt
        nmt.train({str(databin / "bin")!r}, {str(work)!r}, {str(out / "best.pt")!r}, {str(out / "e.tsv")!r},
                  [6], json.loads(sys.argv[1]), seed=1, source_lang="en", target_lang="nl")
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script, json.dumps(options)], stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    # Kill once checkpoint_last.pt is whole (a cut-off one is test_cut_off_last_checkpoint_*).
    while (
        not nmt.is_whole_checkpoint(work / "checkpoint_last.pt") and time.time() < deadline and process.poll() is None
    ):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert (work / "checkpoint_last.pt").exists() and not (out / "best.pt").exists()

    state = __import__("torch").load(work / "checkpoint_last.pt", weights_only=False)
    epoch_at_kill = state["extra_state"]["train_iterator"]["epoch"]
    assert epoch_at_kill < 6

    caplog.set_level(logging.INFO)
    nmt.train(databin / "bin", work, out / "best.pt", out / "e.tsv", [6], options, 1, "en", "nl")
    messages = [r.getMessage() for r in caplog.records]
    assert any("Loaded checkpoint" in m and "checkpoint_last.pt" in m for m in messages), messages[:20]
    assert not any("No existing checkpoint found" in m for m in messages)
    assert (out / "best.pt").exists()


# --- GPU decisions as pure functions (issue 15), checked on CPU -------------------------


@pytest.mark.parametrize(
    ("tokens", "max_tokens", "precision", "gpus", "memory", "expected"),
    [
        # the paper's 28672 tokens per update in fp16 on one 80 GB H100: one micro-batch
        (28672, "auto", "fp16", 1, 79.1, (28672, 1, 1)),
        # 40 GB: half the micro-batch, twice the accumulation
        (28672, "auto", "fp16", 1, 40.0, (14336, 2, 1)),
        # a little under the reference: two even micro-batches, not 28160 + 28160
        (28672, "auto", "fp16", 1, 77.0, (14336, 2, 1)),
        # fp32 has half the fp16 reference
        (28672, "auto", "fp32", 1, 80.0, (14336, 2, 1)),
        # two GPUs share the update: the update does not grow with the GPUs
        (28672, "auto", "fp16", 2, 80.0, (14336, 1, 2)),
        (28672, "auto", "fp16", 4, 80.0, (7168, 1, 4)),
        # the paper's original factors on one GPU, and on two
        (28672, 3584, "fp32", 1, 32.0, (3584, 8, 1)),
        (28672, 3584, "fp32", 2, 32.0, (3584, 4, 2)),
        # CPU: the demo's 2048 x 1 as before; 28672 in 4096-token micro-batches
        (2048, "auto", "fp32", 0, None, (2048, 1, 1)),
        (28672, "auto", "fp32", 0, None, (4096, 7, 1)),
        # the paper's update, 3584 x 8 on each of 32 GPUs (appendix E.2, E.3): on one H100 the
        # measured 28,672-token micro-batch 32 times; on the paper's 32 GPUs its own 3584 x 8
        (917504, "auto", "fp16", 1, 79.1, (28672, 32, 1)),
        (917504, 28672, "fp16", 1, 79.1, (28672, 32, 1)),
        (917504, "auto", "fp16", 4, 79.1, (28672, 8, 4)),
        (917504, 3584, "fp16", 32, 32.0, (3584, 8, 32)),
    ],
)
def test_batch_plan_reaches_the_tokens_per_update_on_any_hardware(
    tokens, max_tokens, precision, gpus, memory, expected
):
    plan = nmt.plan_batches(tokens, max_tokens, precision, gpus, memory)
    assert (plan.max_tokens, plan.update_freq, plan.world_size) == expected
    assert plan.effective_tokens_per_update >= tokens
    assert plan.max_tokens % 512 == 0 or max_tokens != "auto"


def test_rounding_up_the_update_frequency_can_exceed_the_target():
    plan = nmt.plan_batches(28672, "auto", "fp16", 1, 32.0)  # a 32 GB V100: 3 micro-batches of 9558 -> 9728
    assert (plan.max_tokens, plan.update_freq) == (9728, 3)
    assert plan.effective_tokens_per_update == 29184 > plan.tokens_per_update
    plan = nmt.plan_batches(28672, 5000, "fp32", 1)  # a micro-batch from the config is used as given
    assert (plan.max_tokens, plan.update_freq, plan.effective_tokens_per_update) == (5000, 6, 30000)


def test_auto_micro_batch_bounds():
    assert nmt.auto_max_tokens(1000, "fp16", 80) == 1000, "never above the tokens per update"
    assert nmt.auto_max_tokens(28672, "fp16", 0.5) == 512, "never below 512"
    assert nmt.auto_max_tokens(300, "fp16", 0.5) == 300
    with pytest.raises(ValueError, match="precision"):
        nmt.auto_max_tokens(28672, "bf16", 80)
    with pytest.raises(ValueError):
        nmt.plan_batches(0, "auto", "fp32", 1, 80)


def test_a_job_uses_the_gpus_it_was_given(caplog):
    assert nmt.job_gpus(None, 0) == 0 and nmt.job_gpus(None, 4) == 1
    assert nmt.job_gpus(2, 4) == 2 and nmt.job_gpus(0, 4) == 0
    assert nmt.job_gpus(1, 0) == 0, "no GPU visible: CPU"
    with caplog.at_level(logging.WARNING):
        assert nmt.job_gpus(4, 2) == 2
    assert "given 4 GPU(s) but 2 are visible" in caplog.text


def test_precision_decisions():
    assert nmt.training_precision("fp16", on_gpu=True) == "fp16"
    assert nmt.training_precision("fp32", on_gpu=False) == "fp32"
    with pytest.raises(ConfigError, match="mt.train.precision: fp16 training needs a GPU"):
        nmt.training_precision("fp16", on_gpu=False)
    with pytest.raises(ConfigError, match="TPU mode"):
        nmt.training_precision("bf16", on_gpu=True)
    assert nmt.decode_precision("fp16", on_gpu=True) == "fp16"
    assert nmt.decode_precision("fp16", on_gpu=False) == "fp32", "CPU decodes in fp32 and says so"
    with pytest.raises(ConfigError):
        nmt.decode_precision("bf16", on_gpu=True)
    assert nmt.translate_max_tokens("auto", on_gpu=False) == 4096
    assert nmt.translate_max_tokens("auto", on_gpu=True) == 16384
    assert nmt.translate_max_tokens(200, on_gpu=True) == 200
    assert nmt.prepare_worker_count("auto", on_gpu=True) == 1
    assert nmt.prepare_worker_count("auto", on_gpu=False) == 0
    assert nmt.prepare_worker_count(3, on_gpu=False) == 3


def test_hardware_options_are_not_part_of_the_resume_fingerprint():
    """A job resubmitted on another kind of node (CPU, another GPU, more GPUs) resumes:
    only the optimisation is fingerprinted."""
    fingerprint = nmt.training_fingerprint(OPTIONS, 1, "en", "nl", [3, 1], tokens_per_update=2048)
    assert fingerprint["keep_epochs"] == [1, 3]
    assert "--cpu" not in json.dumps(fingerprint)
    cpu = nmt.hardware_argv(nmt.plan_batches(28672, "auto", "fp32", 0), "fp32", 0)
    gpu = nmt.hardware_argv(nmt.plan_batches(28672, "auto", "fp16", 2, 80), "fp16", 2)
    assert cpu == ["--num-workers", "0", "--max-tokens", "4096", "--update-freq", "7", "--cpu"]
    assert gpu == [
        *("--num-workers", "0", "--max-tokens", "14336", "--update-freq", "1"),
        *("--distributed-world-size", "2", "--fp16"),
    ]
    loading = nmt.hardware_argv(None, "fp16", 1, loading_workers=4)
    assert loading == ["--num-workers", "4", "--distributed-world-size", "1", "--fp16"]
    changed = [
        nmt.training_fingerprint(OPTIONS, 2, "en", "nl", [1, 3], tokens_per_update=2048),
        nmt.training_fingerprint(OPTIONS, 1, "en", "nl", [1, 3], tokens_per_update=4096),
        nmt.training_fingerprint(OPTIONS, 1, "en", "nl", [1, 3], tokens_per_update=2048, precision="fp16"),
        nmt.training_fingerprint({**OPTIONS, "lr": 0.1}, 1, "en", "nl", [1, 3], tokens_per_update=2048),
    ]
    assert all(other != fingerprint for other in changed)


def test_length_sorted_chunks_grow_to_the_chunk_size():
    sentences = ["a" * n for n in (5, 1, 4, 1, 3, 9, 2)]
    chunks = nmt.length_sorted_chunks(sentences, chunk_sentences=4, first_chunk=1)
    assert [len(c) for c in chunks] == [1, 2, 4]
    assert [i for c in chunks for i in c] == [1, 3, 6, 4, 2, 0, 5], "by length, ties in order"
    assert nmt.length_sorted_chunks([], 4) == []


def test_tokens_per_update_trains_as_the_same_fairseq_batch_did(databin, tmp_path, caplog):
    """The demo's 2048 x 1 is now tokens_per_update 2048 with max_tokens auto: on CPU the
    same fairseq batch, so the same model; the fingerprint holds no hardware option, so a
    move to a GPU node resumes; max-tokens together with tokens_per_update is refused."""
    import torch

    legacy = {**OPTIONS, "max-epoch": 1, "max-tokens": 1024}
    nmt.train(databin / "bin", tmp_path / "a", tmp_path / "a.pt", tmp_path / "a.tsv", [1], legacy, 1, "en", "nl")
    new = {key: value for key, value in legacy.items() if key != "max-tokens"}
    caplog.set_level(logging.INFO)
    plan = nmt.train(
        databin / "bin", tmp_path / "b", tmp_path / "b.pt", tmp_path / "b.tsv", [1], new, 1, "en", "nl",
        tokens_per_update=1024,
    )  # fmt: skip
    assert (plan.max_tokens, plan.update_freq, plan.world_size) == (1024, 1, 1)
    assert "1024 tokens per update = 1024 tokens per micro-batch x update-freq 1 x 1 CPU process" in caplog.text
    first, second = torch.load(tmp_path / "a.pt")["model"], torch.load(tmp_path / "b.pt")["model"]
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)

    stamp = (tmp_path / "b" / nmt.ARGS_FINGERPRINT).read_text()
    expected = nmt.training_fingerprint(new, 1, "en", "nl", [1], tokens_per_update=1024)
    assert json.loads(stamp) == expected and "--cpu" not in stamp and "max-tokens" not in stamp
    (tmp_path / "b" / nmt.FINISHED_STAMP).unlink()  # as if the job had been killed
    assert nmt.prepare_workdir(tmp_path / "b", expected) is True, "the same optimisation resumes on any node"

    with pytest.raises(ConfigError, match="mt.train.fairseq.max-tokens: is derived from the job's GPUs"):
        nmt.train(databin / "bin", tmp_path / "c", tmp_path / "c.pt", tmp_path / "c.tsv", [1], legacy, 1, "en", "nl",
                  tokens_per_update=1024)  # fmt: skip
    with pytest.raises(ConfigError, match="fp16 training needs a GPU"):
        nmt.train(databin / "bin", tmp_path / "d", tmp_path / "d.pt", tmp_path / "d.tsv", [1], new, 1, "en", "nl",
                  tokens_per_update=1024, precision="fp16")  # fmt: skip
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists(), "refused before the folder is made"


def test_chunked_overlapped_translation_gives_the_same_translations(databin, tmp_path):
    """Length-sorted chunks and sources prepared in a worker process change no
    translation (fp32): the same outputs as one batch prepared in this process."""
    checkpoint = tmp_path / "best.pt"
    nmt.train(databin / "bin", tmp_path / "w", checkpoint, tmp_path / "e.tsv", [2], {**OPTIONS, "max-epoch": 2}, 1,
              "en", "nl")  # fmt: skip
    sources = list(dict.fromkeys(p[0] for p in pairs(80, 11)))
    sources += ["The poet sees the king, and the mayor forgets the baker.", "The friend."]
    args = (checkpoint, databin / "bin", databin / "codes", "en", "nl")
    whole = nmt.Translator(*args, max_tokens=4096, prepare_workers=0, chunk_sentences=10_000)
    reference = whole.translate(sources)
    assert whole.precision == "fp32" and whole.prepare_workers == 0
    with nmt.Translator(*args, max_tokens=60, prepare_workers=1, chunk_sentences=16, precision="fp16") as chunked:
        assert chunked.precision == "fp32", "fp16 needs a GPU: this decode ran in fp32"
        assert chunked.prepare_workers == 1 and chunked._pool is not None
        assert chunked.translate(sources) == reference
        assert chunked.translate_nbest(sources[:6], 3) == whole.translate_nbest(sources[:6], 3)
    assert chunked._pool is None
    assert whole.translate([]) == []


def test_each_sentence_ends_at_its_own_length_limit_whatever_its_batch(databin, tmp_path):
    """A model of one epoch writes until the length limit stops it. fairseq's generator
    takes the limit from the batch's longest source, so a short sentence decoded beside a
    long one ran on for longer; natcomp's translator ends each sentence where fairseq ends
    it in a batch of its own, in one batch or many, beam 5 or the n best."""
    checkpoint = tmp_path / "best.pt"
    nmt.train(databin / "bin", tmp_path / "w", checkpoint, tmp_path / "e.tsv", [1], {**OPTIONS, "max-epoch": 1}, 1,
              "en", "nl")  # fmt: skip
    short = ["The friend.", "The king sees the poet."]
    long = "The poet sees the king, and the mayor forgets the baker, and the friend admires the king."
    sources = [*short, long]
    args = (checkpoint, databin / "bin", databin / "codes", "en", "nl")
    options = dict(beam=5, max_len_a=1.2, max_len_b=3, prepare_workers=0)
    one_batch = nmt.Translator(*args, max_tokens=4096, **options)
    fairseq_own = nmt.Translator(*args, max_tokens=4096, **options)
    del fairseq_own.generator.model.forward_decoder  # fairseq's generator as released
    alone = [fairseq_own.translate_tokenised([sentence])[0] for sentence in sources]
    assert fairseq_own.translate_tokenised(sources)[:2] != alone[:2], "fairseq's own limit is the batch's"
    assert one_batch.translate_tokenised(sources) == alone
    # batches of the long sentence's tokens: the short ones together, the long one alone
    small_batches = nmt.Translator(*args, max_tokens=len(one_batch.encode(long)), **options)
    assert small_batches.translate_tokenised(sources) == alone
    assert [h[0] for h in one_batch.translate_nbest(sources, 3)] == [detokenise(t, "nl") for t in alone]


def test_the_length_limit_of_a_sentence_is_fairseqs_integer_of_a_float64_product(caplog):
    """int(max_len_a x source tokens + max_len_b) as fairseq computes it in Python, for
    factors in thirds and tenths, whose products lie next to whole numbers."""
    import math

    import torch

    class Generator:
        eos, max_len = 2, 1024

        class model:  # noqa: N801 - the attribute fairseq's generator has
            @staticmethod
            def forward_decoder(tokens, encoder_outs, incremental_states, temperature=1.0):
                return torch.zeros(tokens.size(0), 6), None

    # in float32, 0.7 x 170 and 7/3 x 51 would round up to a whole number
    lengths = torch.arange(1, 201)
    for max_len_a in (1 / 3, 2 / 3, 7 / 3, 0.1, 0.7, 1.1, 1.2):
        generator = Generator()
        generator.model = Generator.model()
        nmt.limit_each_sentence(generator, max_len_a, 7)
        expected = torch.tensor([int(max_len_a * n + 7) for n in lengths.tolist()])
        for step in range(int(expected.max()) + 2):
            tokens = torch.zeros(len(lengths), step + 1, dtype=torch.long)
            lprobs, _ = generator.model.forward_decoder(tokens, [{"src_lengths": [lengths.view(-1, 1)]}], None)
            ended = lprobs[:, 0] == -math.inf
            assert torch.equal(ended, expected <= step), (max_len_a, step)
            assert torch.equal(lprobs[ended, 2], torch.zeros(int(ended.sum()))), "the end of sentence stays open"
    untouched = Generator()
    untouched.model = Generator.model()
    nmt.limit_each_sentence(untouched, 0, 200)
    assert "forward_decoder" not in vars(untouched.model), "fairseq's default limit is every sentence's"
    nmt.limit_each_sentence(untouched, 1.2, 0)
    with caplog.at_level(logging.WARNING, logger="natcomp.mt.nmt"):
        for _ in range(2):
            lprobs, _ = untouched.model.forward_decoder(torch.zeros(3, 5, dtype=torch.long), [{}], None)
            assert not (lprobs == -math.inf).any(), "no source lengths: the batch's limit only"
    assert [r.message for r in caplog.records] == [
        "this model's encoder does not report source lengths: the length limit is the batch's"
    ]


def test_a_gpu_job_gets_its_batch_precision_and_world_size_and_the_cpu_fingerprint(databin, tmp_path, monkeypatch):
    """The GPU branch of train() up to fairseq, on a pretend machine with two 40 GB GPUs:
    a job given one GPU trains on one, in fp16, with the micro-batch sized to 40 GB; its
    resume fingerprint is the one a CPU job of the same config writes."""
    import torch

    class Stop(Exception):
        pass

    calls = []

    def fake_fairseq(argv, keep_epochs, min_epoch, cuda_settings=None):
        calls.append((argv, cuda_settings))
        raise Stop

    monkeypatch.setattr(nmt, "_run_fairseq_train", fake_fairseq)
    options = {key: value for key, value in OPTIONS.items() if key != "max-tokens"}
    common = dict(keep_epochs=[1], options=options, seed=1, source_lang="en", target_lang="nl", tokens_per_update=28672)
    with pytest.raises(Stop):
        nmt.train(databin / "bin", tmp_path / "cpu", tmp_path / "c.pt", tmp_path / "c.tsv", **common, gpus=1)
    cpu_argv, cpu_cuda = calls.pop()
    assert cpu_cuda is None and "--max-tokens 4096 --update-freq 7 --cpu" in " ".join(cpu_argv)
    assert "--fp16" not in cpu_argv

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(nmt, "gpu_memory_gib", lambda: 40.0)
    with pytest.raises(Stop):
        nmt.train(databin / "bin", tmp_path / "gpu", tmp_path / "g.pt", tmp_path / "g.tsv", **common, gpus=1)
    gpu_argv, gpu_cuda = calls.pop()
    assert gpu_cuda == ("fp32", True), "TF32 allowed, cuDNN attention off, in each training process"
    assert "--cpu" not in gpu_argv and "--fp16" not in gpu_argv
    assert "--max-tokens 7168 --update-freq 4 --distributed-world-size 1" in " ".join(gpu_argv), "fp32, 40 GB"
    fingerprint = nmt.ARGS_FINGERPRINT
    assert (tmp_path / "gpu" / fingerprint).read_text() == (tmp_path / "cpu" / fingerprint).read_text()

    with pytest.raises(Stop):
        nmt.train(databin / "bin", tmp_path / "fp16", tmp_path / "h.pt", tmp_path / "h.tsv", **common, gpus=4,
                  precision="fp16", allow_tf32=False, loading_workers=4)  # fmt: skip
    argv, cuda = calls.pop()
    assert cuda == ("fp16", False)
    assert " ".join(argv).endswith("--num-workers 4 --max-tokens 14336 --update-freq 1 --distributed-world-size 2 "
                                   f"--fp16 --save-dir {tmp_path / 'fp16'}"), "4 GPUs asked, 2 visible: 2"  # fmt: skip


def test_fairseq_is_imported_without_the_metrics_libraries_of_tasks_natcomp_never_runs():
    # A fresh process: this module has imported fairseq already. fairseq's bindings to the
    # left-out functions still compute the real thing, and a later import is the real one.
    script = textwrap.dedent(
        """
        import sys
        from natcomp.mt.nmt import FAIRSEQ_UNUSED_IMPORTS, import_fairseq
        import_fairseq()
        import fairseq_cli.train  # noqa: F401  (the training entry point imports nothing more)
        print(sorted(name for name in FAIRSEQ_UNUSED_IMPORTS if name in sys.modules))
        from fairseq.criterions import sentence_prediction
        from fairseq.tasks import audio_classification
        print(round(sentence_prediction.f1_score([0, 1, 1, 1], [0, 1, 0, 0]), 4))
        print(round(float(sentence_prediction.pearsonr([1, 2, 3], [1, 2, 4])[0]), 4))
        fpr, tpr, _ = audio_classification.sklearn_metrics.roc_curve([0, 0, 1], [0.1, 0.6, 0.4])
        print(fpr.tolist(), tpr.tolist())
        from sklearn.metrics import f1_score
        import scipy.stats
        print(f1_score.__module__, scipy.stats.pearsonr.__module__)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split("\n")[:5] == [
        "[]",
        "0.5",
        "0.982",
        "[0.0, 0.5, 0.5, 1.0] [0.0, 0.0, 1.0, 1.0]",
        "sklearn.metrics._classification scipy.stats._stats_py",
    ], result.stdout

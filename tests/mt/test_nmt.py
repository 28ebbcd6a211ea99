"""fairseq integration on a toy task: training, resumption after a kill, safe loading,
epoch-checkpoint selection and batched translation."""

import json
import logging
import random
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
from natcomp.mt.preprocess import apply_bpe_chunk, learn_joint_bpe, tokenise_chunk
from natcomp.mt.synonym_probes import Probe, decode_probes

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
    "num-workers": 0,
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
        "--source-lang", "en", "--target-lang", "nl",
        "--trainpref", root / "train.bpe", "--validpref", root / "valid.bpe",
        "--destdir", root / "bin", "--joined-dictionary", "--workers", "1",
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
    with pytest.raises(ConfigError, match=r"mt.train.fairseq.arch: fairseq has no model architecture "
                       r"'transformer_wmt_en_dee'; did you mean 'transformer_wmt_en_de'"):
        nmt.train(databin / "bin", tmp_path / "work", tmp_path / "best.pt", tmp_path / "e.tsv", [1],
                  {**OPTIONS, "arch": "transformer_wmt_en_dee"}, 1, "en", "nl")
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
    with pytest.raises(ConfigError, match=r"mt.train.fairseq.max-epochs: fairseq-train has no option --max-epochs; "
                       r"did you mean 'max-epoch'\?"):
        nmt.train(databin / "bin", work, tmp_path / "best.pt", tmp_path / "e.tsv", [1],
                  {**OPTIONS, "max-epochs": 4}, 1, "en", "nl")
    assert sorted(p.name for p in work.iterdir()) == before
    with pytest.raises(ConfigError, match=r"mt.train.fairseq.lr: fairseq-train refuses it: .*invalid value: 'fast'"):
        nmt.check_fairseq_options({**OPTIONS, "lr": "fast"})


def test_train_keeps_requested_epochs_and_translates(databin, tmp_path, monkeypatch):
    out = tmp_path / "model"
    monkeypatch.chdir(tmp_path)  # a relative work dir, as in the workflow
    nmt.train(
        databin / "bin", "work", out / "best.pt", out / "epochs.tsv", [1, 3],
        {**OPTIONS, "max-epoch": 4}, seed=1, source_lang="en", target_lang="nl",
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


def test_checkpoints_load_with_torch_safe_loading(databin, tmp_path):
    """fairseq's torch.load runs with weights_only (torch's default); no global opt-out."""
    import os

    import torch

    assert "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD" not in os.environ
    nmt.train(
        databin / "bin", tmp_path / "w", tmp_path / "best.pt", tmp_path / "e.tsv", [1],
        {**OPTIONS, "max-epoch": 1}, seed=2, source_lang="en", target_lang="nl",
    )
    nmt.allow_fairseq_checkpoint_classes()
    state = torch.load(tmp_path / "best.pt", weights_only=True)
    assert "model" in state


def test_killed_training_resumes_from_last_checkpoint(databin, tmp_path, caplog):
    work, out = tmp_path / "work", tmp_path / "out"
    options = {**OPTIONS, "max-epoch": 6, "patience": -1}
    script = textwrap.dedent(
        f"""
        import json, sys
        from natcomp.mt import nmt
        nmt.train({str(databin / 'bin')!r}, {str(work)!r}, {str(out / 'best.pt')!r}, {str(out / 'e.tsv')!r},
                  [6], json.loads(sys.argv[1]), seed=1, source_lang="en", target_lang="nl")
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script, json.dumps(options)], stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    # Kill once checkpoint_last.pt is whole (a cut-off one is test_cut_off_last_checkpoint_*).
    while not nmt.is_whole_checkpoint(work / "checkpoint_last.pt") and time.time() < deadline and process.poll() is None:
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

"""fairseq integration: training with resumption and epoch-checkpoint selection, safe
checkpoint loading, and batched beam-search translation.

fairseq is imported lazily, so the rest of natcomp works where it is not installed.

Checkpoint safety: since torch 2.6 ``torch.load`` refuses pickled objects that are not
allow-listed, and fairseq 0.12 checkpoints contain a handful of them (its meters,
``argparse.Namespace``). Instead of switching safe loading off for everything
(``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``, which lets any checkpoint file run code), every
fairseq entry point in natcomp first calls :func:`allow_fairseq_checkpoint_classes`,
which adds exactly those classes to torch's allow-list with
``torch.serialization.add_safe_globals``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import os
import re
import shutil
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError, InputError
from natcomp.files import atomic_open, atomic_path, read_lines
from natcomp.mt.preprocess import detokenise, load_bpe, remove_bpe, tokenise

log = logging.getLogger(__name__)

ARGS_FINGERPRINT = "natcomp_train_args.json"
# Written once a training has exported its outputs: a later job for the same model is a
# forced rerun (or its outputs were deleted), which must train afresh, not resume.
FINISHED_STAMP = "natcomp_train_finished"


def allow_fairseq_checkpoint_classes() -> None:
    """Allow-list the non-tensor classes stored in fairseq 0.12 checkpoints."""
    import torch
    from fairseq.logging import meters

    torch.serialization.add_safe_globals(
        [
            argparse.Namespace,
            meters.AverageMeter,
            meters.SumMeter,
            meters.ConcatTensorMeter,
            meters.TimeMeter,
            meters.StopwatchMeter,
            meters.MetersDict,
        ]
    )


def check_architecture(name: object) -> None:
    """Stop before any work if fairseq has no model architecture ``name`` (a typo would
    otherwise surface as an argparse error deep in fairseq-train's output)."""
    from fairseq.models import ARCH_MODEL_REGISTRY

    if name in ARCH_MODEL_REGISTRY:
        return
    close = difflib.get_close_matches(str(name), list(ARCH_MODEL_REGISTRY), n=3)
    hint = f"did you mean {' or '.join(map(repr, close))}?" if close else "fairseq-train --help lists them under --arch"
    raise ConfigError("mt.train.fairseq.arch", f"fairseq has no model architecture {name!r}; {hint}")


#: fairseq-train options the workflow sets itself (per model, from the rule's wildcards)
WORKFLOW_FAIRSEQ_OPTIONS = ("save-dir", "seed", "source-lang", "target-lang")


def check_fairseq_options(options: Mapping[str, object]) -> None:
    """Parse ``options`` with fairseq-train's own parser (architecture, task, optimizer,
    scheduler and criterion options included); raise :class:`ConfigError` naming the
    first bad option and the closest valid one. Costs the import of fairseq (~4 s)."""
    from fairseq import options as fairseq_options_module

    check_architecture(options.get("arch"))
    parser = fairseq_options_module.get_training_parser()

    def fail(message: str) -> None:
        match = re.search(r"argument (--[\w-]+)", message)
        key = "mt.train.fairseq" + (f".{match.group(1)[2:]}" if match else "")
        raise ConfigError(
            key, "fairseq-train refuses it: " + message.replace("invalid <lambda> value", "invalid value")
        )

    parser.error = fail  # argparse would print the whole usage and exit
    _, unknown = fairseq_options_module.parse_args_and_arch(parser, ["DATA", *fairseq_argv(options)], parse_known=True)
    flags = [token for token in unknown if token.startswith("--")]
    if flags:
        valid = {flag[2:] for action in parser._actions for flag in action.option_strings if flag.startswith("--")}
        name = flags[0][2:]
        close = difflib.get_close_matches(name, sorted(valid), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise ConfigError(f"mt.train.fairseq.{name}", f"fairseq-train has no option --{name}{hint}")


def fairseq_argv(options: Mapping[str, object]) -> list[str]:
    """Turn ``{"adam-betas": "(0.9, 0.98)", "share-all-embeddings": True}`` into CLI args.

    ``True`` becomes a bare flag, ``False``/``None`` drop the option, lists repeat values.
    """
    argv: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv


def prepare_workdir(workdir: Path, fingerprint: Mapping[str, object]) -> bool:
    """Keep ``workdir`` for resumption only if an unfinished training with the same
    settings left it.

    A training folder is never deleted before the new training has written a
    checkpoint: one that is not resumed is moved to ``<workdir>.previous``
    (:func:`discard_previous` removes it once the new run has saved its first epoch), and
    an unfinished ``.previous`` training with the wanted settings is resumed.
    Returns True when training resumes from an earlier ``checkpoint_last.pt``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    wanted = json.dumps(fingerprint, sort_keys=True, indent=1)
    previous = previous_workdir(workdir)
    if _fingerprint(previous) == wanted and not _has_checkpoints(workdir) and not (previous / FINISHED_STAMP).exists():
        log.warning("resuming the unfinished training set aside in %s", previous)
        shutil.rmtree(workdir)
        previous.rename(workdir)
    restart = None
    if (workdir / FINISHED_STAMP).exists():
        restart = "the previous training in %s finished; training again from scratch"
    elif _fingerprint(workdir) not in (None, wanted):
        restart = "training settings changed since %s was written: starting from scratch"
    if restart:
        log.warning(restart, workdir)
        if _has_checkpoints(workdir):
            # Not deleted yet: the new run may fail before it has anything to show.
            if previous.exists():
                shutil.rmtree(previous)
            workdir.rename(previous)
            log.warning("the earlier training is kept in %s until the new one saves its first epoch", previous)
        else:
            shutil.rmtree(workdir)
        workdir.mkdir(parents=True)
    last = workdir / "checkpoint_last.pt"
    if last.exists() and not is_whole_checkpoint(last):
        _replace_cut_off_last_checkpoint(workdir)
    resumes = last.exists()
    (workdir / ARGS_FINGERPRINT).write_text(wanted)
    return resumes


def previous_workdir(workdir: Path) -> Path:
    """Where :func:`prepare_workdir` keeps a training it does not resume."""
    return workdir.with_name(workdir.name + ".previous")


def discard_previous(workdir: Path) -> None:
    """Delete the training set aside for ``workdir``: the new one has saved a checkpoint."""
    previous = previous_workdir(Path(workdir))
    if previous.exists():
        log.info("the new training saved a checkpoint: deleting the earlier one in %s", previous)
        shutil.rmtree(previous)


def _fingerprint(workdir: Path) -> str | None:
    stamp = workdir / ARGS_FINGERPRINT
    return stamp.read_text() if stamp.exists() else None


def _has_checkpoints(workdir: Path) -> bool:
    return workdir.exists() and any(workdir.glob("checkpoint*.pt"))


def is_whole_checkpoint(path: str | Path) -> bool:
    """Whether a torch checkpoint file is complete. fairseq saves one checkpoint atomically
    and *copies* it to the others (``checkpoint_last.pt``), so a job killed during the copy
    leaves a cut-off file, which lacks the zip directory torch's format ends with."""
    try:
        with zipfile.ZipFile(path) as archive:
            return bool(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def _replace_cut_off_last_checkpoint(workdir: Path) -> None:
    """Resume from the newest whole epoch checkpoint instead, or start afresh."""
    last = workdir / "checkpoint_last.pt"
    numbered = (re.fullmatch(r"checkpoint(\d+)\.pt", p.name) for p in workdir.glob("checkpoint*.pt"))
    epochs = sorted((int(m.group(1)) for m in numbered if m), reverse=True)
    for epoch in epochs:
        candidate = workdir / f"checkpoint{epoch}.pt"
        if is_whole_checkpoint(candidate):
            log.warning(
                "%s is cut off (its job was killed while fairseq copied it); resuming from %s", last, candidate.name
            )
            with atomic_path(last) as tmp:
                shutil.copyfile(candidate, tmp)
            return
    log.warning("%s is cut off and no whole epoch checkpoint is left: training from scratch", last)
    last.unlink()


def train(
    databin: str | Path,
    workdir: str | Path,
    best_out: str | Path,
    manifest_out: str | Path,
    keep_epochs: Iterable[int],
    options: Mapping[str, object],
    seed: int,
    source_lang: str,
    target_lang: str,
    threads: int = 1,
) -> None:
    """Train one fairseq model; export the best checkpoint, list the kept epoch ones.

    fairseq writes into ``workdir``; a resubmitted job resumes from its
    ``checkpoint_last.pt``. Epoch checkpoints not in ``keep_epochs`` are deleted as soon
    as they are written (a paper-scale run would otherwise keep 160 of them). Early
    stopping (``patience``) is not allowed before the last requested epoch, so that every
    requested checkpoint exists. At the end the best checkpoint is hard-linked (or copied)
    to ``best_out`` and ``manifest_out`` lists ``epoch<TAB>path`` of the kept epoch
    checkpoints, which :func:`export_checkpoint` exports one by one.
    """
    import torch

    allow_fairseq_checkpoint_classes()
    # Before the model's folder is touched: a bad option must not cost a trained model.
    check_fairseq_options(options)
    workdir = Path(workdir)
    keep = sorted(int(e) for e in keep_epochs)
    if keep and int(options.get("max-epoch") or 0) and int(options["max-epoch"]) < keep[-1]:
        raise ConfigError(
            "mt.train.fairseq.max-epoch",
            f"{options['max-epoch']} is below the last requested checkpoint epoch {keep[-1]}",
        )
    argv = [
        str(databin),
        "--source-lang",
        source_lang,
        "--target-lang",
        target_lang,
        "--seed",
        str(seed),
        *fairseq_argv(options),
    ]
    if not torch.cuda.is_available():
        argv.append("--cpu")
        torch.set_num_threads(threads)
    prepare_workdir(workdir, {"argv": argv, "keep_epochs": keep})
    argv += ["--save-dir", str(workdir)]

    _run_fairseq_train(argv, keep_epochs=set(keep), min_epoch=keep[-1] if keep else 0)

    best = workdir / "checkpoint_best.pt"
    if not best.exists():
        raise InputError(best, "fairseq finished without writing a best checkpoint")
    missing = [e for e in keep if not (workdir / f"checkpoint{e}.pt").exists()]
    if missing:
        raise InputError(workdir, f"epoch checkpoints {missing} were not written; expected every requested epoch")
    with atomic_open(manifest_out) as manifest:
        manifest.write("epoch\tpath\n")
        for epoch in keep:
            # As given: relative to the working directory when workdir is, so a moved
            # project still finds its checkpoints.
            manifest.write(f"{epoch}\t{workdir / f'checkpoint{epoch}.pt'}\n")
    _export(best, Path(best_out))
    (workdir / FINISHED_STAMP).touch()


def export_checkpoint(manifest: str | Path, epoch: int, destination: str | Path) -> None:
    """Export the checkpoint of ``epoch`` listed in a training manifest."""
    rows = dict(line.split("\t") for line in read_lines(manifest)[1:])
    if str(epoch) not in rows:
        raise InputError(manifest, f"no checkpoint for epoch {epoch}; it lists epochs {', '.join(rows)}")
    source = Path(rows[str(epoch)])
    if not source.exists():
        raise InputError(manifest, f"checkpoint {source} of epoch {epoch} no longer exists; retrain the model")
    _export(source, Path(destination))


def _export(source: Path, destination: Path) -> None:
    """Hard-link (same filesystem) or copy a checkpoint into place atomically."""
    with atomic_path(destination) as tmp:
        tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)


def _run_fairseq_train(argv: list[str], keep_epochs: set[int], min_epoch: int) -> None:
    from fairseq import checkpoint_utils, distributed_utils, options
    from fairseq.dataclass.utils import convert_namespace_to_omegaconf
    from fairseq_cli import train as fairseq_train

    parser = options.get_training_parser()
    args = options.parse_args_and_arch(parser, argv)
    cfg = convert_namespace_to_omegaconf(args)

    original_save = checkpoint_utils.save_checkpoint
    original_validate_and_save = fairseq_train.validate_and_save

    def save_and_prune(ckpt_cfg, trainer, epoch_itr, val_loss):
        result = original_save(ckpt_cfg, trainer, epoch_itr, val_loss)
        discard_previous(Path(ckpt_cfg.save_dir))
        epoch = epoch_itr.epoch
        path = Path(ckpt_cfg.save_dir) / f"checkpoint{epoch}.pt"
        if epoch not in keep_epochs and path.exists():
            path.unlink()
        return result

    def validate_save_not_too_early(cfg_, trainer, task, epoch_itr, valid_subsets, end_of_epoch):
        losses, should_stop = original_validate_and_save(cfg_, trainer, task, epoch_itr, valid_subsets, end_of_epoch)
        max_update = cfg_.optimization.max_update
        stopped_by_updates = max_update and trainer.get_num_updates() >= max_update
        if should_stop and epoch_itr.epoch < min_epoch and not stopped_by_updates:
            log.info("patience reached at epoch %d; continuing to epoch %d", epoch_itr.epoch, min_epoch)
            should_stop = False
        return losses, should_stop

    # fairseq keeps the best score as attributes of these functions; a second training in
    # the same process must not inherit the first one's.
    for function in (original_save, fairseq_train.should_stop_early):
        for attribute in ("best", "num_runs"):
            function.__dict__.pop(attribute, None)
    save_and_prune.__dict__ = original_save.__dict__
    checkpoint_utils.save_checkpoint = save_and_prune
    fairseq_train.validate_and_save = validate_save_not_too_early
    try:
        distributed_utils.call_main(cfg, fairseq_train.main)
    finally:
        checkpoint_utils.save_checkpoint = original_save
        fairseq_train.validate_and_save = original_validate_and_save


class Translator:
    """Beam-search translation with one fairseq checkpoint, in batches.

    Sentences go through the same Moses tokenisation and BPE as the training data; the
    output is the tokenised target (``tokenised``) and its detokenised form.
    """

    @classmethod
    def for_settings(
        cls,
        checkpoint: str | Path,
        databin: str | Path,
        bpe_codes: str | Path,
        source_lang: str,
        target_lang: str,
        settings,
        max_tokens: int = 4096,
        threads: int = 1,
    ) -> Translator:
        """A translator that decodes as ``settings`` say (a
        :class:`natcomp.mt.translation_cache.DecodeSettings`: beam and length limits)."""
        return cls(
            checkpoint,
            databin,
            bpe_codes,
            source_lang,
            target_lang,
            beam=settings.beam,
            max_len_a=settings.max_len_a,
            max_len_b=settings.max_len_b,
            max_tokens=max_tokens,
            threads=threads,
        )

    def __init__(
        self,
        checkpoint: str | Path,
        databin: str | Path,
        bpe_codes: str | Path,
        source_lang: str,
        target_lang: str,
        beam: int = 5,
        max_tokens: int = 4096,
        threads: int = 1,
        max_len_a: float = 1.2,
        max_len_b: int = 10,
    ):
        import torch
        from fairseq import checkpoint_utils, utils

        allow_fairseq_checkpoint_classes()
        self.source_lang, self.target_lang = source_lang, target_lang
        self.bpe = load_bpe(bpe_codes)
        use_cuda = torch.cuda.is_available()
        if not use_cuda:
            torch.set_num_threads(threads)
        models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(
            [str(checkpoint)], arg_overrides={"data": str(databin)}
        )
        for model in models:
            model.eval()
            if use_cuda:
                model.cuda()
        self.models, self.task, self.use_cuda = models, task, use_cuda
        self.max_tokens, self.beam = max_tokens, beam
        # Hypotheses end at max_len_a * source length + max_len_b tokens (fairseq's generator).
        gen_args = argparse.Namespace(beam=beam, max_len_a=max_len_a, max_len_b=max_len_b)
        self.generator = task.build_generator(models, gen_args)
        self.max_positions = utils.resolve_max_positions(task.max_positions(), *[m.max_positions() for m in models])

    def encode(self, sentence: str):
        bpe = self.bpe.process_line(tokenise(sentence, self.source_lang))
        return self.task.source_dictionary.encode_line(bpe, add_if_not_exist=False, append_eos=True).long()

    def translate_tokenised(self, sentences: Sequence[str], progress: Callable[[int], None] | None = None) -> list[str]:
        """Translate untokenised source sentences; return tokenised, BPE-free targets."""
        return [hyps[0] if hyps else "" for hyps in self._decode(sentences, 1, progress)]

    def translate(self, sentences: Sequence[str]) -> list[str]:
        """Translate untokenised source sentences into detokenised target sentences."""
        return [detokenise(t, self.target_lang) for t in self.translate_tokenised(sentences)]

    def translate_nbest(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        """The ``nbest`` best hypotheses of the beam for each sentence, best first, detokenised
        (the first is :meth:`translate`'s translation). ``nbest`` may not exceed the beam;
        fairseq's beam search finishes ``beam`` hypotheses per sentence."""
        if not 1 <= nbest <= self.beam:
            raise ValueError(f"nbest must be between 1 and the beam ({self.beam}), not {nbest}")
        return [[detokenise(h, self.target_lang) for h in hyps] for hyps in self._decode(sentences, nbest)]

    def _decode(
        self, sentences: Sequence[str], nbest: int, progress: Callable[[int], None] | None = None
    ) -> list[list[str]]:
        """The ``nbest`` best tokenised, BPE-free hypotheses of each sentence, in batches."""
        import torch
        from fairseq import utils

        tokens = [self.encode(s) for s in sentences]
        lengths = torch.LongTensor([t.numel() for t in tokens])
        dataset = self.task.build_dataset_for_inference(tokens, lengths)
        iterator = self.task.get_batch_iterator(
            dataset=dataset,
            max_tokens=self.max_tokens,
            max_positions=self.max_positions,
            ignore_invalid_inputs=False,
        ).next_epoch_itr(shuffle=False)
        results: list[list[str]] = [[] for _ in sentences]
        target_dict = self.task.target_dictionary
        with torch.inference_mode():
            for batch in iterator:
                if self.use_cuda:
                    batch = utils.move_to_cuda(batch)
                hypotheses = self.task.inference_step(self.generator, self.models, batch)
                for index, hyps in zip(batch["id"].tolist(), hypotheses):
                    # fairseq sorts each sentence's finished hypotheses by score, best first
                    results[index] = [remove_bpe(target_dict.string(h["tokens"].int().cpu())) for h in hyps[:nbest]]
                if progress:
                    progress(len(hypotheses))
        return results


def unique_in_order(items: Iterable[str]) -> list[str]:
    """Distinct items in first-seen order (translate each sentence once)."""
    return list(dict.fromkeys(items))

"""Hugging Face sequence-to-sequence (translation) models: loading, tiny models, training.

* :func:`load_seq2seq` loads a tokenizer and an ``AutoModelForSeq2SeqLM`` the way every
  other loader of :mod:`natcomp.hf.models` does (offline-safe, one-line ``ConfigError``).
* :func:`build_tiny_translation_model` makes a tiny, randomly initialised Marian or M2M100
  model with a SentencePiece tokenizer trained on the given texts, in exactly the files the
  family's real tokenizer class reads, so tests and the demo go through the real
  ``from_pretrained`` path without the Hub.
* :func:`train_translation_model` trains such a model on parallel text (a plain torch loop:
  AdamW, warm-up, label smoothing, length-sorted batches in a shuffled order).

Used by the MT family (``natcomp.mt.hf_translation``). See docs/design/hf.md.
"""

from __future__ import annotations

import io
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from natcomp.hf.models import _load, save_model, set_threads  # noqa: E402
from natcomp.hf.models import device as pick_device  # noqa: E402
from natcomp.hf.training import (  # noqa: E402
    pad_rows,
    train_in_length_sorted_batches,
    training_setting_problems,
)

logger = logging.getLogger(__name__)

#: ``family`` values of :func:`build_tiny_translation_model`.
TINY_TRANSLATION_FAMILIES = ("marian", "m2m100")

#: Position embeddings of the tiny models: as many as opus-mt's, so a decode limit of a few
#: hundred tokens never runs past them (Marian's sinusoidal table has a fixed size).
TINY_MAX_POSITIONS = 512

# Marian (opus-mt layout): "</s>" 0, "<unk>" 1, the pieces, "<pad>" last (the decoder
# starts from it). M2M100 (fairseq dictionary layout): "<s>" 0, "<pad>" 1, "</s>" 2,
# "<unk>" 3, the pieces; its tokenizer appends the language tokens "__xx__".
_MARIAN_HEAD = ("</s>", "<unk>")
_M2M100_HEAD = ("<s>", "<pad>", "</s>", "<unk>")


def load_seq2seq(name_or_path: str | os.PathLike, key: str = "model", dtype: str = "fp32"):
    """``(tokenizer, model)`` of a sequence-to-sequence model (``AutoTokenizer``,
    ``AutoModelForSeq2SeqLM``, its weights in ``dtype``), the model in eval mode; a missing model is a
    :class:`ConfigError` naming ``key`` (see :func:`natcomp.hf.models.check_model_available`)."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = _load(AutoTokenizer, "tokenizer", name_or_path, key)
    model = _load(AutoModelForSeq2SeqLM, "sequence-to-sequence model", name_or_path, key, dtype=dtype).eval()
    return tokenizer, model


# ---------------------------------------------------------------- tiny models


def _train_sentencepiece(texts: Sequence[str], vocab_size: int, model_type: str, seed: int, **options) -> bytes:
    """A SentencePiece model (serialized) trained on ``texts``; deterministic (one thread,
    fixed seed, every sentence used in input order). By default only the pieces are used:
    the special tokens live in the tokenizer's vocab.json, so SentencePiece keeps just
    ``<unk>``. ``options`` are further trainer options that replace these defaults (the
    ids and pieces of special tokens, ``byte_fallback``, ``add_dummy_prefix`` ...), for a
    model whose tokenizer class reads its special tokens from the SentencePiece model
    (:mod:`natcomp.hf.tiny_architectures`)."""
    import sentencepiece

    if not texts:
        raise ValueError("no texts to train the SentencePiece model on")
    sentencepiece.set_random_generator_seed(seed)
    model = io.BytesIO()
    settings = dict(
        model_type=model_type,
        vocab_size=vocab_size,
        hard_vocab_limit=False,  # a tiny corpus may have fewer pieces than asked for
        character_coverage=1.0,
        num_threads=1,
        input_sentence_size=0,
        shuffle_input_sentence=False,
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        minloglevel=2,
    )
    settings.update(options)
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=model, **settings)
    return model.getvalue()


def _pieces(spm_path: Path) -> list[str]:
    """The ordinary pieces of a SentencePiece model (no control or unknown pieces), in id order."""
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor(model_file=str(spm_path))
    return [
        processor.id_to_piece(index)
        for index in range(processor.get_piece_size())
        if not (processor.is_control(index) or processor.is_unknown(index))
    ]


def _marian_tokenizer(folder: Path, spm: bytes, max_length: int, source_code: str, target_code: str):
    from transformers import MarianTokenizer

    (folder / "source.spm").write_bytes(spm)
    (folder / "target.spm").write_bytes(spm)  # one joint model for both sides, as in many opus-mt models
    tokens = [*_MARIAN_HEAD, *_pieces(folder / "source.spm"), "<pad>"]
    (folder / "vocab.json").write_text(json.dumps({token: index for index, token in enumerate(tokens)}))
    return MarianTokenizer(
        source_spm=str(folder / "source.spm"),
        target_spm=str(folder / "target.spm"),
        vocab=str(folder / "vocab.json"),
        source_lang=source_code,
        target_lang=target_code,
        model_max_length=max_length,
    )


def _m2m100_tokenizer(folder: Path, spm: bytes, max_length: int, source_code: str, target_code: str):
    from transformers import M2M100Tokenizer

    (folder / "sentencepiece.bpe.model").write_bytes(spm)
    tokens = [*_M2M100_HEAD, *_pieces(folder / "sentencepiece.bpe.model")]
    (folder / "vocab.json").write_text(json.dumps({token: index for index, token in enumerate(tokens)}))
    tokenizer = M2M100Tokenizer(
        vocab_file=str(folder / "vocab.json"),
        spm_file=str(folder / "sentencepiece.bpe.model"),
        src_lang=source_code,
        tgt_lang=target_code,
        model_max_length=max_length,
    )
    return tokenizer


def _check_m2m100_languages(*codes: str) -> None:
    from transformers.models.m2m_100.tokenization_m2m_100 import FAIRSEQ_LANGUAGE_CODES

    for code in codes:
        if code not in FAIRSEQ_LANGUAGE_CODES["m2m100"]:
            raise ValueError(f"M2M100 has no language token for {code!r} (expected an ISO 639-1 code such as 'en')")


def _model_vocab_size(tokenizer) -> int:
    """Rows of the embedding matrix: every id the tokenizer can produce. M2M100's language
    ids follow its vocab.json, then room for its made-up words, as in the released models
    (128,004 pieces + 100 languages + 8 = 128,112)."""
    if hasattr(tokenizer, "lang_code_to_id"):
        return tokenizer.encoder_size + len(tokenizer.lang_code_to_id) + tokenizer.num_madeup_words
    return len(tokenizer)


def build_tiny_translation_model(
    directory: str | os.PathLike,
    source_texts: Sequence[str],
    target_texts: Sequence[str],
    *,
    family: str = "marian",
    source_code: str = "en",
    target_code: str = "nl",
    vocab_size: int = 1000,
    d_model: int = 64,
    layers: int = 2,
    heads: int = 4,
    ffn_dim: int = 256,
    seed: int = 0,
    max_length: int = 128,
    num_beams: int = 5,
    dropout: float = 0.1,
) -> Path:
    """Save a tiny, randomly initialised translation model with its real tokenizer to ``directory``.

    A joint SentencePiece model (unigram for Marian, BPE for M2M100, as the released models)
    of at most ``vocab_size`` pieces is trained on ``source_texts + target_texts``; the
    tokenizer files are those ``MarianTokenizer`` (``source.spm``, ``target.spm``,
    ``vocab.json``) or ``M2M100Tokenizer`` (``sentencepiece.bpe.model``, ``vocab.json``,
    plus its built-in language tokens ``__en__``, ``__nl__`` ...) reads. The model
    (``MarianMTModel`` / ``M2M100ForConditionalGeneration``: ``layers`` encoder and decoder
    layers, shared embeddings) is initialised from ``seed``; its generation config decodes
    with ``num_beams`` beams up to ``max_length`` tokens (M2M100: forced to start with the
    target language token). Saved atomically (:func:`natcomp.hf.models.save_model`) and
    loadable offline with ``AutoTokenizer`` / ``AutoModelForSeq2SeqLM``. Equal arguments
    give equal weights and tokenizer files. Returns ``directory``.
    """
    from transformers import GenerationConfig, set_seed

    if family not in TINY_TRANSLATION_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(TINY_TRANSLATION_FAMILIES)}, got {family!r}")
    if len(source_texts) != len(target_texts):
        raise ValueError(f"{len(source_texts)} source texts but {len(target_texts)} target texts")
    if max_length > TINY_MAX_POSITIONS:
        raise ValueError(f"max_length must be at most {TINY_MAX_POSITIONS}, got {max_length}")
    if family == "m2m100":
        _check_m2m100_languages(source_code, target_code)
    spm = _train_sentencepiece(
        [*source_texts, *target_texts], vocab_size, "unigram" if family == "marian" else "bpe", seed
    )
    with tempfile.TemporaryDirectory() as scratch:
        make_tokenizer = _marian_tokenizer if family == "marian" else _m2m100_tokenizer
        tokenizer = make_tokenizer(Path(scratch), spm, max_length, source_code, target_code)
        dimensions = dict(
            vocab_size=_model_vocab_size(tokenizer),
            d_model=d_model,
            encoder_layers=layers,
            decoder_layers=layers,
            encoder_attention_heads=heads,
            decoder_attention_heads=heads,
            encoder_ffn_dim=ffn_dim,
            decoder_ffn_dim=ffn_dim,
            max_position_embeddings=TINY_MAX_POSITIONS,
            dropout=dropout,
            scale_embedding=True,
        )
        if family == "marian":
            from transformers import MarianConfig, MarianMTModel

            pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
            config = MarianConfig(
                **dimensions,
                pad_token_id=pad,
                eos_token_id=eos,
                decoder_start_token_id=pad,
                forced_eos_token_id=eos,
                share_encoder_decoder_embeddings=True,
            )
            generation = GenerationConfig(
                num_beams=num_beams,
                max_length=max_length,
                pad_token_id=pad,
                eos_token_id=eos,
                decoder_start_token_id=pad,
                forced_eos_token_id=eos,
                bad_words_ids=[[pad]],  # as opus-mt: the decoder never writes padding
            )
            model_class = MarianMTModel
        else:
            from transformers import M2M100Config, M2M100ForConditionalGeneration

            pad, eos, bos = tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.bos_token_id
            config = M2M100Config(
                **dimensions,
                pad_token_id=pad,
                eos_token_id=eos,
                bos_token_id=bos,
                decoder_start_token_id=eos,  # fairseq's convention: the decoder starts from </s>
            )
            generation = GenerationConfig(
                num_beams=num_beams,
                max_length=max_length,
                pad_token_id=pad,
                eos_token_id=eos,
                bos_token_id=bos,
                decoder_start_token_id=eos,
                forced_bos_token_id=tokenizer.get_lang_id(target_code),
            )
            model_class = M2M100ForConditionalGeneration
        set_seed(seed)
        model = model_class(config).eval()
        model.generation_config = generation
        return save_model(model, tokenizer, directory)


# ---------------------------------------------------------------- training

SEQ2SEQ_SCHEDULES = ("inverse_sqrt", "linear")


@dataclass(frozen=True)
class Seq2SeqTrainingSettings:
    """How :func:`train_translation_model` trains.

    The learning rate warms up linearly over ``warmup_steps`` optimiser steps, then decays
    as the inverse square root of the step (``"inverse_sqrt"``, fairseq's schedule for
    Transformers) or linearly to 0 at the last step (``"linear"``). ``batch_size`` counts
    sentence pairs; ``max_length`` truncates both sides (tokens); ``threads`` is torch's CPU
    thread count; ``label_smoothing`` is the cross-entropy's (0.1 in fairseq recipes).
    """

    epochs: int
    batch_size: int
    learning_rate: float
    warmup_steps: int = 100
    label_smoothing: float = 0.1
    seed: int = 0
    max_length: int = 128
    threads: int = 1
    schedule: str = "inverse_sqrt"
    weight_decay: float = 0.0
    gradient_clip: float | None = None
    device: str = "auto"

    def __post_init__(self):
        problems = training_setting_problems(self)
        if self.warmup_steps < 0:
            problems.append(f"warmup_steps must not be negative, got {self.warmup_steps}")
        if not 0 <= self.label_smoothing < 1:
            problems.append(f"label_smoothing must lie in [0, 1), got {self.label_smoothing}")
        if self.threads < 1:
            problems.append(f"threads must be at least 1, got {self.threads}")
        if self.schedule not in SEQ2SEQ_SCHEDULES:
            problems.append(f"schedule must be one of {', '.join(SEQ2SEQ_SCHEDULES)}, got {self.schedule!r}")
        if problems:
            raise ValueError("; ".join(problems))


def _set_languages(tokenizer, source_code: str | None, target_code: str | None) -> None:
    """Point a multilingual tokenizer (M2M100, NLLB: ``src_lang``/``tgt_lang``) at the pair."""
    if source_code is not None and hasattr(tokenizer, "src_lang"):
        tokenizer.src_lang = source_code
    if target_code is not None and hasattr(tokenizer, "tgt_lang"):
        tokenizer.tgt_lang = target_code


def train_translation_model(
    directory: str | os.PathLike,
    source_texts: Sequence[str],
    target_texts: Sequence[str],
    settings: Seq2SeqTrainingSettings,
    output_directory: str | os.PathLike,
    *,
    source_code: str | None = None,
    target_code: str | None = None,
    key: str = "model",
    log: logging.Logger | None = None,
) -> dict:
    """Train the sequence-to-sequence model saved in ``directory`` on parallel texts and save
    the result (model and tokenizer) to ``output_directory`` atomically.

    Both sides are tokenized once (M2M100/NLLB: with ``source_code``/``target_code`` as the
    tokenizer's ``src_lang``/``tgt_lang``, default the saved ones); pairs are cut into
    batches of similar source length, and every epoch visits the batches in a fresh seeded
    random order. AdamW with the settings' warm-up and schedule; the loss is the
    label-smoothed cross-entropy per target token. Seeded (``transformers.set_seed``), so
    equal inputs give equal weights on the same hardware and thread count.

    Returns ``{"train_loss": mean loss of the last epoch, "epoch_losses": [...],
    "seconds": wall time of training, "sentences": pairs trained on, "steps": optimiser
    steps, "device": where it ran}``.
    """
    log = log or logger
    if len(source_texts) != len(target_texts):
        raise ValueError(f"{len(source_texts)} source texts but {len(target_texts)} target texts")
    if not source_texts:
        raise ValueError("no sentence pairs to train on")
    run_device = pick_device(settings.device)
    if run_device.type == "cpu":
        set_threads(settings.threads)
    tokenizer, model = load_seq2seq(directory, key)
    _set_languages(tokenizer, source_code, target_code)
    encoded = tokenizer(
        list(source_texts), text_target=list(target_texts), truncation=True, max_length=settings.max_length
    )
    sources, targets = encoded["input_ids"], encoded["labels"]
    pad = model.config.pad_token_id

    def batch_loss(indices: list[int]) -> tuple[torch.Tensor, int]:
        input_ids = pad_rows([sources[index] for index in indices], pad).to(run_device)
        labels = pad_rows([targets[index] for index in indices], -100).to(run_device)
        # The model shifts the labels right (decoder_start_token_id first) to make its inputs.
        logits = model(input_ids=input_ids, attention_mask=(input_ids != pad).long(), labels=labels).logits
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.size(-1)),
            labels.reshape(-1),
            ignore_index=-100,
            label_smoothing=settings.label_smoothing,
        )
        return loss, int((labels != -100).sum())

    model.to(run_device)
    epoch_losses, total_steps, seconds = train_in_length_sorted_batches(
        model, [len(row) for row in sources], settings, settings.warmup_steps, settings.schedule, batch_loss, log
    )
    save_model(model, tokenizer, output_directory)
    return {
        "train_loss": epoch_losses[-1],
        "epoch_losses": epoch_losses,
        "seconds": seconds,
        "sentences": len(source_texts),
        "steps": total_steps,
        "device": str(run_device),
    }

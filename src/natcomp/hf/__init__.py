"""Hugging Face models for natcomp: finding and loading them offline-safely, devices,
length-sorted batched inference, fine-tuning, atomic saving and tiny test models.

Used by the NonCompSST, PLANE, PSS and TRE families; sequence-to-sequence translation
models (:mod:`natcomp.hf.seq2seq`) by the MT family. The modules: ``models`` (devices,
finding, checking and loading models, tiny models), ``inference``, ``embedding`` (text files
embedded by an encoder named in config: PSS and TRE), ``training``,
``seq2seq``, ``causal`` (decoder-only language models) and ``torchaudio_guard``; this package re-exports their API. See docs/hf.md.
"""

from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from natcomp.hf.causal import (  # noqa: E402
    CAUSAL_DECODINGS,
    CAUSAL_PRECISIONS,
    TINY_CAUSAL_KINDS,
    build_tiny_causal_lm,
    causal_lm_problem,
    has_chat_template,
    load_causal_lm,
)
from natcomp.hf.embedding import (  # noqa: E402
    EncoderSpec,
    build_tiny_encoder,
    embed_text_files,
    embed_text_sets,
    embed_texts,
    read_text_columns,
)
from natcomp.hf.inference import (  # noqa: E402
    POOLINGS,
    TextInput,
    classify,
    encode,
    length_sorted_batches,
    masked_token_probabilities,
    model_device,
    predict_logits,
    single_token_id,
    tokenize,
)
from natcomp.hf.models import (  # noqa: E402
    SHIPPED_MODELS,
    SPECIAL_TOKENS,
    TINY_MODEL_KINDS,
    build_tiny_model,
    check_model_available,
    device,
    hub_offline,
    load_encoder,
    load_masked_lm,
    load_sequence_classifier,
    load_tokenizer,
    resolve_model,
    save_model,
    set_threads,
    offline_model_routes,
    shipped_model_ids,
    shipped_model_path,
    words_for_vocabulary,
)
from natcomp.hf.seq2seq import (  # noqa: E402
    SEQ2SEQ_SCHEDULES,
    TINY_TRANSLATION_FAMILIES,
    Seq2SeqTrainingSettings,
    build_tiny_translation_model,
    load_seq2seq,
    train_translation_model,
)
from natcomp.hf.training import (  # noqa: E402
    SCHEDULERS,
    FineTuneResult,
    FineTuneSettings,
    accuracy,
    fine_tune_classifier,
)

__all__ = [
    "CAUSAL_DECODINGS",
    "CAUSAL_PRECISIONS",
    "TINY_CAUSAL_KINDS",
    "build_tiny_causal_lm",
    "causal_lm_problem",
    "has_chat_template",
    "load_causal_lm",
    "EncoderSpec",
    "build_tiny_encoder",
    "embed_text_files",
    "embed_text_sets",
    "embed_texts",
    "read_text_columns",
    "POOLINGS",
    "SCHEDULERS",
    "SEQ2SEQ_SCHEDULES",
    "SHIPPED_MODELS",
    "SPECIAL_TOKENS",
    "TINY_MODEL_KINDS",
    "TINY_TRANSLATION_FAMILIES",
    "FineTuneResult",
    "FineTuneSettings",
    "Seq2SeqTrainingSettings",
    "TextInput",
    "accuracy",
    "build_tiny_model",
    "build_tiny_translation_model",
    "check_model_available",
    "classify",
    "device",
    "encode",
    "fine_tune_classifier",
    "hub_offline",
    "length_sorted_batches",
    "load_encoder",
    "load_masked_lm",
    "load_seq2seq",
    "load_sequence_classifier",
    "load_tokenizer",
    "masked_token_probabilities",
    "model_device",
    "predict_logits",
    "resolve_model",
    "save_model",
    "set_threads",
    "offline_model_routes",
    "shipped_model_ids",
    "shipped_model_path",
    "single_token_id",
    "tokenize",
    "train_translation_model",
    "words_for_vocabulary",
]

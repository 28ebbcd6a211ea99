"""Hugging Face models for natcomp: finding and loading them offline-safely, devices,
length-sorted batched inference, fine-tuning, atomic saving and tiny test models.

Used by the NonCompSST, PLANE, PSS and TRE families; sequence-to-sequence translation
models (:mod:`natcomp.hf.seq2seq`) by the MT family. The modules: ``models`` (devices,
finding, checking and loading models, tiny models), ``inference``, ``embedding`` (text files
embedded by an encoder named in config: PSS and TRE), ``training``,
``seq2seq``, ``causal`` (decoder-only language models), ``causal_training``, ``kinds``,
``precision`` (the dtype of inference and training), ``placement`` (a model too large
for one GPU spread over the job's GPUs), ``tiny_architectures`` (tiny offline
models of released architectures) and ``torchaudio_guard``; this package re-exports their
API, each name imported from its module on first use (so that ``import natcomp.hf.kinds``,
or a plan that needs no model, does not load torch and transformers). See docs/design/hf.md.
"""

from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio
from natcomp.lazy import lazy_exports

hide_mismatched_torchaudio()  # before anything imports a transformers model class

#: public name -> the module of natcomp.hf that defines it ("module:name" where it is exported under another name)
_MODULE_OF = {
    "CAUSAL_DECODINGS": "causal",
    "CAUSAL_PRECISIONS": "causal",
    "CausalGenerator": "causal",
    "Generation": "causal",
    "GenerationSettings": "causal",
    "ItemTokenLimit": "causal",
    "TINY_CAUSAL_KINDS": "causal",
    "build_tiny_causal_lm": "causal",
    "causal_lm_problem": "causal",
    "has_chat_template": "causal",
    "load_causal_lm": "causal",
    "CAUSAL_SCHEDULES": "causal_training",
    "CausalTrainingSettings": "causal_training",
    "train_causal_lm": "causal_training",
    "EncoderSpec": "embedding",
    "build_tiny_encoder": "embedding",
    "embed_text_files": "embedding",
    "embed_text_sets": "embedding",
    "embed_texts": "embedding",
    "read_text_columns": "embedding",
    "POOLINGS": "inference",
    "TextInput": "inference",
    "added_token_mask": "inference",
    "check_pooling": "inference",
    "classify": "inference",
    "encode": "inference",
    "hidden_states": "inference",
    "last_token_indices": "inference",
    "length_sorted_batches": "inference",
    "masked_token_probabilities": "inference",
    "mean_pooling_mask": "inference",
    "model_device": "inference",
    "model_inputs": "inference",
    "model_max_positions": "inference",
    "padding_position_ids": "inference",
    "pool_states": "inference",
    "predict_logits": "inference",
    "single_token_id": "inference",
    "token_counts": "inference",
    "tokenize": "inference",
    "is_decoder_only": "kinds",
    "SHIPPED_MODELS": "models",
    "SPECIAL_TOKENS": "models",
    "TINY_MODEL_KINDS": "models",
    "build_tiny_model": "models",
    "check_model_available": "models",
    "device": "models",
    "ensure_pad_token": "models",
    "hub_offline": "models",
    "load_config": "models",
    "load_encoder": "models",
    "load_masked_lm": "models",
    "load_sequence_classifier": "models",
    "load_tokenizer": "models",
    "offline_model_routes": "models",
    "resolve_model": "models",
    "run_dtype": "models",
    "save_model": "models",
    "set_threads": "models",
    "shipped_model_ids": "models",
    "shipped_model_path": "models",
    "training_load_dtype": "models",
    "words_for_vocabulary": "models",
    "is_placed": "placement",
    "load_placement": "placement",
    "placement": "placement",
    "DTYPES": "precision",
    "SEQ2SEQ_SCHEDULES": "seq2seq",
    "Seq2SeqTrainingSettings": "seq2seq",
    "TINY_TRANSLATION_FAMILIES": "seq2seq",
    "build_tiny_translation_model": "seq2seq",
    "load_seq2seq": "seq2seq",
    "train_translation_model": "seq2seq",
    "TINY_ARCHITECTURES": "tiny_architectures:ARCHITECTURES",
    "build_tiny": "tiny_architectures",
    "FineTuneResult": "training",
    "FineTuneSettings": "training",
    "SCHEDULERS": "training",
    "accuracy": "training",
    "fine_tune_classifier": "training",
    "trained_state": "training",
}

__all__ = sorted(_MODULE_OF)
__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)

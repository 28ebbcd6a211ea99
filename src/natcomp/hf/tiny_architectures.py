"""Tiny offline models of the architectures researchers evaluate (issue 41).

:data:`ARCHITECTURES` names one entry per architecture (:class:`Architecture`): its kind
(``decoder``, ``encoder`` or ``translation``), the transformers config and model classes
with the settings of a tiny size (2 layers, hidden size 32, 4 heads) and the conventions of
its release (sliding windows, logit soft-capping, grouped-query attention, tied or untied
embeddings, an embedding matrix padded past the tokenizer), the dtype it is released in,
and its tokenizer: the kind (byte-level BPE, WordPiece, SentencePiece BPE or unigram), the
transformers class the release names (GPT-2: the generic fast class natcomp's GPT-2
builder saves), its special tokens, what it puts before and after a text (BOS, CLS, a
language code; EOS, SEP) and its chat template.

:func:`build_tiny` trains that tokenizer on the given texts (the ``tokenizers`` library
for byte-level BPE, SentencePiece for SentencePiece releases, a whole-word vocabulary for
WordPiece), builds the model from its config with seeded random weights, casts it to the
released dtype and saves both with :func:`natcomp.hf.models.save_model`, loadable offline
through ``from_pretrained``. GPT-2, BERT, Marian and M2M100 are built by natcomp's own
builders (:func:`~natcomp.hf.causal.build_tiny_causal_lm`,
:func:`~natcomp.hf.models.build_tiny_model`,
:func:`~natcomp.hf.seq2seq.build_tiny_translation_model`), the others here. Each build
takes a fraction of a second on a CPU. See docs/design/hf.md, "Tiny models of real architectures".
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from natcomp.hf.torchaudio_guard import hide_mismatched_torchaudio

hide_mismatched_torchaudio()  # before anything imports a transformers model class

from natcomp.hf.causal import build_tiny_causal_lm, train_byte_level_bpe  # noqa: E402
from natcomp.hf.models import SPECIAL_TOKENS, build_tiny_model, save_model, words_for_vocabulary  # noqa: E402
from natcomp.hf.seq2seq import _train_sentencepiece, build_tiny_translation_model  # noqa: E402

__all__ = [
    "ARCHITECTURES",
    "ARCHITECTURE_KINDS",
    "BUILDERS",
    "SAVED_DTYPES",
    "POSITIONS",
    "REAL_SHAPES",
    "TOKENIZER_KINDS",
    "Architecture",
    "build_tiny",
    "real_shape_model",
]

#: ``kind`` values of :class:`Architecture`.
ARCHITECTURE_KINDS = ("decoder", "encoder", "translation")
#: ``tokenizer`` values of :class:`Architecture`.
TOKENIZER_KINDS = ("byte_bpe", "wordpiece", "spm_bpe", "spm_unigram")

#: ``dtype`` values of :class:`Architecture` (as ``config.json`` writes them).
SAVED_DTYPES = ("float32", "float16", "bfloat16")
#: ``builder`` values of :class:`Architecture`: natcomp's own builders, or the registry's.
BUILDERS = ("registry", "gpt2", "bert", "marian", "m2m100")

#: The size of every tiny model: positions (the tokenizers' ``model_max_length``), hidden
#: size, layers (of the encoder and of the decoder), attention heads, feed-forward width.
POSITIONS, HIDDEN, LAYERS, HEADS, FFN = 256, 32, 2, 4, 64

_DECODER = dict(hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS, num_attention_heads=HEADS)
_ENCODER = _DECODER
_SEQ2SEQ = dict(
    d_model=HIDDEN,
    encoder_layers=LAYERS,
    decoder_layers=LAYERS,
    encoder_attention_heads=HEADS,
    decoder_attention_heads=HEADS,
    encoder_ffn_dim=FFN,
    decoder_ffn_dim=FFN,
    max_position_embeddings=POSITIONS,
)
_T5 = dict(
    d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=FFN, num_layers=LAYERS, num_decoder_layers=LAYERS, num_heads=HEADS
)

# GPT-4's (cl100k) pre-tokenizing split, which Llama 3 and OLMo 2 use before byte-level BPE.
_CL100K_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)

#: The chat templates of the instruct releases, in their formats (header tokens, turn ends).
LLAMA3_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)
QWEN_CHAT_TEMPLATE = (
    "{% if messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}"
    "{% endif %}"
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
PHI3_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + '<|end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)

_LLAMA3_SPECIALS = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|reserved_special_token_2|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
)
_QWEN_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
_PHI3_SPECIALS = (
    "<|endoftext|>",
    "<|assistant|>",
    "<|placeholder1|>",
    "<|placeholder2|>",
    "<|placeholder3|>",
    "<|placeholder4|>",
    "<|system|>",
    "<|end|>",
    "<|placeholder5|>",
    "<|placeholder6|>",
    "<|user|>",
)
_FALCON_SPECIALS = (
    ">>TITLE<<",
    ">>ABSTRACT<<",
    ">>INTRODUCTION<<",
    ">>SUMMARY<<",
    ">>COMMENT<<",
    ">>ANSWER<<",
    ">>QUESTION<<",
    ">>DOMAIN<<",
    ">>PREFIX<<",
    ">>SUFFIX<<",
    ">>MIDDLE<<",
    "<|endoftext|>",
)
# SentencePiece models whose special tokens live in the model (Llama 2 / Mistral layout).
_LLAMA_SPM = dict(unk_id=0, bos_id=1, eos_id=2, pad_id=-1, byte_fallback=True, split_digits=True)
_FAIRSEQ_SPM = dict(unk_id=0, bos_id=1, eos_id=2, pad_id=-1)
_T5_SPM = dict(pad_id=0, eos_id=1, unk_id=2, bos_id=-1)


@dataclass(frozen=True)
class Architecture:
    """One released architecture, as :func:`build_tiny` makes a tiny model of it.

    ``config`` holds the tiny sizes and the release's conventions (no vocabulary size and
    no token ids: those come from the tokenizer, ``token_ids`` naming the token of each id
    field, a tuple for a list of ids); ``pad_vocab_to`` rounds the embedding matrix up to
    a multiple, as releases whose matrix has rows past the tokenizer's last id do.
    ``special_tokens`` are the tokenizer's (``None``: it has none of that role, e.g. no
    pad token); ``first_token``/``last_token`` are what the tokenizer puts before/after a
    text (``None``: nothing). ``head`` are tokens with the first ids of the vocabulary,
    ``tail`` special tokens after the trained vocabulary (Llama 3's ``<|begin_of_text|>``
    ...). ``tokenizer_class`` is the class ``tokenizer_config.json`` names
    (``PreTrainedTokenizerFast`` is saved as transformers 5's ``TokenizersBackend``), made
    with ``tokenizer_options``; ``spm_options`` are the SentencePiece trainer's (the ids
    and pieces of the special tokens, byte fallback), ``pretokenize`` the regular
    expression a byte-level BPE splits on before the bytes (else GPT-2's), and
    ``language_codes`` the transformers module whose ``FAIRSEQ_LANGUAGE_CODES`` the
    release's tokenizer config lists. ``vocab_size`` is the most tokens trained (a tiny
    corpus gives fewer). ``id2label`` makes a sequence classifier (an NLI model).
    ``forced_bos`` is the target-language token a multilingual translation model's
    generation config forces first. ``builder`` names natcomp's own builder where one
    exists (``gpt2``, ``bert``, ``marian``, ``m2m100``), else ``registry``.
    """

    name: str
    kind: str
    released_as: str
    config_class: str
    model_class: str
    dtype: str
    tokenizer: str
    tokenizer_class: str
    special_tokens: Mapping[str, str | None]
    first_token: str | None
    last_token: str | None
    config: Mapping[str, object] = field(default_factory=dict)
    token_ids: Mapping[str, str | tuple[str, ...] | None] = field(default_factory=dict)
    generation: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    chat_template: str | None = None
    forced_bos: str | None = None
    head: tuple[str, ...] = ()
    tail: tuple[str, ...] = ()
    tokenizer_options: Mapping[str, object] = field(default_factory=dict)
    spm_options: Mapping[str, object] = field(default_factory=dict)
    pretokenize: str | None = None
    language_codes: str | None = None
    vocab_size: int = 400
    pad_vocab_to: int = 1
    id2label: Mapping[int, str] | None = None
    builder: str = "registry"

    def __post_init__(self):
        if self.kind not in ARCHITECTURE_KINDS:
            raise ValueError(f"{self.name}: kind must be one of {', '.join(ARCHITECTURE_KINDS)}, got {self.kind!r}")
        if self.tokenizer not in TOKENIZER_KINDS:
            raise ValueError(f"{self.name}: tokenizer must be one of {', '.join(TOKENIZER_KINDS)}")
        if self.dtype not in SAVED_DTYPES:
            raise ValueError(f"{self.name}: dtype must be one of {', '.join(SAVED_DTYPES)}, got {self.dtype!r}")
        if self.builder not in BUILDERS:
            raise ValueError(f"{self.name}: builder must be one of {', '.join(BUILDERS)}, got {self.builder!r}")
        if self.builder != "registry" and self.dtype != "float32":
            raise ValueError(f"{self.name}: natcomp's own builders save float32 models, not {self.dtype}")

    @property
    def adds_bos(self) -> bool:
        """Whether the tokenizer puts its BOS (an encoder: its CLS) token before a text."""
        return self.first_token is not None and self.first_token in (
            self.special_tokens.get("bos"),
            self.special_tokens.get("cls"),
        )

    @property
    def nli(self) -> bool:
        """Whether this is an NLI classifier (labels entailment, neutral, contradiction)."""
        return self.id2label is not None


def _decoder(name: str, **fields) -> Architecture:
    return Architecture(name=name, kind="decoder", **fields)


def _encoder(name: str, **fields) -> Architecture:
    return Architecture(name=name, kind="encoder", **fields)


def _translation(name: str, **fields) -> Architecture:
    return Architecture(name=name, kind="translation", **fields)


_LLAMA3 = dict(
    released_as="meta-llama/Llama-3.1-8B",
    config_class="LlamaConfig",
    model_class="LlamaForCausalLM",
    dtype="bfloat16",
    tokenizer="byte_bpe",
    tokenizer_class="PreTrainedTokenizerFast",
    special_tokens=dict(bos="<|begin_of_text|>", eos="<|end_of_text|>", unk=None, pad=None),
    first_token="<|begin_of_text|>",
    last_token=None,
    config=dict(
        _DECODER,
        num_key_value_heads=2,
        max_position_embeddings=POSITIONS,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        rope_parameters=dict(
            rope_type="llama3",
            rope_theta=500000.0,
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=64,
        ),
    ),
    token_ids=dict(bos_token_id="<|begin_of_text|>", eos_token_id="<|end_of_text|>"),
    tail=_LLAMA3_SPECIALS,
    pretokenize=_CL100K_SPLIT,
)
_QWEN = dict(
    released_as="Qwen/Qwen2.5-0.5B",
    config_class="Qwen2Config",
    model_class="Qwen2ForCausalLM",
    dtype="bfloat16",
    tokenizer="byte_bpe",
    tokenizer_class="Qwen2Tokenizer",
    special_tokens=dict(bos=None, eos="<|endoftext|>", unk=None, pad="<|endoftext|>"),
    first_token=None,
    last_token=None,
    config=dict(
        _DECODER,
        num_key_value_heads=2,
        max_position_embeddings=POSITIONS,
        rms_norm_eps=1e-6,
        rope_theta=1000000.0,
        use_sliding_window=False,
        sliding_window=POSITIONS,
        max_window_layers=2,
        tie_word_embeddings=True,
    ),
    token_ids=dict(bos_token_id="<|endoftext|>", eos_token_id="<|endoftext|>"),
    chat_template=QWEN_CHAT_TEMPLATE,  # the base release has one too
    tail=_QWEN_SPECIALS,
    pad_vocab_to=128,
)

#: Every architecture :func:`build_tiny` makes, by name.
ARCHITECTURES: Mapping[str, Architecture] = {
    spec.name: spec
    for spec in (
        # ------------------------------------------------------------ decoder-only
        _decoder("llama3", **_LLAMA3),
        _decoder(
            "llama3-instruct",
            **{
                **_LLAMA3,
                "released_as": "meta-llama/Llama-3.1-8B-Instruct",
                "special_tokens": dict(bos="<|begin_of_text|>", eos="<|eot_id|>", unk=None, pad=None),
                "token_ids": dict(
                    bos_token_id="<|begin_of_text|>", eos_token_id=("<|end_of_text|>", "<|eom_id|>", "<|eot_id|>")
                ),
                "chat_template": LLAMA3_CHAT_TEMPLATE,
            },
        ),
        _decoder(
            "mistral",
            released_as="mistralai/Mistral-7B-v0.1",
            config_class="MistralConfig",
            model_class="MistralForCausalLM",
            dtype="bfloat16",
            tokenizer="spm_bpe",
            tokenizer_class="LlamaTokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", unk="<unk>", pad=None),
            first_token="<s>",
            last_token=None,
            config=dict(
                _DECODER,
                num_key_value_heads=2,
                max_position_embeddings=POSITIONS,
                sliding_window=16,  # the release's 4096 of its 32768 positions; here shorter than a long text
                rms_norm_eps=1e-5,
                rope_theta=10000.0,
                tie_word_embeddings=False,
            ),
            token_ids=dict(bos_token_id="<s>", eos_token_id="</s>"),
            tokenizer_options=dict(add_bos_token=True, add_eos_token=False, legacy=True),
            spm_options=_LLAMA_SPM,
            vocab_size=700,  # 259 of them bytes and specials
        ),
        _decoder("qwen2.5", **_QWEN),
        _decoder(
            "qwen2.5-instruct",
            **{
                **_QWEN,
                "released_as": "Qwen/Qwen2.5-0.5B-Instruct",
                "special_tokens": dict(bos=None, eos="<|im_end|>", unk=None, pad="<|endoftext|>"),
                "token_ids": dict(bos_token_id="<|endoftext|>", eos_token_id="<|im_end|>"),
                "generation": dict(
                    bos_token_id="<|endoftext|>",
                    eos_token_id=("<|im_end|>", "<|endoftext|>"),
                    pad_token_id="<|endoftext|>",
                ),
            },
        ),
        _decoder(
            "gemma2",
            released_as="google/gemma-2-2b",
            config_class="Gemma2Config",
            model_class="Gemma2ForCausalLM",
            dtype="bfloat16",
            tokenizer="spm_bpe",
            tokenizer_class="GemmaTokenizer",
            special_tokens=dict(bos="<bos>", eos="<eos>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="<bos>",
            last_token=None,
            config=dict(
                _DECODER,
                num_key_value_heads=2,
                head_dim=8,
                query_pre_attn_scalar=8,
                max_position_embeddings=POSITIONS,
                sliding_window=16,
                attn_logit_softcapping=50.0,
                final_logit_softcapping=30.0,
                hidden_activation="gelu_pytorch_tanh",
                tie_word_embeddings=True,
            ),
            token_ids=dict(pad_token_id="<pad>", eos_token_id="<eos>", bos_token_id="<bos>"),
            tokenizer_options=dict(add_bos_token=True, add_eos_token=False),
            spm_options=dict(
                pad_id=0,
                pad_piece="<pad>",
                eos_id=1,
                eos_piece="<eos>",
                bos_id=2,
                bos_piece="<bos>",
                unk_id=3,
                unk_piece="<unk>",
                user_defined_symbols=["<mask>", "<start_of_turn>", "<end_of_turn>"],
                byte_fallback=True,
                split_digits=True,
                add_dummy_prefix=False,
            ),
            vocab_size=700,
        ),
        _decoder(
            "phi3",
            released_as="microsoft/Phi-3-mini-4k-instruct",
            config_class="Phi3Config",
            model_class="Phi3ForCausalLM",
            dtype="bfloat16",
            tokenizer="spm_bpe",
            tokenizer_class="LlamaTokenizer",
            special_tokens=dict(bos="<s>", eos="<|endoftext|>", unk="<unk>", pad="<|endoftext|>"),
            first_token=None,
            last_token=None,
            config=dict(
                _DECODER,
                num_key_value_heads=4,
                max_position_embeddings=POSITIONS,
                original_max_position_embeddings=POSITIONS,
                sliding_window=POSITIONS - 1,
                rms_norm_eps=1e-5,
                rope_theta=10000.0,
                tie_word_embeddings=False,
            ),
            token_ids=dict(bos_token_id="<s>", eos_token_id="<|endoftext|>", pad_token_id="<|endoftext|>"),
            generation=dict(
                bos_token_id="<s>",
                eos_token_id=("<|endoftext|>", "<|assistant|>", "<|end|>"),
                pad_token_id="<|endoftext|>",
            ),
            chat_template=PHI3_CHAT_TEMPLATE,
            tail=_PHI3_SPECIALS,
            tokenizer_options=dict(add_bos_token=False, add_eos_token=False, legacy=False, padding_side="left"),
            spm_options=_LLAMA_SPM,
            vocab_size=700,
            pad_vocab_to=64,
        ),
        _decoder(
            "olmo2",
            released_as="allenai/OLMo-2-1124-7B",
            config_class="Olmo2Config",
            model_class="Olmo2ForCausalLM",
            dtype="float32",
            tokenizer="byte_bpe",
            tokenizer_class="PreTrainedTokenizerFast",
            special_tokens=dict(bos="<|endoftext|>", eos="<|endoftext|>", unk="<|endoftext|>", pad="<|pad|>"),
            first_token=None,
            last_token=None,
            config=dict(
                _DECODER,
                num_key_value_heads=4,
                max_position_embeddings=POSITIONS,
                rms_norm_eps=1e-6,
                rope_theta=500000.0,
                tie_word_embeddings=False,
            ),
            token_ids=dict(bos_token_id=None, eos_token_id="<|endoftext|>", pad_token_id="<|pad|>"),
            tail=("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|pad|>"),
            pretokenize=_CL100K_SPLIT,
            pad_vocab_to=128,
        ),
        _decoder(
            "pythia",
            released_as="EleutherAI/pythia-160m",
            config_class="GPTNeoXConfig",
            model_class="GPTNeoXForCausalLM",
            dtype="float16",
            tokenizer="byte_bpe",
            tokenizer_class="GPTNeoXTokenizer",
            special_tokens=dict(bos="<|endoftext|>", eos="<|endoftext|>", unk="<|endoftext|>", pad=None),
            first_token=None,
            last_token=None,
            config=dict(
                hidden_size=HIDDEN,
                intermediate_size=4 * HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                max_position_embeddings=POSITIONS,
                rotary_pct=0.25,
                rotary_emb_base=10000,
                use_parallel_residual=True,
                tie_word_embeddings=False,
            ),
            token_ids=dict(bos_token_id="<|endoftext|>", eos_token_id="<|endoftext|>"),
            head=("<|endoftext|>", "<|padding|>"),
            pad_vocab_to=128,
        ),
        _decoder(
            "opt",
            released_as="facebook/opt-125m",
            config_class="OPTConfig",
            model_class="OPTForCausalLM",
            dtype="float16",
            tokenizer="byte_bpe",
            tokenizer_class="GPT2Tokenizer",
            special_tokens=dict(bos="</s>", eos="</s>", unk="</s>", pad="<pad>"),
            first_token="</s>",
            last_token=None,
            config=dict(
                hidden_size=HIDDEN,
                ffn_dim=4 * HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                max_position_embeddings=POSITIONS,
                word_embed_proj_dim=HIDDEN,
                do_layer_norm_before=True,
                tie_word_embeddings=True,
            ),
            token_ids=dict(bos_token_id="</s>", eos_token_id="</s>", pad_token_id="<pad>"),
            head=("<s>", "<pad>", "</s>", "<unk>"),
            tokenizer_options=dict(add_bos_token=True),
            pad_vocab_to=8,
        ),
        _decoder(
            "falcon",
            released_as="tiiuae/falcon-7b",
            config_class="FalconConfig",
            model_class="FalconForCausalLM",
            dtype="bfloat16",
            tokenizer="byte_bpe",
            tokenizer_class="PreTrainedTokenizerFast",
            special_tokens=dict(bos=None, eos="<|endoftext|>", unk=None, pad=None),
            first_token=None,
            last_token=None,
            config=dict(
                hidden_size=HIDDEN,
                num_hidden_layers=LAYERS,
                num_attention_heads=HEADS,
                max_position_embeddings=POSITIONS,
                multi_query=True,
                parallel_attn=True,
                new_decoder_architecture=False,
                alibi=False,
                bias=False,
                tie_word_embeddings=True,
            ),
            token_ids=dict(bos_token_id="<|endoftext|>", eos_token_id="<|endoftext|>"),
            head=_FALCON_SPECIALS,
        ),
        _decoder(
            "gpt2",
            released_as="openai-community/gpt2",
            config_class="GPT2Config",
            model_class="GPT2LMHeadModel",
            dtype="float32",
            tokenizer="byte_bpe",
            tokenizer_class="PreTrainedTokenizerFast",  # build_tiny_causal_lm's (the release names GPT2Tokenizer)
            special_tokens=dict(bos="<|endoftext|>", eos="<|endoftext|>", unk="<|endoftext|>", pad=None),
            first_token=None,
            last_token=None,
            builder="gpt2",
        ),
        # ------------------------------------------------------------ encoders
        _encoder(
            "bert",
            released_as="google-bert/bert-base-uncased",
            config_class="BertConfig",
            model_class="BertForMaskedLM",
            dtype="float32",
            tokenizer="wordpiece",
            tokenizer_class="BertTokenizer",
            special_tokens=dict(cls="[CLS]", sep="[SEP]", unk="[UNK]", pad="[PAD]", mask="[MASK]"),
            first_token="[CLS]",
            last_token="[SEP]",
            builder="bert",
        ),
        _encoder(
            "roberta",
            released_as="FacebookAI/roberta-base",
            config_class="RobertaConfig",
            model_class="RobertaForMaskedLM",
            dtype="float32",
            tokenizer="byte_bpe",
            tokenizer_class="RobertaTokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="<s>",
            last_token="</s>",
            config=dict(
                _ENCODER,
                max_position_embeddings=POSITIONS + 2,  # positions count from pad id + 1
                type_vocab_size=1,
                layer_norm_eps=1e-5,
            ),
            token_ids=dict(bos_token_id="<s>", eos_token_id="</s>", pad_token_id="<pad>"),
            head=("<s>", "<pad>", "</s>", "<unk>"),
            tail=("<mask>",),
        ),
        _encoder(
            "roberta-mnli",
            released_as="FacebookAI/roberta-large-mnli",
            config_class="RobertaConfig",
            model_class="RobertaForSequenceClassification",
            dtype="float32",
            tokenizer="byte_bpe",
            tokenizer_class="RobertaTokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="<s>",
            last_token="</s>",
            config=dict(_ENCODER, max_position_embeddings=POSITIONS + 2, type_vocab_size=1, layer_norm_eps=1e-5),
            token_ids=dict(bos_token_id="<s>", eos_token_id="</s>", pad_token_id="<pad>"),
            head=("<s>", "<pad>", "</s>", "<unk>"),
            tail=("<mask>",),
            id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
        ),
        _encoder(
            "deberta-v3",
            released_as="microsoft/deberta-v3-base",
            config_class="DebertaV2Config",
            model_class="DebertaV2ForMaskedLM",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="DebertaV2Tokenizer",
            special_tokens=dict(
                bos="[CLS]", eos="[SEP]", cls="[CLS]", sep="[SEP]", unk="[UNK]", pad="[PAD]", mask="[MASK]"
            ),
            first_token="[CLS]",
            last_token="[SEP]",
            config=dict(
                _ENCODER,
                max_position_embeddings=POSITIONS,
                type_vocab_size=0,
                relative_attention=True,
                position_buckets=32,
                norm_rel_ebd="layer_norm",
                share_att_key=True,
                pos_att_type=["p2c", "c2p"],
                max_relative_positions=-1,
                position_biased_input=False,
                layer_norm_eps=1e-7,
            ),
            token_ids=dict(pad_token_id="[PAD]"),
            tokenizer_options=dict(do_lower_case=False),
            spm_options=dict(
                pad_id=0,
                pad_piece="[PAD]",
                bos_id=1,
                bos_piece="[CLS]",
                eos_id=2,
                eos_piece="[SEP]",
                unk_id=3,
                unk_piece="[UNK]",
            ),
        ),
        _encoder(
            "electra",
            released_as="google/electra-small-generator",
            config_class="ElectraConfig",
            model_class="ElectraForMaskedLM",
            dtype="float32",
            tokenizer="wordpiece",
            tokenizer_class="BertTokenizer",
            special_tokens=dict(cls="[CLS]", sep="[SEP]", unk="[UNK]", pad="[PAD]", mask="[MASK]"),
            first_token="[CLS]",
            last_token="[SEP]",
            config=dict(_ENCODER, embedding_size=16, max_position_embeddings=POSITIONS),
            token_ids=dict(pad_token_id="[PAD]"),
        ),
        _encoder(
            "xlm-roberta",
            released_as="FacebookAI/xlm-roberta-base",
            config_class="XLMRobertaConfig",
            model_class="XLMRobertaForMaskedLM",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="XLMRobertaTokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="<s>",
            last_token="</s>",
            config=dict(_ENCODER, max_position_embeddings=POSITIONS + 2, type_vocab_size=1, layer_norm_eps=1e-5),
            token_ids=dict(bos_token_id="<s>", eos_token_id="</s>", pad_token_id="<pad>"),
            spm_options=_FAIRSEQ_SPM,
        ),
        _encoder(
            "modernbert",
            released_as="answerdotai/ModernBERT-base",
            config_class="ModernBertConfig",
            model_class="ModernBertForMaskedLM",
            dtype="float32",
            tokenizer="byte_bpe",
            tokenizer_class="PreTrainedTokenizerFast",
            special_tokens=dict(cls="[CLS]", sep="[SEP]", unk="[UNK]", pad="[PAD]", mask="[MASK]"),
            first_token="[CLS]",
            last_token="[SEP]",
            config=dict(
                _ENCODER,
                max_position_embeddings=POSITIONS,
                local_attention=16,
                global_attn_every_n_layers=3,
                tie_word_embeddings=True,
            ),
            token_ids=dict(
                pad_token_id="[PAD]",
                bos_token_id="[CLS]",
                eos_token_id="[SEP]",
                cls_token_id="[CLS]",
                sep_token_id="[SEP]",
            ),
            head=("<|endoftext|>", "<|padding|>"),
            tail=("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"),
            pad_vocab_to=64,
        ),
        # ------------------------------------------------------------ translation
        _translation(
            "marian",
            released_as="Helsinki-NLP/opus-mt-en-nl",
            config_class="MarianConfig",
            model_class="MarianMTModel",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="MarianTokenizer",
            special_tokens=dict(eos="</s>", unk="<unk>", pad="<pad>"),
            first_token=None,
            last_token="</s>",
            builder="marian",
        ),
        _translation(
            "t5",
            released_as="google-t5/t5-small",
            config_class="T5Config",
            model_class="T5ForConditionalGeneration",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="T5Tokenizer",
            special_tokens=dict(eos="</s>", unk="<unk>", pad="<pad>"),
            first_token=None,
            last_token="</s>",
            config=dict(_T5, feed_forward_proj="relu", tie_word_embeddings=True),
            token_ids=dict(pad_token_id="<pad>", eos_token_id="</s>", decoder_start_token_id="<pad>"),
            tokenizer_options=dict(extra_ids=100),
            spm_options=_T5_SPM,
            pad_vocab_to=128,
        ),
        _translation(
            "mt5",
            released_as="google/mt5-small",
            config_class="MT5Config",
            model_class="MT5ForConditionalGeneration",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="T5Tokenizer",
            special_tokens=dict(eos="</s>", unk="<unk>", pad="<pad>"),
            first_token=None,
            last_token="</s>",
            config=dict(_T5, feed_forward_proj="gated-gelu", tie_word_embeddings=False),
            token_ids=dict(pad_token_id="<pad>", eos_token_id="</s>", decoder_start_token_id="<pad>"),
            tokenizer_options=dict(extra_ids=0),
            spm_options=_T5_SPM,
            pad_vocab_to=128,
        ),
        _translation(
            "mbart50",
            released_as="facebook/mbart-large-50-one-to-many-mmt",
            config_class="MBartConfig",
            model_class="MBartForConditionalGeneration",
            dtype="float32",
            tokenizer="spm_unigram",
            tokenizer_class="MBart50Tokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="en_XX",
            last_token="</s>",
            config=dict(_SEQ2SEQ, scale_embedding=True, normalize_before=True, add_final_layer_norm=True),
            token_ids=dict(
                bos_token_id="<s>",
                pad_token_id="<pad>",
                eos_token_id="</s>",
                decoder_start_token_id="</s>",
                forced_eos_token_id="</s>",
            ),
            generation=dict(
                bos_token_id="<s>",
                pad_token_id="<pad>",
                eos_token_id="</s>",
                decoder_start_token_id="</s>",
                forced_eos_token_id="</s>",
                forced_bos_token_id="nl_XX",
            ),
            forced_bos="nl_XX",
            tokenizer_options=dict(src_lang="en_XX", tgt_lang="nl_XX"),
            spm_options=_FAIRSEQ_SPM,
        ),
        _translation(
            "m2m100",
            released_as="facebook/m2m100_418M",
            config_class="M2M100Config",
            model_class="M2M100ForConditionalGeneration",
            dtype="float32",
            tokenizer="spm_bpe",
            tokenizer_class="M2M100Tokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", unk="<unk>", pad="<pad>"),
            first_token="__en__",
            last_token="</s>",
            forced_bos="__nl__",
            builder="m2m100",
        ),
        _translation(
            "nllb",
            released_as="facebook/nllb-200-distilled-600M",
            config_class="M2M100Config",
            model_class="M2M100ForConditionalGeneration",
            dtype="float32",
            tokenizer="spm_bpe",
            tokenizer_class="NllbTokenizer",
            special_tokens=dict(bos="<s>", eos="</s>", cls="<s>", sep="</s>", unk="<unk>", pad="<pad>", mask="<mask>"),
            first_token="eng_Latn",
            last_token="</s>",
            config=dict(_SEQ2SEQ, scale_embedding=True),
            token_ids=dict(
                bos_token_id="<s>", pad_token_id="<pad>", eos_token_id="</s>", decoder_start_token_id="</s>"
            ),
            generation=dict(
                bos_token_id="<s>",
                pad_token_id="<pad>",
                eos_token_id="</s>",
                decoder_start_token_id="</s>",
                forced_bos_token_id="nld_Latn",
            ),
            forced_bos="nld_Latn",
            tokenizer_options=dict(src_lang="eng_Latn", tgt_lang="nld_Latn"),
            language_codes="transformers.models.nllb.tokenization_nllb",
            spm_options=_FAIRSEQ_SPM,
        ),
    )
}

# ---------------------------------------------------------------- tokenizers


def _special_kwargs(spec: Architecture) -> dict:
    """The special tokens of ``spec`` as tokenizer keyword arguments (``None`` kept: a role
    the release's tokenizer does not fill, which a class default must not fill either)."""
    return {f"{role}_token": token for role, token in spec.special_tokens.items()}


def _mark_special(tokenizer, tokens: Sequence[str]) -> None:
    """Make ``tokens`` special added tokens (new ids after the vocabulary for those it lacks),
    as the releases list their control tokens."""
    from tokenizers import AddedToken

    if tokens:
        tokenizer.add_tokens(
            [AddedToken(token, special=True, normalized=False) for token in tokens], special_tokens=True
        )


def _template_processor(first: str | None, last: str | None, ids: Mapping[str, int]):
    from tokenizers import processors

    single = [token for token in (first, "$A", last) if token]
    pair = single + [token for token in ("$B", last) if token]
    special = [(token, ids[token]) for token in dict.fromkeys((first, last)) if token]
    return processors.TemplateProcessing(single=single, pair=pair, special_tokens=special)


def _byte_bpe_tokenizer(spec: Architecture, texts: Sequence[str]):
    import json

    import transformers

    backend = train_byte_level_bpe(texts, spec.vocab_size, spec.head, spec.pretokenize)
    if spec.tokenizer_class == "PreTrainedTokenizerFast":
        from tokenizers import AddedToken

        backend.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in spec.tail])
        vocabulary = backend.get_vocab()
        backend.post_processor = _template_processor(spec.first_token, spec.last_token, vocabulary)
        specials = {key: value for key, value in _special_kwargs(spec).items() if value is not None}
        tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **specials, **spec.tokenizer_options)
    else:
        model = json.loads(backend.to_str())["model"]
        merges = [tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge) for merge in model["merges"]]
        tokenizer_class = getattr(transformers, spec.tokenizer_class)
        tokenizer = tokenizer_class(
            vocab=model["vocab"], merges=merges, **_special_kwargs(spec), **spec.tokenizer_options
        )
        _mark_special(tokenizer, spec.tail)
    _mark_special(tokenizer, spec.head)
    return tokenizer


def _sentencepiece_tokenizer(spec: Architecture, texts: Sequence[str], seed: int):
    """The release's tokenizer class made from a SentencePiece model trained on ``texts``,
    converted as ``from_pretrained`` converts a release's SentencePiece model."""
    import importlib

    import transformers

    model_type = "bpe" if spec.tokenizer == "spm_bpe" else "unigram"
    spm = _train_sentencepiece(list(texts), spec.vocab_size, model_type, seed, **spec.spm_options)
    tokenizer_class = getattr(transformers, spec.tokenizer_class)
    options = {key: value for key, value in _special_kwargs(spec).items() if value is not None}
    options.update(spec.tokenizer_options)
    if spec.language_codes is not None:
        # the release's tokenizer_config.json lists its language tokens
        options["extra_special_tokens"] = list(importlib.import_module(spec.language_codes).FAIRSEQ_LANGUAGE_CODES)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "sentencepiece.model"
        path.write_bytes(spm)
        kwargs = tokenizer_class.convert_to_native_format(vocab_file=str(path), **options)
    kwargs.pop("vocab_file", None)  # read: the tokenizer is saved as tokenizer.json
    tokenizer = tokenizer_class(**kwargs)
    _mark_special(tokenizer, spec.tail)
    return tokenizer


def _wordpiece_tokenizer(spec: Architecture, texts: Sequence[str]):
    """A lower-casing WordPiece tokenizer over every word of ``texts`` (the vocabulary
    :func:`natcomp.hf.models.build_tiny_model` gives BERT)."""
    import transformers

    words = sorted(set(words_for_vocabulary(texts)) - {token.lower() for token in SPECIAL_TOKENS})
    tokens = [*SPECIAL_TOKENS, *words]
    tokenizer_class = getattr(transformers, spec.tokenizer_class)
    return tokenizer_class(vocab={token: index for index, token in enumerate(tokens)}, do_lower_case=True)


def _tokenizer(spec: Architecture, texts: Sequence[str], seed: int):
    if spec.tokenizer == "byte_bpe":
        tokenizer = _byte_bpe_tokenizer(spec, texts)
    elif spec.tokenizer == "wordpiece":
        tokenizer = _wordpiece_tokenizer(spec, texts)
    else:
        tokenizer = _sentencepiece_tokenizer(spec, texts, seed)
    tokenizer.model_max_length = POSITIONS
    if spec.chat_template is not None:
        tokenizer.chat_template = spec.chat_template
    return tokenizer


# ---------------------------------------------------------------- models


def _token_ids(tokenizer, fields: Mapping[str, str | tuple[str, ...] | None]) -> dict:
    """``fields`` with each token (or tuple of tokens) replaced by its id in ``tokenizer``."""

    def one(token: str) -> int:
        index = tokenizer.convert_tokens_to_ids(token)
        if index is None or (index == tokenizer.unk_token_id and token != tokenizer.unk_token):
            raise ValueError(f"the tiny tokenizer has no token {token!r}")
        return index

    return {
        name: None if token is None else [one(t) for t in token] if isinstance(token, tuple) else one(token)
        for name, token in fields.items()
    }


def _rows(tokenizer, multiple: int) -> int:
    """Rows of the embedding matrix: every id the tokenizer gives, rounded up to ``multiple``."""
    size = max(len(tokenizer), max(tokenizer.get_vocab().values()) + 1)
    return math.ceil(size / multiple) * multiple


def _build_registered(spec: Architecture, directory: Path, texts: Sequence[str], seed: int) -> Path:
    import torch
    import transformers

    tokenizer = _tokenizer(spec, texts, seed)
    config_class = getattr(transformers, spec.config_class)
    labels = {}
    if spec.id2label is not None:
        labels = dict(id2label=dict(spec.id2label), label2id={label: i for i, label in spec.id2label.items()})
    config = config_class(
        vocab_size=_rows(tokenizer, spec.pad_vocab_to),
        **spec.config,
        **_token_ids(tokenizer, spec.token_ids),
        **labels,
    )
    transformers.set_seed(seed)
    model = getattr(transformers, spec.model_class)(config).eval()
    if spec.generation:
        for name, value in _token_ids(tokenizer, spec.generation).items():
            setattr(model.generation_config, name, value)
    dtype = getattr(torch, spec.dtype)
    model.to(dtype)
    model.config.dtype = dtype
    return save_model(model, tokenizer, directory)


def build_tiny(name: str, directory: str | os.PathLike, texts: Sequence[str], *, seed: int = 0) -> Path:
    """Save a tiny, randomly initialised model of the architecture ``name`` (a key of
    :data:`ARCHITECTURES`) with its tokenizer trained on ``texts`` to ``directory``;
    return ``directory``.

    The model has the release's classes, conventions and dtype (``config.json`` says it
    and ``from_pretrained`` loads it so), the tokenizer the release's kind, class and
    special-token habits (see :class:`Architecture`). A translation model learns its
    tokenizer from ``texts`` as both sides. Seeded: equal arguments give equal weights.
    Saved atomically with :func:`natcomp.hf.models.save_model`.
    """
    if name not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {name!r}; expected one of {', '.join(ARCHITECTURES)}")
    if not texts:
        raise ValueError("no texts to train the tokenizer on")
    spec = ARCHITECTURES[name]
    directory = Path(directory)
    texts = list(texts)
    if spec.builder == "gpt2":
        return build_tiny_causal_lm(
            directory, texts, kind="gpt2", vocab_size=spec.vocab_size, d_model=HIDDEN, layers=LAYERS, heads=HEADS,
            max_positions=POSITIONS, seed=seed,
        )  # fmt: skip
    if spec.builder == "bert":
        return build_tiny_model(
            directory, words_for_vocabulary(texts), kind="masked_lm", hidden_size=HIDDEN, layers=LAYERS,
            heads=HEADS, seed=seed, max_length=POSITIONS,
        )  # fmt: skip
    if spec.builder in ("marian", "m2m100"):
        return build_tiny_translation_model(
            directory, texts, texts, family=spec.builder, vocab_size=spec.vocab_size, d_model=HIDDEN,
            layers=LAYERS, heads=HEADS, ffn_dim=FFN, seed=seed, max_length=POSITIONS,
        )  # fmt: skip
    return _build_registered(spec, directory, texts, seed)


# ---------------------------------------------------------------- real shapes, no weights

_LLAMA31_ROPE = dict(
    rope_type="llama3",
    rope_theta=500000.0,
    factor=8.0,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    original_max_position_embeddings=8192,
)
#: Released models by name: the architecture of :data:`ARCHITECTURES` whose tokenizer and
#: conventions they have, and their real sizes (their ``config.json``'s, bf16 releases). A
#: multimodal checkpoint's sizes are its nested ``text_config`` and ``vision_config``
#: (:data:`_MULTIMODAL` names its config and model classes).
REAL_SHAPES: Mapping[str, tuple[str, Mapping[str, object]]] = {
    "Qwen2.5-0.5B": (
        "qwen2.5",
        dict(
            hidden_size=896,
            intermediate_size=4864,
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            vocab_size=151936,
            max_position_embeddings=32768,
            sliding_window=32768,
            max_window_layers=21,
            tie_word_embeddings=True,
        ),
    ),
    "Llama-3.1-8B": (
        "llama3",
        dict(
            hidden_size=4096,
            intermediate_size=14336,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=8,
            vocab_size=128256,
            max_position_embeddings=131072,
            rope_parameters=_LLAMA31_ROPE,
            tie_word_embeddings=False,
        ),
    ),
    "Llama-3.1-70B": (
        "llama3",
        dict(
            hidden_size=8192,
            intermediate_size=28672,
            num_hidden_layers=80,
            num_attention_heads=64,
            num_key_value_heads=8,
            vocab_size=128256,
            max_position_embeddings=131072,
            rope_parameters=_LLAMA31_ROPE,
            tie_word_embeddings=False,
        ),
    ),
    # google/gemma-3-27b-pt: Gemma3ForConditionalGeneration, its language model under
    # text_config, a SigLIP vision tower under vision_config
    "Gemma-3-27B": (
        "gemma2",
        dict(
            text_config=dict(
                hidden_size=5376,
                intermediate_size=21504,
                num_hidden_layers=62,
                num_attention_heads=32,
                num_key_value_heads=16,
                head_dim=128,
                query_pre_attn_scalar=168,
                sliding_window=1024,
                vocab_size=262208,
                rope_parameters=dict(
                    full_attention=dict(rope_type="linear", factor=8.0, rope_theta=1_000_000.0),
                    sliding_attention=dict(rope_type="default", rope_theta=10_000.0),
                ),
            ),
            vision_config=dict(
                hidden_size=1152,
                image_size=896,
                intermediate_size=4304,
                num_attention_heads=16,
                num_hidden_layers=27,
                patch_size=14,
                vision_use_head=False,
            ),
            mm_tokens_per_image=256,
        ),
    ),
}
#: the config and model classes of the multimodal checkpoints of :data:`REAL_SHAPES`
_MULTIMODAL = {"Gemma-3-27B": ("Gemma3Config", "Gemma3ForConditionalGeneration")}

#: what the tokenizer of a :func:`real_shape_model` is trained on when no texts are given
_SHAPE_TEXTS = ("English: the movie was good\nDutch: de film was goed\n",) * 8


def real_shape_model(
    name: str, directory: str | os.PathLike, texts: Sequence[str] = _SHAPE_TEXTS, *, seed: int = 0
) -> Path:
    """Save the config of the released model ``name`` (a key of :data:`REAL_SHAPES`), built
    by its transformers config class with its real sizes and dtype, and a tiny tokenizer of
    its architecture trained on ``texts``, to ``directory`` (returned): no weights. What
    sizes a model's jobs (:mod:`natcomp.jobsize`) and plans a profile of it (``natcomp
    evaluate -n`` reads the config and the tokenizer, never the weights); nothing can run it."""
    import transformers

    if name not in REAL_SHAPES:
        raise ValueError(f"unknown model {name!r}; expected one of {', '.join(REAL_SHAPES)}")
    architecture, sizes = REAL_SHAPES[name]
    spec = ARCHITECTURES[architecture]
    tokenizer = _tokenizer(spec, list(texts), seed)
    token_ids = _token_ids(tokenizer, spec.token_ids)
    if name in _MULTIMODAL:  # the language model's sizes and token ids under text_config
        config_class, model_class = _MULTIMODAL[name]
        nested = {**sizes, "text_config": {**sizes["text_config"], **token_ids}}
        config = getattr(transformers, config_class)(**nested, architectures=[model_class])
    else:
        config = getattr(transformers, spec.config_class)(
            **{**spec.config, **sizes}, **token_ids, architectures=[spec.model_class]
        )
    config.dtype = spec.dtype
    directory = Path(directory)
    config.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory

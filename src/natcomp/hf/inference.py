"""Batched inference: sentence embeddings, class probabilities, masked-token probabilities.

Decoder-only models (GPT-2, Llama; :func:`natcomp.hf.kinds.is_decoder_only`) run here too:
their position ids count from each text's first real token (:func:`padding_position_ids`),
so a text's states do not depend on which side its batch pads, and ``pooling="last"``
takes the last real token's state (:func:`pool_states`).

The functions take texts (or ``(first, second)`` pairs for sentence-pair models such as
NLI classifiers), batch them by length so little padding is computed
(:func:`length_sorted_batches`), and return one row per input, in input order.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import torch

from natcomp.errors import ConfigError
from natcomp.hf.kinds import is_decoder_only
from natcomp.hf.placement import input_device, is_placed, place_heads

#: One input: a text, or a pair of texts for sentence-pair models.
TextInput = str | tuple[str, str]

POOLINGS = ("cls", "mean", "last")


def _length(item: TextInput) -> int:
    return len(item) if isinstance(item, str) else sum(len(part) for part in item)


def length_sorted_batches(texts: Sequence[TextInput], batch_size: int) -> list[list[int]]:
    """Indices of ``texts`` in batches of at most ``batch_size``, longest texts first.

    Length is counted in characters (a pair: both texts), a cheap stand-in for tokens;
    equal lengths keep input order, so the batching is deterministic. Texts of similar
    length share a batch and padding stays small; the longest batch comes first, so an
    out-of-memory error shows up at once.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = sorted(range(len(texts)), key=lambda index: (-_length(texts[index]), index))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


#: a tokenizer's ``model_max_length`` at or above this is transformers' "no limit known" sentinel
_NO_MAXIMUM = 1_000_000
#: model types whose position ids count from the pad id + 1 (``max_position_embeddings`` - 2
#: positions are usable)
_OFFSET_POSITIONS = {
    "camembert",
    "data2vec-text",
    "ibert",
    "longformer",
    "mpnet",
    "roberta",
    "roberta-prelayernorm",
    "xlm-roberta",
    "xlm-roberta-xl",
    "xmod",
}


def token_counts(tokenizer, texts: Sequence[str], batch_size: int = 4096) -> list[int]:
    """Tokens of each text, special tokens included (BERT's [CLS] and [SEP]), uncut: what
    :func:`tokenize` would keep without a limit. PSS and TRE count the sentences a length
    limit cuts with it."""
    counts: list[int] = []
    for start in range(0, len(texts), batch_size):
        encoded = tokenizer(list(texts[start : start + batch_size]), truncation=False, verbose=False)
        counts.extend(len(ids) for ids in encoded["input_ids"])
    return counts


def model_max_positions(tokenizer, config=None) -> int | None:
    """The most tokens the model reads: the smaller of the tokenizer's ``model_max_length``
    (unless it is transformers' no-limit sentinel) and the config's position embeddings
    (``max_position_embeddings`` or ``n_positions``, less RoBERTa-style models' pad offset);
    None where neither says."""
    limits = []
    own = getattr(tokenizer, "model_max_length", None)
    if isinstance(own, int) and 0 < own < _NO_MAXIMUM:
        limits.append(own)
    for name in ("max_position_embeddings", "n_positions"):
        positions = getattr(config, name, None) if config is not None else None
        if isinstance(positions, int) and positions > 0:
            if getattr(config, "model_type", None) in _OFFSET_POSITIONS:
                pad = getattr(config, "pad_token_id", None)
                positions -= (1 if pad is None else int(pad)) + 1
            limits.append(positions)
            break
    return min(limits) if limits else None


def tokenize(tokenizer, texts: Sequence[TextInput], max_length: int) -> Mapping[str, torch.Tensor]:
    """Tokenize a batch of texts or of ``(first, second)`` pairs, padded to the longest,
    truncated to ``max_length`` tokens (pairs: the longer text is cut first)."""
    if not texts:
        raise ValueError("cannot tokenize an empty batch")
    if all(isinstance(item, str) for item in texts):
        return tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    if all(isinstance(item, (tuple, list)) and len(item) == 2 for item in texts):
        first, second = zip(*texts)
        return tokenizer(
            list(first),
            list(second),
            padding=True,
            truncation="longest_first",
            max_length=max_length,
            return_tensors="pt",
        )
    raise TypeError("expected texts (str) or pairs of texts ((str, str)), not a mixture")


def model_inputs(
    model: torch.nn.Module, batch: Mapping[str, torch.Tensor], device: torch.device
) -> dict[str, torch.Tensor]:
    """The tensors of ``batch`` that ``model.forward`` accepts, moved to ``device``.

    A model whose forward takes ``**kwargs`` gets all of them (input_ids, attention_mask,
    token_type_ids ...); a custom module gets only the arguments it names, so a head that
    takes ``input_ids`` and ``attention_mask`` is not handed ``token_type_ids``. A
    decoder-only model (a GPT-2 or Llama sequence classifier) also gets ``position_ids``
    counted from each text's first real token: left padding would otherwise shift them.
    """
    parameters = inspect.signature(model.forward).parameters
    takes_any = any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters.values())
    inputs = {name: tensor.to(device) for name, tensor in batch.items() if takes_any or name in parameters}
    wants_positions = takes_any or "position_ids" in parameters
    if wants_positions and "position_ids" not in inputs and "attention_mask" in inputs and is_decoder_only(model):
        inputs["position_ids"] = padding_position_ids(inputs["attention_mask"])
    return inputs


def padding_position_ids(attention_mask: torch.Tensor) -> torch.Tensor:
    """Position ids ``[batch, length]`` counted from each row's first real token (0 there
    and on the left padding before it), whichever side the batch pads."""
    return (attention_mask.long().cumsum(dim=1) - 1).clamp(min=0)


def last_token_indices(attention_mask: torch.Tensor) -> torch.Tensor:
    """The index of each row's last real token (``attention_mask`` 1): its length - 1 with
    right padding, the last column with left padding."""
    columns = torch.arange(attention_mask.shape[1], device=attention_mask.device)
    return (columns * attention_mask.long()).argmax(dim=1)


def added_token_mask(input_ids: torch.Tensor, special_ids: Sequence[int]) -> torch.Tensor:
    """1 at the tokens of the text, 0 at the special tokens the tokenizer added (BOS,
    EOS, OPT's ``</s>``; ``special_ids``: ``tokenizer.all_special_ids``) and wherever else
    they are: what :func:`pool_states` averages for a decoder-only model."""
    if not special_ids:
        return torch.ones_like(input_ids)
    special = torch.tensor(sorted(set(special_ids)), device=input_ids.device)
    return (~torch.isin(input_ids, special)).long()


def mean_pooling_mask(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor, special_ids: Sequence[int]
) -> torch.Tensor:
    """The tokens ``mean`` pooling averages: the real (unpadded) tokens, and for a
    decoder-only model only those of the text. A decoder's BOS state (Llama, Mistral, Gemma)
    is the same for every input, and a mean that counted it would be half BOS for a
    one-word TRE phrase and not comparable with GPT-2's or Qwen's (no BOS). An encoder's
    [CLS] and [SEP] stay in, as sentence-transformers averages them."""
    if not is_decoder_only(model):
        return attention_mask
    return attention_mask * added_token_mask(input_ids, special_ids).to(attention_mask.device)


def pool_states(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per row of ``hidden`` ``[batch, length, width]``: ``cls`` the first
    token's state (an encoder's summary token), ``mean`` the mean of the states
    ``attention_mask`` marks (the padding left out; a decoder-only model's mask from
    :func:`mean_pooling_mask` also leaves out its BOS), ``last`` the last real token's
    state (the one state of a decoder-only model that has seen the whole text)."""
    if pooling == "cls":
        return hidden[:, 0]
    if pooling == "mean":
        # the states of a model spread over GPUs come from its last layer's device
        mask = attention_mask.unsqueeze(-1).to(device=hidden.device, dtype=hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
    if pooling == "last":
        rows = torch.arange(hidden.shape[0], device=hidden.device)
        return hidden[rows, last_token_indices(attention_mask).to(hidden.device)]
    raise ConfigError("pooling", f"'{pooling}' is not a pooling; expected one of {', '.join(POOLINGS)}")


def check_pooling(model_or_config, pooling: str, name: str, key: str) -> None:
    """A :class:`ConfigError` naming ``key`` for ``cls`` pooling of a decoder-only model
    (a model, its config or a config mapping): its first token's state has seen only itself."""
    if pooling == "cls" and is_decoder_only(model_or_config):
        raise ConfigError(
            key,
            f"'cls' of a decoder-only model ({name}) is the first token's state, which has seen only itself; "
            "expected mean or last",
        )


def hidden_states(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor, *, layer: int = -1, **extra
) -> torch.Tensor:
    """The states ``[batch, length, width]`` of one layer of ``model`` (counted like
    ``hidden_states``: 0 the embeddings, -1 the last layer), for a bare model (``AutoModel``)
    or a task model; a decoder-only model gets :func:`padding_position_ids`."""
    if is_decoder_only(model) and "position_ids" not in extra:
        extra["position_ids"] = padding_position_ids(attention_mask)
    if layer == -1 and _has_last_hidden_state(model):
        return output_field(model(input_ids=input_ids, attention_mask=attention_mask, **extra), "last_hidden_state")
    output = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True, **extra)
    return output_field(output, "hidden_states")[layer]


def output_field(output, name: str):
    """``output.name`` or ``output[name]`` (model outputs, dicts, namedtuples alike); None if absent."""
    if isinstance(output, Mapping):
        return output.get(name)
    return getattr(output, name, None)


def model_device(model: torch.nn.Module) -> torch.device:
    """The device a model's inputs go to (:func:`natcomp.hf.placement.input_device`): for a
    model spread over devices where accelerate runs it, else that of its first parameter."""
    return input_device(model)


@contextlib.contextmanager
def _evaluating(model: torch.nn.Module, device: torch.device | str | None) -> Iterator[torch.device]:
    """Run the block with ``model`` in eval mode under ``torch.inference_mode`` on ``device``
    (None: where the model is; a placed model stays where accelerate put it, and the heads
    around it go to its states' device: :func:`natcomp.hf.placement.place_heads`); the block
    gets the device of the model's inputs. The model's training flag is restored."""
    if is_placed(model):
        place_heads(model)
    elif device is not None:
        model.to(device)
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            yield model_device(model)
    finally:
        model.train(was_training)


def _batched_rows(texts: Sequence[TextInput], batch_size: int, width: int, compute) -> np.ndarray:
    """Call ``compute(batch_texts) -> array [len(batch), width]`` on length-sorted batches
    and put the rows back in input order."""
    result = np.empty((len(texts), width), dtype=np.float64)
    for indices in length_sorted_batches(texts, batch_size):
        result[indices] = compute([texts[index] for index in indices])
    return result


def encode(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[TextInput],
    *,
    pooling: str,
    batch_size: int = 64,
    max_length: int = 128,
    device: torch.device | str | None = None,
    normalize: bool = False,
    layer: int = -1,
) -> np.ndarray:
    """Sentence embeddings ``[len(texts), hidden]`` (float32) from one of a model's layers.

    ``pooling="cls"`` takes the first token's vector; ``"mean"`` averages the vectors of the
    real tokens (the attention mask excludes padding, so a text gets the same embedding
    whatever it is batched with; a decoder-only model's BOS and other added special tokens
    are left out: :func:`mean_pooling_mask`); ``"last"`` takes the last real token's vector (a
    decoder-only model's, on either padding side: :func:`pool_states`). ``normalize``
    scales each embedding to unit length (what sentence-transformers' all-MiniLM-L6-v2
    does after mean pooling). Works for bare
    encoders (``last_hidden_state``) and for task models (asked for ``hidden_states``).
    ``device`` None runs where the model is; otherwise the model is moved there.
    ``layer`` picks the hidden states pooled, counted like ``hidden_states`` (0 the
    embedding layer, -1 the last layer, -2 the second-to-last: bert-as-service's default).
    """
    if pooling not in POOLINGS:
        raise ConfigError("pooling", f"'{pooling}' is not a pooling; expected one of {', '.join(POOLINGS)}")
    text = model.config.get_text_config()  # a multimodal checkpoint's language model (Gemma 3)
    layers = getattr(text, "num_hidden_layers", None)
    if layers is not None and not -(layers + 1) <= layer <= layers:
        raise ConfigError(
            "layer", f"{layer} is not a layer of this model; expected -{layers + 1} to {layers} (-1: the last)"
        )
    width = text.hidden_size

    special_ids = list(getattr(tokenizer, "all_special_ids", []) or [])

    def compute(batch_texts):
        batch = tokenize(tokenizer, batch_texts, max_length)
        inputs = model_inputs(model, batch, run_device)
        hidden = hidden_states(model, layer=layer, **inputs)
        mask = inputs["attention_mask"]
        if pooling == "mean":
            mask = mean_pooling_mask(model, inputs["input_ids"], mask, special_ids)
        pooled = pool_states(hidden, mask, pooling)
        if normalize:
            pooled = torch.nn.functional.normalize(pooled, dim=-1)
        return pooled.float().cpu().numpy()

    with _evaluating(model, device) as run_device:
        return _batched_rows(texts, batch_size, width, compute).astype(np.float32)


def _has_last_hidden_state(model: torch.nn.Module) -> bool:
    # Bare encoders (AutoModel) return last_hidden_state; task models return logits and
    # give hidden states only when asked.
    base = getattr(model, "base_model", None)
    return base is model or base is None


def classify(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[TextInput],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    device: torch.device | str | None = None,
) -> np.ndarray:
    """Class probabilities ``[len(texts), num_labels]`` (float64, softmax of the logits,
    rows sum to 1), in input order. Pairs ``(premise, hypothesis)`` for NLI models.
    Column j is the model's label ``model.config.id2label[j]`` for HF classifiers."""
    width = _num_labels(model)

    def compute(batch_texts):
        batch = tokenize(tokenizer, batch_texts, max_length)
        logits = output_field(model(**model_inputs(model, batch, run_device)), "logits")
        return torch.softmax(logits.double(), dim=-1).cpu().numpy()

    with _evaluating(model, device) as run_device:
        return _batched_rows(texts, batch_size, width, compute)


def predict_logits(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[TextInput],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    device: torch.device | str | None = None,
) -> np.ndarray:
    """Raw logits ``[len(texts), n]`` of any module whose forward returns ``logits``
    (HF classifiers, or custom heads called with ``input_ids`` / ``attention_mask``)."""
    rows: dict[int, np.ndarray] = {}
    with _evaluating(model, device) as run_device:
        for indices in length_sorted_batches(texts, batch_size):
            batch = tokenize(tokenizer, [texts[index] for index in indices], max_length)
            logits = output_field(model(**model_inputs(model, batch, run_device)), "logits")
            rows.update(zip(indices, logits.double().cpu().numpy()))
    if not rows:
        return np.empty((0, _num_labels(model)), dtype=np.float64)
    return np.stack([rows[index] for index in range(len(texts))])


def _num_labels(model: torch.nn.Module) -> int:
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "num_labels"):
        raise TypeError("model has no config.num_labels; use predict_logits for custom modules")
    return config.num_labels


def masked_token_probabilities(
    model: torch.nn.Module,
    tokenizer,
    texts_with_one_mask: Sequence[TextInput],
    candidate_token_ids: Sequence[int],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    device: torch.device | str | None = None,
    renormalize: bool = False,
) -> np.ndarray:
    """Probabilities ``[len(texts), len(candidates)]`` of candidate tokens at the mask.

    Each text must contain the tokenizer's mask token (``tokenizer.mask_token``) exactly
    once after tokenization (and truncation). The probabilities are the masked LM's softmax
    over its whole vocabulary, read at the candidates' ids; with ``renormalize`` they are
    rescaled to sum to 1 over the candidates (a choice among the candidates only).
    Candidate ids come from :func:`single_token_id`.
    """
    candidates = torch.tensor(list(candidate_token_ids), dtype=torch.long)
    if candidates.numel() == 0:
        raise ValueError("no candidate token ids")
    vocabulary_size = model.config.vocab_size
    if int(candidates.min()) < 0 or int(candidates.max()) >= vocabulary_size:
        raise ValueError(f"candidate token ids must lie in 0..{vocabulary_size - 1}, got {candidates.tolist()}")
    mask_id = tokenizer.mask_token_id
    if mask_id is None:
        raise ValueError("the tokenizer has no mask token; masked_token_probabilities needs a masked language model")

    def compute(batch_texts):
        batch = tokenize(tokenizer, batch_texts, max_length)
        is_mask = batch["input_ids"] == mask_id
        counts = is_mask.sum(dim=1)
        if bool((counts != 1).any()):
            bad = int((counts != 1).nonzero()[0, 0])
            raise ValueError(
                f"text {batch_texts[bad]!r} has {int(counts[bad])} {tokenizer.mask_token} tokens after tokenization "
                f"(max_length {max_length}); expected exactly one"
            )
        logits = output_field(model(**model_inputs(model, batch, run_device)), "logits")
        at_mask = logits[is_mask.to(logits.device)]  # [batch, vocabulary]
        probabilities = torch.softmax(at_mask.double(), dim=-1)[:, candidates.to(logits.device)]
        if renormalize:
            probabilities = probabilities / probabilities.sum(dim=-1, keepdim=True)
        return probabilities.cpu().numpy()

    with _evaluating(model, device) as run_device:
        return _batched_rows(texts_with_one_mask, batch_size, len(candidates), compute)


def single_token_id(tokenizer, word: str, key: str) -> int:
    """The vocabulary id of ``word`` when it is one (known) token, else :class:`ConfigError`.

    Tried in order: the word as it is tokenized after a space (BPE vocabularies mark it
    ``Ġword``, sentencepiece ``▁word``; WordPiece ignores the space), which is how an answer
    word appears after the prompt's other words; then the bare word (a BPE token without
    the space marker). A word that becomes [UNK] is not a token of the vocabulary.
    """
    if not word or word != word.strip():
        raise ConfigError(key, f"{word!r} must be a non-empty word without surrounding spaces")
    unknown = tokenizer.unk_token_id
    for variant in (" " + word, word):
        ids = tokenizer(variant, add_special_tokens=False)["input_ids"]
        if len(ids) == 1 and ids[0] != unknown:
            return int(ids[0])
    pieces = tokenizer.tokenize(" " + word)
    name = getattr(tokenizer, "name_or_path", "") or type(tokenizer).__name__
    raise ConfigError(key, f"'{word}' is not one token of {name}'s vocabulary: it splits into {pieces}")

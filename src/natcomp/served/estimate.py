"""What a run will ask a served model, counted when the plan is made: per job, the
requests, their prompt tokens and at most how many output tokens.

Each family that prompts a served model estimates its own jobs (:class:`RequestEstimate`:
the requests and a sample of their prompts, from the run's config; MT's test items are
made by the workflow, so its counts are bounds from the config's numbers); the tokens are
counted with the model's own tokenizer where it is here (a folder, the local Hugging Face
cache), else estimated at 4 characters a token, and the plan says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CHARS_PER_TOKEN", "RequestEstimate", "format_estimates"]

#: characters per token where the model's tokenizer is not here (English text, BPE vocabularies)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class RequestEstimate:
    """One job's requests: how many (``exact``, or at most), a sample of their prompts
    (their mean length stands for all), and the most output tokens one request may take."""

    family: str
    job: str
    requests: int
    sample_prompts: tuple[str, ...]
    max_output_tokens: int
    exact: bool = True


def _tokenizer(model: str):
    from natcomp.model_description import model_file

    if model_file(model, "tokenizer_config.json") is None and model_file(model, "tokenizer.json") is None:
        return None
    try:
        from natcomp import hf

        return hf.load_tokenizer(model, "--model")
    except Exception:  # a tokenizer that does not load: the estimate says so
        return None


def format_estimates(estimates: Sequence[RequestEstimate], model: str) -> list[str]:
    """The plan's lines: one per job (requests, prompt tokens, at most output tokens) and a
    total, the tokens counted with ``model``'s tokenizer where it is here."""
    tokenizer = _tokenizer(model)
    how = f"{model}'s tokenizer" if tokenizer is not None else f"an estimate of {CHARS_PER_TOKEN} characters a token"
    lines, totals = [], [0, 0, 0]
    for estimate in estimates:
        samples = list(estimate.sample_prompts) or [""]
        if tokenizer is not None:
            lengths = [len(ids) for ids in tokenizer(samples, add_special_tokens=True)["input_ids"]]
        else:
            lengths = [max(1, round(len(text) / CHARS_PER_TOKEN)) for text in samples]
        prompt_tokens = round(estimate.requests * sum(lengths) / len(lengths))
        output_tokens = estimate.requests * estimate.max_output_tokens
        totals = [totals[0] + estimate.requests, totals[1] + prompt_tokens, totals[2] + output_tokens]
        bound = "" if estimate.exact else "at most "
        lines.append(
            f"{estimate.family} {estimate.job}: {bound}{estimate.requests:,} request(s), about {prompt_tokens:,} "
            f"prompt token(s), at most {output_tokens:,} output token(s)"
        )
    lines.append(
        f"in all: {totals[0]:,} request(s), about {totals[1]:,} prompt and at most {totals[2]:,} output token(s) "
        f"(tokens by {how}; answers already in a run folder's cache are not sent again)"
    )
    return lines

"""``natcomp evaluate --model ID --api-base URL``: the profile of a causal LM behind an
OpenAI-compatible API (docs/llm.md).

The plan probes the server first (:func:`natcomp.served.probe`: the id listed, the route,
prompt log-probabilities, beam search) and says what each family does with what it found:
MT translates by prompting (greedy; its synonym probes need beam search, else the run takes
the shipped synonym translations), PLANE prompts by the word the model writes (by
verbaliser log-likelihood only where the server gives prompt log-probabilities), and
NonCompSST, PLANE fine-tuning, PSS and TRE need the model's weights: one line each in the
plan, no job. The run's config names the endpoint in MT's system entry and PLANE's
prompting model (``api_base``, ``api_key_env``: the variable's name, never its value);
the record keeps what the server is and, after the run, the usage its jobs reported
(:func:`add_usage`); the page says the model was served, by what, its id and fingerprint.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError, InputError, OptionError
from natcomp.profile.fit import FAMILIES, ModelKinds, PlanRow, prompting_plan
from natcomp.served import USAGE_FOLDER, Capabilities, RequestSettings, ServedEndpoint, format_estimates, probe

__all__ = [
    "NEEDS_WEIGHTS",
    "SERVED_FAMILIES",
    "add_usage",
    "choose_families",
    "plan_rows",
    "served_base",
    "served_page_text",
    "with_request_limit",
]

#: the families a served model runs (text out, and prompt log-probabilities in where given)
SERVED_FAMILIES = ("mt", "plane")
#: what each other part of the profile does with a model's weights (the plan's line)
NEEDS_WEIGHTS = {
    "noncompsst": "fine-tunes a sentiment head on the model's hidden states (SST-7)",
    "plane fine-tuning": "fine-tunes the model as a sequence classifier on the GOoD and One-IT splits",
    "pss": "embeds sentences from the model's hidden states and trains classifiers on them",
    "tre": "fits TRE to the model's hidden states",
}


def choose_families(asked: Sequence[str] | None) -> list[str]:
    """MT and PLANE, or those of them asked for; a family that needs weights asked for is
    a one-line error naming ``--families``."""
    if not asked:
        return list(SERVED_FAMILIES)
    weights = [family for family in asked if family not in SERVED_FAMILIES]
    if weights:
        why = "; ".join(f"{family} {NEEDS_WEIGHTS[family]}" for family in weights)
        raise ConfigError(
            "--families",
            f"{', '.join(weights)} need(s) the model's weights, which a served model (--api-base) does not give: "
            f"{why}; expected mt or plane",
        )
    return [family for family in FAMILIES if family in asked]


def served_base(base: Mapping, caps: Capabilities, families: Sequence[str], chat: bool) -> tuple[dict, list[str]]:
    """The base config as a served run takes it, and what changed in words: without beam
    search MT's synonym probes (n-best lists) cannot run, so the shipped synonym
    translations stand in (``mt.synonyms.candidates: shipped``); without prompt
    log-probabilities (or through the chat template) PLANE's two-shot prompting reads the
    word the model writes (``plane.prompting.answer: vocabulary``). Beam decoding asked
    for where the server has none is a one-line error."""
    base = dict(base)
    notes = []
    if "mt" in families and isinstance(base.get("mt"), Mapping):
        mt = dict(base["mt"])
        decoding = (mt.get("prompting") or {}).get("decoding", "greedy")
        if decoding == "beam" and not caps.beam:
            raise ConfigError(
                "mt.prompting.decoding",
                f"beam needs beam search, which {caps.server} does not offer ({caps.beam_reason}); expected greedy",
            )
        synonyms = mt.get("synonyms") or {}
        if synonyms.get("candidates") == "probes" and not caps.beam:
            if str(mt.get("target_lang", "nl")) != "nl":
                raise ConfigError(
                    "mt.synonyms.candidates",
                    f"probes need n-best lists by beam search, which {caps.server} does not offer ({caps.beam_reason}), "
                    f"and the shipped synonym lists are Dutch; expected a server with beam search (vLLM) for target "
                    f"language {mt.get('target_lang')}",
                )
            mt["synonyms"] = {**synonyms, "candidates": "shipped"}
            notes.append(
                f"mt: synonym probes refused: their n-best lists need beam search, which {caps.server} does not offer "
                f"({caps.beam_reason}); substitutivity takes the shipped synonym translations (mt.synonyms.candidates: "
                "shipped)"
            )
        base["mt"] = mt
    if "plane" in families and isinstance(base.get("plane"), Mapping):
        plane = dict(base["plane"])
        prompting = plane.get("prompting") or {}
        if prompting.get("answer") == "verbalisers" and (chat or not caps.prompt_logprobs):
            why = (
                "through the chat template the server does not echo the prompt"
                if chat
                else f"the server gives no prompt log-probabilities ({caps.prompt_logprobs_reason})"
            )
            plane["prompting"] = {**prompting, "answer": "vocabulary"}
            notes.append(
                f"plane: two-shot prompting by the word the model writes (plane.prompting.answer: vocabulary), not by "
                f"verbaliser log-likelihood: {why}"
            )
        base["plane"] = plane
    return base, notes


def plan_rows(
    caps: Capabilities, base: Mapping, mt_system: Mapping, families: Sequence[str], chat: bool
) -> list[PlanRow]:
    """The plan: what MT and PLANE do with the served model, and one line for each part of
    the profile that needs weights."""
    chat_text = ", through the server's chat template" if chat else ""
    role = f"served causal LM ({caps.server}{chat_text})"
    rows = []
    if "mt" in families:
        synonyms = ((base.get("mt") or {}).get("synonyms") or {}).get("candidates")
        probes = "; synonym probes by the server's beam search" if synonyms == "probes" else ""
        route = "chat completions" if chat else "completions"
        rows.append(
            PlanRow(
                "mt",
                role,
                f"the MT tests and BLEU, translating by prompting through {route}: "
                + prompting_plan(mt_system, (base.get("mt") or {}).get("prompting")).replace(
                    ", chat template,", ", the server's chat template,"
                )
                + probes,
            )
        )
    if "plane" in families:
        answer = ((base.get("plane") or {}).get("prompting") or {}).get("answer", "vocabulary")
        how = (
            "zero- and two-shot prompting by the word the model writes"
            if answer == "vocabulary"
            else "two-shot prompting by verbaliser log-likelihood (prompt log-probabilities), zero-shot by the word "
            "the model writes"
        )
        rows.append(PlanRow("plane", role, f"{how} (F1 per template x verbaliser)"))
        rows.append(
            PlanRow(
                "plane",
                role,
                f"not run: fine-tuning needs the model's weights (it {NEEDS_WEIGHTS['plane fine-tuning']})",
            )
        )
    for family in ("noncompsst", "pss", "tre"):
        rows.append(PlanRow(family, role, f"not run: needs the model's weights ({NEEDS_WEIGHTS[family]})"))
    order = {family: index for index, family in enumerate(FAMILIES)}
    return sorted(rows, key=lambda row: order[row.family])


def capabilities_lines(caps: Capabilities) -> list[str]:
    """What the probe found, for the plan."""
    length = f", at most {caps.max_model_len:,} tokens" if caps.max_model_len else ""
    revision = f", fingerprint {caps.fingerprint}" if caps.fingerprint else ""
    revision = revision or (f", revision {caps.revision}" if caps.revision else ", no fingerprint or revision")
    lines = [
        f"served by {caps.server} at {caps.api_base}: model {caps.model}{length}{revision}",
        "prompt log-probabilities: "
        + ("yes" if caps.prompt_logprobs else "no")
        + f" ({caps.prompt_logprobs_reason}); beam search: "
        + ("yes" if caps.beam else "no")
        + f" ({caps.beam_reason})",
        "sampling: temperature 0, top_p 1, n 1, a fixed seed, no penalties"
        + (
            " (vendor repetition penalties 1 too)"
            if caps.vendor_penalties
            else " (the server refuses vendor penalties)"
        ),
    ]
    return lines


def plan_served(
    model: str,
    *,
    api_base: str,
    api_key_env: str | None,
    base: dict,
    families: Sequence[str] | None,
    chat_template: bool,
    mt_system: Mapping | None,
    dtype: str | None,
    fine_tuning: str | None,
    estimates: Mapping[str, Callable] | None,
    root: Path,
) -> dict:
    """Everything a served run decides before any job: the checked endpoint, what the
    server can do, the families, the base config as the run takes it, the MT system
    entry, the plan's rows and lines, and the record's ``served`` part."""
    if dtype is not None:
        raise OptionError(
            "--dtype", "a served model runs in the server's dtype; natcomp loads no weights (leave it out)"
        )
    if fine_tuning is not None:
        raise OptionError(
            "--fine-tuning", "is for the families that fine-tune weights; a served model runs none of them"
        )
    endpoint = ServedEndpoint(api_base, model, api_key_env).check()
    given = (mt_system or {}).get("family") or "auto"
    if given not in ("auto", "causal"):
        raise ConfigError("--family", f"{given} is a translation model's family; a served model is a causal LM")
    # natcomp mt evaluate --chat-template on|off
    chat_template = chat_template or str((mt_system or {}).get("chat_template")) in ("on", "True")
    chosen = choose_families(families)
    settings = RequestSettings.from_config(base.get("served"))
    caps = probe(endpoint, settings, chat=chat_template, logprobs="plane" in chosen, beam="mt" in chosen)
    run_base, notes = served_base(base, caps, chosen, chat_template)
    system = {
        **(mt_system or {}),
        "family": "causal",
        "api_base": api_base,
        "api_key_env": api_key_env,
        "chat_template": "on" if chat_template else "off",
    }
    if isinstance(run_base.get("plane"), Mapping) and "plane" in chosen:
        plane = dict(run_base["plane"])
        plane["prompting"] = {**(plane.get("prompting") or {}), "chat_template": "on" if chat_template else "off"}
        run_base["plane"] = plane
    record = {
        **caps.record(),
        "api_key_env": api_key_env,
        "concurrency": settings.concurrency,
        "probe_requests": caps.requests,
    }
    lines = capabilities_lines(caps) + notes
    if estimates:
        from natcomp.profile.runconfig import profile_config

        config = profile_config(run_base, "served", model, chosen, ModelKinds(False, False, False, False, True), system)
        config["plane"] = _served_plane(config.get("plane"), model, api_base, api_key_env)
        found = []
        if "mt" in chosen and "mt" in estimates:
            found += estimates["mt"](config, "served", root / "resources")
        if "plane" in chosen and "plane" in estimates:
            found += estimates["plane"](config)
        lines += format_estimates(found, model)
    return {
        "endpoint": endpoint,
        "capabilities": caps,
        "families": chosen,
        "base": run_base,
        "mt_system": system,
        "rows": plan_rows(caps, run_base, system, chosen, chat_template),
        "lines": lines,
        "record": record,
    }


def _served_plane(section: Mapping | None, model: str, api_base: str, api_key_env: str | None) -> Mapping | None:
    """PLANE's section of a served run: the prompting model as its endpoint, no fine-tuning
    and no NLI transfer (they need weights)."""
    if not isinstance(section, Mapping) or not section.get("enabled", False):
        return section
    plane = dict(section)
    entry = {"model": model, "api_base": api_base, "api_key_env": api_key_env}
    prompting = dict(plane.get("prompting") or {})
    prompting["models"] = {name: entry for name in (prompting.get("models") or {})}
    plane["prompting"] = prompting
    plane["finetune"] = {**(plane.get("finetune") or {}), "enabled": False}
    plane["nli"] = {**(plane.get("nli") or {}), "enabled": False, "models": {}}
    return plane


def served_config(config: dict, model: str, api_base: str, api_key_env: str | None) -> dict:
    """The run's config (:func:`natcomp.profile.runconfig.profile_config`) with PLANE's
    model as its endpoint."""
    config = dict(config)
    if "plane" in config:
        config["plane"] = _served_plane(config["plane"], model, api_base, api_key_env)
    return config


def with_request_limit(snakemake_args: Sequence[str], concurrency: int) -> list[str]:
    """Snakemake's arguments with ``--resources served_requests=N`` (the jobs' requests in
    flight together, the served section's concurrency) unless they set it themselves."""
    arguments = list(snakemake_args)
    if any("served_requests" in str(argument) for argument in arguments):
        return arguments
    limit = f"served_requests={concurrency}"
    for index, argument in enumerate(arguments):
        if argument in ("--resources", "--res"):  # a second --resources would replace the first's values
            return [*arguments[: index + 1], limit, *arguments[index + 1 :]]
    return [*arguments, "--resources", limit]


def add_usage(directory: str | Path, record: dict) -> dict:
    """``record`` with the usage the run's served jobs wrote (``results/served/*.json``):
    per job its requests, those sent in this run, the tokens the server reported, and the
    warnings (a fingerprint that changed during the run)."""
    folder = Path(directory) / USAGE_FOLDER
    jobs, warnings = {}, []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            usage = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise InputError(path, f"not a usage file natcomp wrote: {error}") from None
        jobs[path.stem] = {
            key: usage.get(key)
            for key in ("requests", "sent", "from_cache", "prompt_tokens", "completion_tokens", "fingerprints")
        }
        warnings += [f"{path.stem}: {warning}" for warning in usage.get("warnings") or []]
    served = {**record.get("served", {}), "usage": jobs}
    if warnings:
        served["warnings"] = warnings
    return {**record, "served": served}


def served_page_text(served: Mapping) -> tuple[str, list[str]]:
    """What the profile page says of a served model (one sentence), and its warnings."""
    revision = (
        f"fingerprint {served['fingerprint']}"
        if served.get("fingerprint")
        else f"served as {served['served_as']}"
        if served.get("served_as")
        else "no fingerprint or revision"
    )
    usage = served.get("usage") or {}
    requests = sum(int(job.get("requests") or 0) for job in usage.values())
    tokens = [sum(int(job.get(name) or 0) for job in usage.values()) for name in ("prompt_tokens", "completion_tokens")]
    counted = (
        f" {requests:,} requests, {tokens[0]:,} prompt and {tokens[1]:,} output tokens as the server reported them."
        if usage
        else ""
    )
    text = (
        f"by {served.get('server', 'an OpenAI-compatible server')} at {served.get('api_base')}, model "
        f"{served.get('model')}, {revision}; greedy, every sampling parameter sent. A served model is not "
        "bit-reproducible: the same id may be other weights, another dtype or engine later (a hosted model's "
        "provider changes it without notice; its fingerprint says when the backend changed)." + counted
    )
    return text, list(served.get("warnings") or [])

"""The pretrained systems of ``mt.systems``: what kind each is and what decodes it.

A translation model (Marian, M2M100, NLLB-200) decodes with
:class:`natcomp.mt.hf_translation.HFTranslator`; a decoder-only language model (family
``causal``) translates by prompting with
:class:`natcomp.mt.prompted_translation.PromptedTranslator`, or, behind an API (an entry
with ``api_base``), with :class:`natcomp.mt.served_translation.ServedTranslator`. All give ``translate``,
``translate_nbest`` and a ``signature``, so the cache, the scorers, BLEU and the synonym
probes treat them alike.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.tsv import read_tsv, write_tsv

__all__ = [
    "GENERATION_COLUMNS",
    "STATUSES",
    "configured_family",
    "gather_generation_counts",
    "generation_counts",
    "is_causal",
    "is_served",
    "nbest_translator",
    "system_entry",
    "system_translator",
    "translate_system_probes",
    "write_generation_counts",
]

#: what became of a decoded sentence: a translation, an empty answer, or one cut off by the
#: token limit before it ended
STATUSES = ("ok", "empty", "cut_off")
#: the columns of a system's generation.tsv: per translation set, distinct sentences and
#: how many answers were empty or cut off (empty for a system that does not record it)
GENERATION_COLUMNS = ("system", "set", "sentences", "empty", "cut_off")


def configured_family(system: Mapping, key: str = "model") -> str:
    """A system's family: as configured, or for ``auto`` read from the model's config.json
    when it is here (a folder, a cached Hub id, an adapter's base); ``auto`` when it is not yet (a folder the
    workflow writes), in which case the model must be a translation model or the entry
    must say ``family: causal``."""
    family = system.get("family") or "auto"
    if family != "auto":
        return family
    if system.get("api_base"):  # a model behind an API: a causal LM prompted to translate
        return "causal"
    from natcomp.model_description import model_file

    # a folder's, a shipped or cached model's, an adapter's base's (natcomp.adapters)
    path = model_file(str(system["model"]), "config.json")
    if path is None:
        return "auto"
    from natcomp.hf.kinds import is_causal_lm_config

    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(key, f"cannot read {path}: {error}") from None
    return "causal" if is_causal_lm_config(config) else "auto"


#: the keys of a causal system that default to mt.prompting's
PROMPTING_KEYS = ("prompt", "few_shot", "chat_template", "decoding")


def system_entry(mt: Mapping, name: str) -> dict:
    """The settings of system ``name``: its ``mt.systems`` entry, and for a causal LM the
    prompting settings of ``mt.prompting`` wherever the entry leaves them null (few-shot
    key by key)."""
    system = dict(mt["systems"][name])
    if not is_causal(system, f"mt.systems.{name}.model"):
        return system
    from natcomp.mt.prompting import DEFAULT_PROMPTING

    prompting = {**DEFAULT_PROMPTING, **(mt.get("prompting") or {})}
    for key in PROMPTING_KEYS:
        if key == "few_shot":
            given = {k: v for k, v in (system.get("few_shot") or {}).items() if v is not None}
            system["few_shot"] = {**DEFAULT_PROMPTING["few_shot"], **(prompting.get("few_shot") or {}), **given}
        elif system.get(key) is None:
            system[key] = prompting[key]
    return system


def is_served(system: Mapping) -> bool:
    """Whether a system is a causal LM behind an OpenAI-compatible API (it names an ``api_base``)."""
    return bool(isinstance(system, Mapping) and system.get("api_base"))


def is_causal(system: Mapping, key: str = "model") -> bool:
    """Whether a system is a causal LM prompted to translate."""
    return configured_family(system, key) == "causal"


def system_translator(
    system: Mapping,
    *,
    source_lang: str,
    target_lang: str,
    key: str,
    threads: int = 1,
    nbest: int = 1,
    examples: Sequence = (),
    cache_dir: str | Path | None = None,
    served: Mapping | None = None,
    concurrency: int | None = None,
):
    """The translator of one ``mt.systems`` section (``key``: its config key), keeping
    ``nbest`` hypotheses; ``examples``: a causal system's few-shot examples. A served
    system (an ``api_base``) caches its answers in ``cache_dir`` and sends its requests
    with the settings ``served`` (the config's ``served`` section), ``concurrency`` at a time."""
    if is_served(system):
        from natcomp.mt.served_translation import ServedTranslator
        from natcomp.served import RequestSettings

        if cache_dir is None:
            raise ValueError("a served system caches its answers: give cache_dir")
        return ServedTranslator.for_system(
            system,
            cache_dir,
            source_lang=source_lang,
            target_lang=target_lang,
            key=key,
            examples=examples,
            nbest=nbest,
            request_settings=RequestSettings.from_config(served),
            concurrency=concurrency,
        )
    if is_causal(system, f"{key}.model"):
        from natcomp.mt.prompted_translation import PromptedTranslator

        return PromptedTranslator.for_system(
            system,
            source_lang=source_lang,
            target_lang=target_lang,
            key=key,
            examples=examples,
            nbest=nbest,
            threads=threads,
        )
    from natcomp.mt.hf_translation import HFTranslator

    return HFTranslator.for_system(
        system, source_lang=source_lang, target_lang=target_lang, key=f"{key}.model", nbest=nbest, threads=threads
    )


def nbest_translator(translator, system: Mapping, nbest: int, **options):
    """The translator of ``system`` keeping ``nbest`` hypotheses (the synonym probes'),
    beside its one-best ``translator`` from :func:`system_translator` (``options``: that
    call's keyword arguments): a loaded model (Hugging Face seq2seq, or a causal LM
    prompted) is shared, not loaded again; a served system gets a client of its own."""
    if is_served(system):
        return system_translator(system, nbest=nbest, **options)
    return translator.with_nbest(nbest)


def translate_system_probes(
    translator,
    system: Mapping,
    name: str,
    nbest: int,
    pairs: Sequence,
    templates: Sequence[str],
    output: str | Path,
    *,
    usage: str | Path,
    **options,
):
    """Decode a system's synonym probe sentences (``pairs`` put into ``templates``) with the
    ``nbest`` best hypotheses of :func:`nbest_translator` (``options``: the keyword
    arguments of :func:`system_translator`, ``cache_dir`` among them), through the model's
    cache under the n-best decode signature, and write them to ``output``. A served
    system's probes are requests of a client of their own: their count and tokens go to
    ``usage``, as the one-best translations' go to theirs. Returns the decode signature
    and the :class:`~natcomp.mt.translation_cache.DecodeStats`."""
    from natcomp.mt.served_translation import ServedTranslator
    from natcomp.mt.synonym_probes import translate_probe_sentences
    from natcomp.mt.translation_cache import TranslationCache

    probe_translator = nbest_translator(translator, system, nbest, **options)
    stats = translate_probe_sentences(
        pairs,
        templates,
        TranslationCache(options["cache_dir"], probe_translator.signature),
        lambda batch: probe_translator.translate_nbest(batch, nbest),
        output,
        {"system": name, "size": "", "seed": ""},
    )
    if isinstance(probe_translator, ServedTranslator):
        probe_translator.model.write_usage(usage)
    return probe_translator.signature, stats


def generation_counts(
    system: str, sets: Mapping[str, Sequence[str]], translations: Mapping[str, str], statuses: Mapping[str, str] | None
) -> list[dict]:
    """Per translation set: its distinct sentences, the empty answers and (where the
    system records it: ``statuses``) those cut off by the token limit."""
    rows = []
    for name, sources in sets.items():
        distinct = list(dict.fromkeys(sources))
        if statuses is None:
            counts = Counter("empty" if not translations[s].strip() else "ok" for s in distinct)
        else:
            counts = Counter(statuses[s] for s in distinct)
        rows.append(
            {
                "system": system,
                "set": name,
                "sentences": len(distinct),
                "empty": counts["empty"],
                "cut_off": counts["cut_off"] if statuses is not None else "",
            }
        )
    return rows


def write_generation_counts(path: str | Path, rows: Iterable[Mapping]) -> int:
    return write_tsv(path, rows, GENERATION_COLUMNS)


def gather_generation_counts(paths: Sequence[str | Path], output: str | Path) -> int:
    """The systems' generation.tsv files as one table (``results/tables/mt/generation.tsv``)."""
    rows = [row for path in paths for row in read_tsv(path, GENERATION_COLUMNS).to_dict("records")]
    return write_generation_counts(output, rows)

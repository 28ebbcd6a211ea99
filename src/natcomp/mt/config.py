"""Checks of the MT config section that its schema cannot express.

They run when the workflow is parsed, before any job, so a config that could only fail
after hours of preprocessing or training (a mistyped fairseq option, ``max-epoch`` below
the last kept epoch) stops the dry run with one line naming the key.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from natcomp.errors import ConfigError, InputError
from natcomp.mt import registry
from natcomp.mt.languages import (
    SOURCE_LANGUAGE,
    Language,
    check_idiom_names,
    check_source_language,
    target_language,
)
from natcomp.runs import workflow_built

log = logging.getLogger(__name__)

#: the target language of the demo corpus (natcomp.mt.demo_corpus writes English-Dutch)
DEMO_TARGET = "nl"
#: where the demo corpus's release archives are written (mt_demo_corpus)
DEMO_RELEASES = "results/mt/demo/releases/"


def pair_languages(mt: Mapping) -> tuple[Language, Language]:
    """The run's source (English) and target language, from their resource files."""
    return (
        check_source_language(mt.get("source_lang", SOURCE_LANGUAGE)),
        target_language(mt.get("target_lang", DEMO_TARGET)),
    )


#: what a system's name and model may name, filled in from the run's pair: the ISO 639-1
#: codes of mt.source_lang and mt.target_lang (``Helsinki-NLP/opus-mt-en-{target}``)
PAIR_FIELDS = ("source", "target")
#: the ``auto`` value of the keys whose paper choice holds for Dutch only
AUTO = "auto"


def _fill_pair(text: str, codes: Mapping[str, str], key: str) -> str:
    """``text`` with ``{source}`` and ``{target}`` replaced by the pair's codes; any other
    ``{field}`` is a one-line :class:`ConfigError` naming ``key``."""
    import string

    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError as error:
        raise ConfigError(key, f"{text!r}: {error}; expected {{source}} or {{target}} in braces") from None
    unknown = [field for field in fields if field not in PAIR_FIELDS]
    if unknown:
        raise ConfigError(key, f"{text!r} names {{{unknown[0]}}}; expected only {{source}} or {{target}}")
    return text.format(**codes) if fields else text


def derive_pair_settings(mt: Mapping) -> tuple[dict, list[str]]:
    """The ``mt`` section with what the pair decides filled in, and one line per derived
    value for the plan.

    A paper config names the choices that hold for any pair once: each system's name and
    model may name ``{source}`` and ``{target}`` (``opus-mt-en-{target}``:
    ``Helsinki-NLP/opus-mt-en-{target}`` is ``opus-mt-en-de`` in a German run);
    ``mt.synonyms.candidates: auto`` is ``shipped`` where the target language has shipped
    lists (Dutch, ``resources/synonyms.tsv``), else ``probes``; ``mt.tests.keyword_matching:
    auto`` is ``substring`` (the original code's rule, Table 8) where the target language's
    keyword lists are the paper's, else ``inflected`` (the drafted lists are written for
    the language's own matching). The lines also give the Tatoeba pair folder, which side
    is English and its download, where the config leaves them to the pair. A section
    without any of these comes back as it is (a copy), with no lines."""
    import copy

    source, target = pair_languages(mt)
    derived, lines = copy.deepcopy(dict(mt)), []
    codes = {"source": source.code, "target": target.code}
    systems, given = {}, {}
    for name, system in (mt.get("systems") or {}).items():
        filled = _fill_pair(name, codes, f"mt.systems.{name}")
        entry = dict(system)
        if isinstance(entry.get("model"), str):
            entry["model"] = _fill_pair(entry["model"], codes, f"mt.systems.{name}.model")
        if filled in systems:
            raise ConfigError(
                f"mt.systems.{name}", f"is {filled} in this pair, as mt.systems.{given[filled]} is: rename one"
            )
        given[filled] = name
        if filled != name or entry.get("model") != system.get("model"):
            lines.append(f"mt.systems.{name}: {filled}, model {entry['model']}")
        systems[filled] = entry
    if "systems" in derived:
        derived["systems"] = systems
    synonyms = derived.get("synonyms")
    if isinstance(synonyms, dict) and synonyms.get("candidates") == AUTO:
        synonyms["candidates"] = "shipped" if target.code == DEMO_TARGET else "probes"
        why = "the shipped lists are Dutch" if target.code != DEMO_TARGET else "the original study's checked lists"
        lines.append(f"mt.synonyms.candidates auto: {synonyms['candidates']} ({why})")
    tests = derived.get("tests")
    if isinstance(tests, dict) and tests.get("keyword_matching") == AUTO:
        paper_lists = target.idiom_keywords is not None and target.idiom_keywords.source == "paper"
        tests["keyword_matching"] = "substring" if paper_lists else "inflected"
        why = (
            "the original code's rule on the paper's lists"
            if paper_lists
            else f"the {target.name} keyword lists are drafted for its own matching"
        )
        lines.append(f"mt.tests.keyword_matching auto: {tests['keyword_matching']} ({why})")
    if (
        isinstance(tests, dict)
        and tests.get("items") == "released"
        and tests.get("paraphrase_references_only")
        and target.code != DEMO_TARGET
    ):
        # The paper's choice cannot hold here: the released natural items' references are
        # Dutch, and cannot tell a paraphrase of the idiom in another language.
        tests["paraphrase_references_only"] = False
        lines.append(
            "mt.tests.paraphrase_references_only: false (the released natural items' references are Dutch: "
            "every natural item is scored)"
        )
    if lines and not mt.get("tatoeba_pair"):
        from natcomp.download import download_entry
        from natcomp.mt.releases import tatoeba_sides

        side = tatoeba_sides(source.iso639_3, target.iso639_3)[0]
        entry = (mt.get("downloads") or {}).get("tatoeba")
        url = f", download {download_entry(entry, {'pair': target.tatoeba_pair})[0]}" if entry else ""
        lines.insert(0, f"Tatoeba pair {target.tatoeba_pair} ({source.name} on its .{side} side){url}")
    return derived, [f"{target.name} ({target.code}): {line}" for line in lines]


def tatoeba_pair(mt: Mapping) -> str:
    """The Tatoeba pair folder of the run (``deu-eng``): ``mt.tatoeba_pair`` when given,
    else the target language's."""
    return mt.get("tatoeba_pair") or pair_languages(mt)[1].tatoeba_pair


def flores_langs(mt: Mapping) -> list[str]:
    """The FLORES-101 file names of source and target (``[eng, deu]``): ``mt.flores_langs``
    when given, else the languages' ISO 639-3 codes."""
    return list(mt.get("flores_langs") or [language.iso639_3 for language in pair_languages(mt)])


def download_fields(mt: Mapping) -> dict[str, str]:
    """What a download URL of the MT section may name: ``{pair}``, the Tatoeba pair."""
    return {"pair": tatoeba_pair(mt)}


def check_languages(mt: Mapping) -> None:
    """The pair: English source, a target language with a resource file, and the Tatoeba
    pair and FLORES names (when given) of that pair; the target's idiom keyword lists name
    only idioms of the resources."""
    source, target = pair_languages(mt)
    given_pair = mt.get("tatoeba_pair")
    if given_pair and given_pair != target.tatoeba_pair:
        raise ConfigError(
            "mt.tatoeba_pair",
            f"{given_pair} is not the pair of mt.source_lang {source.code} and mt.target_lang {target.code} "
            f"({target.tatoeba_pair}); leave it out to derive it",
        )
    given_langs = mt.get("flores_langs")
    expected = [source.iso639_3, target.iso639_3]
    if given_langs and list(given_langs) != expected:
        raise ConfigError(
            "mt.flores_langs",
            f"{list(given_langs)} are not the FLORES-101 names of {source.code}-{target.code} ({expected}); "
            "leave it out to derive it",
        )
    tatoeba = (mt.get("downloads") or {}).get("tatoeba") or {}
    checksums = tatoeba.get("sha256")
    if isinstance(checksums, Mapping) and checksums.get(target.tatoeba_pair, "absent") == "absent":
        raise ConfigError(
            "mt.downloads.tatoeba.sha256",
            f"has no entry for {target.tatoeba_pair}; add its checksum (or null, recorded in the download's log)",
        )
    if target.idiom_keywords is not None:
        from natcomp.mt.lexicon import load_idioms
        from natcomp.shipped import resource_path

        try:
            check_idiom_names(target, [idiom.idiom for idiom in load_idioms(resource_path("idioms.tsv"))])
        except InputError as error:
            raise ConfigError("mt.target_lang", str(error)) from None
    _check_demo_corpus(mt, target)


def uses_demo_corpus(mt: Mapping) -> bool:
    """Whether the run's corpus is the demo's (its downloads are the archives mt_demo_corpus writes)."""
    urls = [str(entry.get("url", "")) for entry in (mt.get("downloads") or {}).values() if isinstance(entry, Mapping)]
    return any(url.startswith("file:") and DEMO_RELEASES in url for url in urls)


def _target_side_needs(mt: Mapping) -> list[tuple[str, str]]:
    """(key, why) for each part of the run that reads target-side text of the corpus."""
    from natcomp.mt.systems import system_entry

    needs = []
    if mt["train"].get("enabled", True):
        needs.append(("mt.train.enabled", "training reads the target side; set it to false"))
    if (mt.get("bleu") or {}).get("splits", ["dev", "devtest"]):
        needs.append(("mt.bleu.splits", "BLEU needs references; set it to []"))
    data_types = (mt.get("tests") or {}).get("data_types") or {}
    natural = [test for test in registry.TESTS if "natural" in data_types.get(test, registry.TESTS[test].data_types)]
    if natural:
        needs.append(
            (
                f"mt.tests.data_types.{natural[0]}",
                "natural items come from the corpus; give the test's data types without natural",
            )
        )
    for name, system in (mt.get("systems") or {}).items():
        if system.get("family", "auto") in ("auto", "causal") and _is_causal(system, name):
            if system_entry(mt, name)["few_shot"]["k"]:
                needs.append((f"mt.systems.{name}.few_shot.k", "few-shot examples are corpus pairs; set it to 0"))
    if (mt.get("synonyms") or {}).get("candidates", AUTO) not in ("probes", AUTO):
        needs.append(("mt.synonyms.candidates", "the shipped lists are Dutch; use probes (or auto)"))
    return needs


def _is_causal(system: Mapping, name: str) -> bool:
    from natcomp.mt.systems import is_causal

    try:
        return is_causal(system, f"mt.systems.{name}.model")
    except ConfigError:
        return False


def _check_demo_corpus(mt: Mapping, target: Language) -> None:
    """The demo corpus is English-Dutch: a run into another language at demo scale reads
    its English side only (see :func:`english_side_only`)."""
    if target.code == DEMO_TARGET or not uses_demo_corpus(mt):
        return
    needs = _target_side_needs(mt)
    if needs:
        key, why = needs[0]
        raise ConfigError(
            key,
            f"the demo corpus is English-Dutch: a {target.name} run at demo scale has no {target.name} side "
            f"(mt.target_lang {target.code}); {why}",
        )


def english_side_only(mt: Mapping) -> dict:
    """A copy of the ``mt`` section that reads no target-side text of the corpus: no
    training, no BLEU, no natural items, no few-shot examples and the probes' synonym
    candidates. A run into a language other than Dutch at demo scale needs it (the demo
    corpus is English-Dutch); :func:`missing_at_demo_scale` says what it leaves out."""
    import copy

    adapted = copy.deepcopy(dict(mt))
    # the demo releases' names are the demo corpus's pair (eng-nld), which no job reads here
    adapted.pop("tatoeba_pair", None)
    adapted.pop("flores_langs", None)
    adapted["train"] = {**adapted.get("train", {}), "enabled": False}
    adapted["bleu"] = {**adapted.get("bleu", {}), "splits": []}
    tests = adapted.setdefault("tests", {})
    data_types = dict(tests.get("data_types") or {})
    for name, test in registry.TESTS.items():
        kept = [d for d in data_types.get(name, test.data_types) if d != "natural"]
        data_types[name] = kept
    tests["data_types"] = data_types
    for name, system in (adapted.get("systems") or {}).items():
        if system.get("family", "auto") in ("auto", "causal") and _is_causal(system, name):
            system["few_shot"] = {**(system.get("few_shot") or {}), "k": 0}
    adapted["synonyms"] = {**adapted.get("synonyms", {}), "candidates": "probes"}
    adapted["synonyms"].pop("checked_sheet", None)
    return adapted


def missing_at_demo_scale(mt: Mapping) -> list[str]:
    """What a run into a language other than Dutch leaves out at demo scale (none for
    Dutch, or a corpus of the pair): one line each, for tables and plans."""
    target = target_language(mt.get("target_lang", DEMO_TARGET))
    if target.code == DEMO_TARGET or not uses_demo_corpus(mt):
        return []
    name = target.name
    return [
        f"the trained models (no {name} side of the demo corpus to train on)",
        f"BLEU (no {name} references)",
        f"natural items (no {name} side of the corpus)",
        f"few-shot examples of causal systems (no {name} side of the corpus)",
        "the shipped synonym lists (Dutch): candidates from probes",
    ]


def check_mt_config(mt: Mapping, cache_dir: str | Path | None = None) -> None:
    """Raise :class:`ConfigError` for the first cross-key problem of the ``mt`` section.

    fairseq's own parser checks ``train.fairseq`` (see :func:`natcomp.mt.nmt.check_fairseq_options`);
    a passing set of options is remembered in ``cache_dir``, so only the first dry run of a
    config pays fairseq's import. Where fairseq is not installed (per-rule conda envs),
    the training job makes the same check before it touches the model's folder. The
    section is checked as :func:`derive_pair_settings` fills it in for its pair.
    """
    mt = derive_pair_settings(mt)[0]
    check_languages(mt)
    sizes = list(mt["sizes"])
    epochs = mt["train"]["epoch_checkpoints"]
    missing = [size for size in sizes if size not in epochs]
    if missing:
        raise ConfigError(
            "mt.train.epoch_checkpoints",
            f"no entry for corpus size(s) {missing}; expected one list of epochs for each of mt.sizes "
            f"({', '.join(sizes)})",
        )
    try:
        registry.check_data_types(mt["tests"]["data_types"])
    except ValueError as error:
        raise ConfigError("mt.tests.data_types", str(error)) from None

    synonyms = mt.get("synonyms", {})
    beam = mt.get("translate", {}).get("beam", 5)
    if synonyms.get("nbest", 5) > beam:
        raise ConfigError(
            "mt.synonyms.nbest", f"{synonyms['nbest']} hypotheses cannot come from a beam of {beam} (mt.translate.beam)"
        )
    target = target_language(mt.get("target_lang", "nl"))
    if target.code != DEMO_TARGET and synonyms.get("candidates", "shipped") == "shipped":
        raise ConfigError(
            "mt.synonyms.candidates",
            f"shipped: the shipped synonym lists (resources/synonyms.tsv) are Dutch; a {target.name} run uses "
            "probes (auto chooses them)",
        )
    if synonyms.get("checked_sheet") and synonyms.get("candidates", "shipped") != "probes":
        raise ConfigError(
            "mt.synonyms.checked_sheet", "a checked sheet is only read with mt.synonyms.candidates: probes"
        )
    for template in synonyms.get("probe_templates", []):
        if template.count("{term}") != 1:
            raise ConfigError("mt.synonyms.probe_templates", f"{template!r} must contain {{term}} exactly once")
    _check_released_items(mt)

    check_systems(mt)
    options = mt["train"]["fairseq"]
    from natcomp.mt.nmt import WORKFLOW_FAIRSEQ_OPTION_HINTS

    for name, hint in WORKFLOW_FAIRSEQ_OPTION_HINTS.items():
        if name in options:
            raise ConfigError(f"mt.train.fairseq.{name}", hint)
    _check_precision_and_batch(mt)
    per_size = mt["train"].get("max_epoch", {})
    if per_size and options.get("max-epoch"):
        raise ConfigError("mt.train.max_epoch", "set the last epoch here per size or in fairseq.max-epoch, not both")
    for size in per_size:
        if size not in sizes:
            raise ConfigError(f"mt.train.max_epoch.{size}", f"is not a corpus size of mt.sizes ({', '.join(sizes)})")
    for size in sizes:
        max_epoch = int(size_fairseq_options(mt, size).get("max-epoch") or 0)
        key = f"mt.train.max_epoch.{size}" if size in per_size else "mt.train.fairseq.max-epoch"
        if max_epoch and epochs[size] and max(epochs[size]) > max_epoch:
            raise ConfigError(
                key,
                f"{max_epoch} is below the last kept epoch checkpoint of size {size} "
                f"(mt.train.epoch_checkpoints.{size} ends at {max(epochs[size])}); that checkpoint could never exist",
            )
    _check_fairseq_options_cached({**options, **selection_options(mt)}, cache_dir)


def _check_released_items(mt: Mapping) -> None:
    """``tests.items: released`` needs the release's archive (``downloads.released_tests``);
    its natural references are Dutch, so another target language scores every natural item
    (:func:`derive_pair_settings`)."""
    tests = mt.get("tests", {})
    if tests.get("items", "generated") != "released":
        return
    from natcomp.mt.released_items import RELEASE_URL

    if "released_tests" not in (mt.get("downloads") or {}):
        raise ConfigError(
            "mt.downloads.released_tests",
            f"is needed by mt.tests.items: released; e.g. {{url: {RELEASE_URL}, sha256: null}}",
        )


def _check_precision_and_batch(mt: Mapping) -> None:
    """bf16 training is refused (fairseq 0.12 turns ``--bf16`` into TPU mode), and a
    fixed micro-batch above the tokens per update would only pad."""
    train = mt["train"]
    if train.get("precision", "fp32") == "bf16":
        raise ConfigError(
            "mt.train.precision",
            "bf16 is not supported: fairseq 0.12 turns --bf16 into TPU mode; use fp16 (GPU) or fp32",
        )
    max_tokens, tokens_per_update = train.get("max_tokens", "auto"), train.get("tokens_per_update", 28672)
    if max_tokens != "auto" and max_tokens > tokens_per_update:
        raise ConfigError(
            "mt.train.max_tokens",
            f"{max_tokens} tokens per micro-batch is above mt.train.tokens_per_update ({tokens_per_update})",
        )


def selection_options(mt: Mapping) -> dict:
    """The fairseq-train options that choose ``checkpoint_best.pt`` and stop early, from
    ``train.select_by``.

    ``bleu`` (footnote 9: "Convergence is based on BLEU scores for validation data";
    appendix E.2: patience 10, "take the best checkpoint"): fairseq's own validation BLEU
    after every epoch, decoded as the tests decode (``translate.beam``, ``max_len_a``,
    ``max_len_b``), BPE removed, Moses-detokenised in the target language and scored by
    sacrebleu (the target language's tokeniser, 13a), as the FLORES BLEU of the trained models; fairseq's patience follows
    the same metric. ``loss``: fairseq's default, the validation loss (no options)."""
    if mt["train"].get("select_by", "bleu") == "loss":
        return {}
    from natcomp.mt.preprocess import BPE_SEPARATOR

    translate = mt.get("translate", {})
    decode = {
        "beam": translate.get("beam", 5),
        "max_len_a": translate.get("max_len_a", 0),
        "max_len_b": translate.get("max_len_b", 200),
    }
    from natcomp.mt.preprocess import moses_language

    # the Moses languages of the pair's resource files (nl: nl), as the tests detokenise
    languages = {
        "source_lang": moses_language(mt.get("source_lang", "en")),
        "target_lang": moses_language(mt.get("target_lang", "nl")),
    }
    return {
        "eval-bleu": True,
        "eval-bleu-args": json.dumps(decode),
        "eval-bleu-detok": "moses",
        "eval-bleu-detok-args": json.dumps(languages),
        "eval-bleu-remove-bpe": BPE_SEPARATOR + " ",
        "best-checkpoint-metric": "bleu",
        "maximize-best-checkpoint-metric": True,
    }


def size_fairseq_options(mt: Mapping, size: str) -> dict:
    """The fairseq-train options of one corpus size's models, in a fixed order (so that
    reordering the config retrains nothing): ``train.fairseq``, the checkpoint selection
    of :func:`selection_options` and that size's ``train.max_epoch`` as ``max-epoch``.
    All of them are in the training's resume fingerprint: a changed selection or
    validation decode trains afresh."""
    options = {**mt["train"]["fairseq"], **selection_options(mt)}
    max_epoch = mt["train"].get("max_epoch", {}).get(size)
    if max_epoch is not None:
        options["max-epoch"] = max_epoch
    return dict(sorted(options.items()))


def _check_fairseq_options_cached(options: Mapping, cache_dir: str | Path | None) -> None:
    fairseq_version = _installed_version("fairseq-fixed", "fairseq")
    if fairseq_version is None:
        log.warning("fairseq is not installed here: its options are checked when training starts")
        return
    key = json.dumps({"fairseq": fairseq_version, "options": dict(options)}, sort_keys=True, default=str)
    stamp = (
        Path(cache_dir) / f"fairseq-options-{hashlib.sha256(key.encode()).hexdigest()[:16]}.ok" if cache_dir else None
    )
    if stamp is not None and stamp.exists():
        return
    from natcomp.mt.nmt import check_fairseq_options

    # Importing fairseq configures the root logger (Snakemake's log lines would then
    # appear twice) and logs notes about optional packages: both are undone.
    handlers, level = list(logging.root.handlers), logging.root.level
    fairseq_logger = logging.getLogger("fairseq")
    fairseq_level = fairseq_logger.level
    fairseq_logger.setLevel(logging.WARNING)
    try:
        check_fairseq_options(options)
    finally:
        logging.root.handlers[:] = handlers
        logging.root.setLevel(level)
        fairseq_logger.setLevel(fairseq_level)
    if stamp is not None:
        from natcomp.files import atomic_open

        stamp.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(stamp) as handle:  # two plans at once (parallel tests) write it whole or not at all
            handle.write(key + "\n")


def _installed_version(*distributions: str) -> str | None:
    """The version of the first installed distribution (fairseq ships under two names)."""
    from importlib.metadata import PackageNotFoundError, version

    for name in distributions:
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return None


def check_systems(mt: Mapping) -> None:
    """The pretrained systems (``mt.systems``): names that cannot be mistaken for the
    trained models in tables, language codes their family can use, beams wide enough for
    the synonym probes, and at least one system to test. Whether each model can be
    loaded is checked when a run starts (:func:`check_system_models`), not in a dry run."""
    from natcomp.mt.scoring import TRAINED_SYSTEM

    systems = mt.get("systems") or {}
    if not mt["train"].get("enabled", True) and not systems:
        raise ConfigError("mt.systems", "mt.train.enabled is false and no pretrained system is listed: nothing to test")
    taken = {size: "a corpus size (mt.sizes)" for size in mt["sizes"]}
    taken[TRAINED_SYSTEM] = "the workflow's trained models"
    synonyms = mt.get("synonyms", {})
    for name, system in systems.items():
        key = f"mt.systems.{name}"
        if name in taken:
            raise ConfigError(key, f"the name {name!r} is {taken[name]}; tables would mix them up: rename the system")
        family = system.get("family", "auto")
        if system.get("api_base") and family not in ("auto", "causal"):
            raise ConfigError(
                f"{key}.family",
                f"{family} is a translation model's family; a model behind an API (api_base) is a causal LM "
                "prompted to translate: auto or causal",
            )
        if system.get("api_key_env") and not system.get("api_base"):
            raise ConfigError(f"{key}.api_key_env", "names the key of a server, and the system has no api_base")
        # a causal LM's probes widen the beam to nbest themselves (generation_settings)
        if (
            family != "causal"
            and synonyms.get("candidates") == "probes"
            and synonyms.get("nbest", 5) > system.get("beam", 5)
        ):
            raise ConfigError(
                f"{key}.beam",
                f"{system.get('beam', 5)} is below mt.synonyms.nbest ({synonyms.get('nbest', 5)}): the synonym probes "
                "keep that many hypotheses of the beam",
            )
        _check_causal_options(mt, name, system, family)
        if family not in ("auto", "causal"):
            from natcomp.mt.hf_translation import language_codes

            try:
                language_codes(
                    family, mt["source_lang"], mt["target_lang"], system.get("source_code"), system.get("target_code")
                )
            except ConfigError as error:
                raise ConfigError(key, error.message) from None
        if family != "causal" and not workflow_built(system["model"]):
            from natcomp.mt.hf_translation import check_system_languages

            if family == "auto" and _is_causal(system, name):
                continue
            check_system_languages(
                system["model"],
                family,
                mt["source_lang"],
                mt["target_lang"],
                system.get("source_code"),
                system.get("target_code"),
                f"{key}.model",
            )


def _check_causal_options(mt: Mapping, name: str, system: Mapping, family: str) -> None:
    """A causal system's prompt (its own or ``mt.prompting``'s) is a template and its
    few-shot pool holds no BLEU sentence; a translation model's entry has no prompting
    option (it would be silently ignored)."""
    from natcomp.mt.systems import PROMPTING_KEYS, is_causal, system_entry

    key = f"mt.systems.{name}"  # a name may hold dots (qwen2.5-0.5b-instruct)
    if family not in ("auto", "causal"):
        given = [option for option in PROMPTING_KEYS if system.get(option) is not None]
        if given:
            raise ConfigError(f"{key}.{given[0]}", f"is an option of family causal (a prompted LM), not of {family}")
        if system.get("precision") == "bf16":
            raise ConfigError(f"{key}.precision", "bf16 is for causal LMs; a translation model decodes in fp32 or fp16")
        return
    if not is_causal(system, f"{key}.model"):
        return  # family auto: a translation model, or a folder the workflow has yet to write
    entry = system_entry(mt, name)
    from natcomp.mt.prompting import check_template

    where = key if system.get("prompt") is not None else "mt.prompting"
    check_template(str(entry["prompt"]), f"{where}.prompt")
    few_shot = entry["few_shot"]
    if few_shot["k"] and few_shot["pool"] == "flores_dev" and "dev" in mt["bleu"]["splits"]:
        raise ConfigError(
            f"{key}.few_shot.pool",
            "flores_dev is also a BLEU split (mt.bleu.splits): its examples would be scored; draw from train, "
            "or score devtest only",
        )


def check_system_models(mt: Mapping, names: Iterable[str] | None = None) -> None:
    """Raise :class:`ConfigError` when the model of a pretrained system (of ``names``, else
    every one) cannot be loaded here: not a model folder, not in the local Hugging Face
    cache (with the offline hint), or not on the Hub. Folders the workflow writes
    (``results/...``) are made by their jobs; a served system's URL must be http(s) and its
    key's variable set (the job probes the server)."""
    from natcomp.mt.hf_translation import check_hf_system

    from natcomp.served import served_endpoint

    systems = mt.get("systems") or {}
    for name in systems if names is None else sorted(names):
        system = systems[name]
        served = served_endpoint(system, f"mt.systems.{name}")
        if served is not None:  # behind an API: its URL and key variable now, the server when the job starts
            served.check()
        elif not workflow_built(system["model"]):
            check_hf_system(system["model"], f"mt.systems.{name}.model")

"""A causal LM behind an OpenAI-compatible API as an MT system: prompted translation
through the server (:class:`natcomp.served.ServedModel`).

An ``mt.systems`` entry with an ``api_base`` names a served model (``model`` is the
server's id; ``api_key_env`` the environment variable holding its key). Each source
sentence becomes the same prompt as a causal LM's loaded from weights
(:class:`natcomp.mt.prompting.PromptFormat`), sent to ``/v1/completions``, or with
``chat_template: on`` to ``/v1/chat/completions`` as the user's turn (the server applies
the model's chat template); greedy, every sampling parameter sent; the answer is cut at
the first newline on the client and its first line is the translation, so a served
system and its weights loaded locally give the same translations where the server runs
the same weights in the same dtype (tested on ``transformers serve``).

Beam search, and so n-best lists (the synonym probes), only where the server offers it
(vLLM's ``use_beam_search``); ``natcomp evaluate`` refuses them in its plan elsewhere.

The decode signature names the server, the route, the model id, its revision or
fingerprint, the sampling parameters and everything the prompt depends on::

    served:http://node7:8000/v1|api:completions|model:Qwen/Qwen2.5-7B|rev:-|sampling:t0,p1,n1,seed1,pen0|prompt:5d41402abc4b|shots:0|dec:greedy|maxnew:256|lang:en-nl
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from natcomp.errors import ConfigError
from natcomp.hf.causal import GenerationSettings
from natcomp.mt.prompted_translation import generation_fields
from natcomp.mt.prompting import DEFAULT_PROMPT, PromptFormat, chat_template_mode, check_template, extract_translation
from natcomp.served import RequestSettings, ServedEndpoint, ServedModel, served_endpoint

__all__ = ["ServedTranslator"]


class ServedTranslator:
    """Translation by prompting a served causal LM: :meth:`translate`,
    :meth:`translate_nbest` and :meth:`translate_with_status` as
    :class:`~natcomp.mt.prompted_translation.PromptedTranslator`'s, in input order;
    ``signature`` names the decode, ``model`` is the :class:`ServedModel` (its usage)."""

    def __init__(
        self,
        endpoint: ServedEndpoint,
        cache_dir: str | Path,
        *,
        prompt: PromptFormat,
        settings: GenerationSettings,
        chat_template: str = "off",
        request_settings: RequestSettings = RequestSettings(),
        concurrency: int | None = None,
        key: str = "system",
        nbest: int = 1,
    ):
        self.prompt, self.settings, self.key, self.nbest = prompt, settings, key, nbest
        self.chat = chat_template_mode(chat_template, f"{key}.chat_template") == "on"
        self._tokenizer = None
        if settings.max_len_a is not None:
            self._tokenizer = _local_tokenizer(endpoint.model, f"{key}.max_len_a")
        self.model = ServedModel(
            endpoint,
            cache_dir,
            request_settings,
            chat=self.chat,
            beam=settings.decoding == "beam",
            concurrency=concurrency,
        )
        self.signature = "|".join(
            [
                self.model.signature,
                prompt.signature,
                *generation_fields(settings, nbest),
                f"lang:{prompt.source_lang}-{prompt.target_lang}",
            ]
        )

    @classmethod
    def for_system(
        cls,
        system: Mapping,
        cache_dir: str | Path,
        *,
        source_lang: str,
        target_lang: str,
        key: str,
        examples=(),
        nbest: int = 1,
        request_settings: RequestSettings = RequestSettings(),
        concurrency: int | None = None,
    ) -> ServedTranslator:
        """The translator of a served system's settings (:func:`natcomp.mt.systems.system_entry`)."""
        from natcomp.mt.prompted_translation import generation_settings

        template = check_template(system.get("prompt") or DEFAULT_PROMPT, f"{key}.prompt")
        return cls(
            served_endpoint(system, key),
            cache_dir,
            prompt=PromptFormat(template, source_lang, target_lang, tuple(examples)),
            settings=generation_settings(system, nbest=nbest),
            chat_template="off" if system.get("chat_template") is None else system["chat_template"],
            request_settings=request_settings,
            concurrency=concurrency,
            key=key,
            nbest=nbest,
        )

    def token_limits(self, sources: Sequence[str]) -> list[int]:
        """Each item's token limit: ``max_new_tokens``, and with ``max_len_a`` at most
        ``floor(max_len_a * source tokens + max_len_b)``, the source counted with the
        model's tokenizer (as :meth:`natcomp.hf.causal.CausalGenerator.token_limits`)."""
        settings = self.settings
        if self._tokenizer is None:
            return [settings.max_new_tokens] * len(sources)
        counts = [len(ids) for ids in self._tokenizer(list(sources), add_special_tokens=False)["input_ids"]]
        return [
            max(1, min(settings.max_new_tokens, math.floor(settings.max_len_a * count + settings.max_len_b)))
            for count in counts
        ]

    def translate_with_status(self, sentences: Sequence[str], nbest: int = 1) -> tuple[list[list[str]], list[str]]:
        """Each sentence's ``nbest`` translations and the status of its best one (``ok``,
        ``empty``, or ``cut_off`` by the token limit before the newline)."""
        prompts = [self.prompt.render(sentence) for sentence in sentences]
        limits = self.token_limits(sentences)
        stop = self.settings.stop
        if self.settings.decoding == "beam":
            width = max(self.settings.beam, nbest)
            generations = [answers[:nbest] for answers in self.model.generate_nbest(prompts, width, limits, stop)]
        else:
            if nbest > 1:
                raise ValueError(f"{nbest} best translations need beam decoding")
            generations = [[answer] for answer in self.model.generate(prompts, limits, stop)]
        translations, statuses = [], []
        for answers in generations:
            texts = [extract_translation(answer.text, self.prompt.target_lang) for answer in answers]
            translations.append(texts)
            statuses.append("cut_off" if not answers[0].finished else "empty" if not texts[0] else "ok")
        return translations, statuses

    def translate(self, sentences: Sequence[str]) -> list[str]:
        return [hypotheses[0] for hypotheses in self.translate_with_status(sentences)[0]]

    def translate_nbest(self, sentences: Sequence[str], nbest: int) -> list[list[str]]:
        return self.translate_with_status(sentences, nbest)[0]


def _local_tokenizer(model: str, key: str):
    """The served model's tokenizer where it is here (a folder, a cached Hub id), to count
    a source's tokens; a :class:`ConfigError` naming ``key`` where it is not."""
    from natcomp.model_description import model_file

    if model_file(model, "tokenizer_config.json") is None and model_file(model, "tokenizer.json") is None:
        raise ConfigError(
            key,
            f"limits a translation by its source's tokens, counted with the model's tokenizer, and {model}'s "
            "tokenizer is not here (a folder or the local Hugging Face cache); expected null (max_new_tokens limits it)",
        )
    from natcomp import hf

    return hf.load_tokenizer(model, key)


#: sentences of FLORES-101's splits (Goyal et al. 2022); the demo's stand-in has its own counts
FLORES_SENTENCES = {"dev": 997, "devtest": 1012}
#: the items' columns that are translated
_SOURCE_COLUMNS = ("source", "source_a", "source_b")


def planned_requests(config: Mapping, system_name: str, resources: str | Path = "resources") -> list:
    """What the served system ``system_name`` of the run ``config`` will ask, before any
    job (:class:`natcomp.served.RequestEstimate`): one request per distinct source
    sentence, FLORES's BLEU splits and the test items. The synthetic and random-word items
    are built here from ``resources`` (the shipped lexicon, synonyms and idioms) and
    counted; semi-natural and natural items are made from the corpus by the workflow, so
    they are bounded by the config's numbers and the estimate says "at most"."""
    from natcomp.mt import registry
    from natcomp.mt.item_sets import ItemResources, TestSettings, build_items
    from natcomp.mt.systems import system_entry
    from natcomp.served import RequestEstimate

    mt = config["mt"]
    system = system_entry(mt, system_name)
    tests = mt.get("tests") or {}
    settings = TestSettings.from_config(
        {**tests, "semi_natural_per_template": (mt.get("semi_natural") or {}).get("sentences_per_template", 60)}
    )
    root = Path(resources)
    shipped = ItemResources(root / "lexicon", root / "synonyms.tsv", root / "idioms.tsv")
    sources: dict[str, None] = {}
    bound = 0
    for test, spec in registry.TESTS.items():
        built: dict[str, list[str]] = {}

        def distinct(data_type: str) -> list[str]:
            if data_type not in built:
                rows = build_items(test, data_type, settings, shipped)
                built[data_type] = [row[column] for row in rows for column in _SOURCE_COLUMNS if column in row]
            return built[data_type]

        for data_type in (tests.get("data_types") or {}).get(test, spec.data_types):
            if data_type in ("synthetic", "random_words"):
                sources.update(dict.fromkeys(distinct(data_type)))
            elif data_type == "natural" and test in ("substitutivity", "overgeneralisation"):
                bound += 2 * settings.natural_max_items * _entries(root, test)
            else:  # semi-natural items, natural conjuncts: as many as the synthetic ones, at most
                bound += len(distinct("synthetic"))
    demo = mt.get("demo_corpus") or {}
    demo_flores = any(
        "demo/releases" in str((entry or {}).get("url", "")) for entry in (mt.get("downloads") or {}).values()
    )
    flores = sum(
        int(demo.get(f"flores_{split}_pairs", 0)) if demo_flores else FLORES_SENTENCES[split]
        for split in (mt.get("bleu") or {}).get("splits", [])
    )
    prompt = PromptFormat(
        check_template(system.get("prompt") or DEFAULT_PROMPT, "mt.prompting.prompt"),
        mt["source_lang"],
        mt["target_lang"],
    )
    shots = 1 + int((system.get("few_shot") or {}).get("k", 0))  # an example is about as long as the item's prompt
    samples = tuple(prompt.render(sentence) * shots for sentence in list(sources)[:200]) or (
        prompt.render("a sentence ."),
    )
    return [
        RequestEstimate(
            "mt",
            "translation",
            len(sources) + bound + flores,
            samples,
            int(system.get("max_new_tokens") or 256),
            exact=not bound,
        )
    ]


def _entries(root: Path, test: str) -> int:
    """How many synonym pairs (substitutivity) or idioms (overgeneralisation) the shipped lists hold."""
    from natcomp.mt.lexicon import load_idioms, load_synonyms

    return len(load_synonyms(root / "synonyms.tsv") if test == "substitutivity" else load_idioms(root / "idioms.tsv"))

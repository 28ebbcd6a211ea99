"""Prompts, few-shot examples and answers of a causal LM prompted to translate
(natcomp.mt.prompting), the config checks of a causal system, and the generation counts."""

import copy
import csv
import unicodedata
from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.mt.config import check_systems
from natcomp.mt.items import conjoin, s_conj_items
from natcomp.mt.lexicon import load_lexicon
from natcomp.mt.prompting import (
    DEFAULT_PROMPT,
    DEFAULT_PROMPTING,
    FewShotExample,
    PromptFormat,
    chat_template_mode,
    check_template,
    comparable_text,
    draw_few_shot,
    extract_translation,
    few_shot_examples,
    read_few_shot,
    template_hash,
    usable_pool_lines,
    write_few_shot,
)
from natcomp.mt.systems import (
    configured_family,
    gather_generation_counts,
    generation_counts,
    system_entry,
    write_generation_counts,
)
from natcomp.mt.templates import synthetic_sentences
from natcomp.tsv import read_tsv

REPO = Path(__file__).resolve().parents[2]
DEMO_MT = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["mt"]
SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "mt.yaml").read_text())
RELEASED_NATURAL = REPO.parent / "shared" / "data" / "paradox_mt" / "released_natural"


def test_default_prompt_names_both_languages_and_the_schema_and_configs_say_the_same():
    assert PromptFormat().render("The cat sleeps .") == "English: The cat sleeps .\nDutch:"
    schema = {key: value["default"] for key, value in SCHEMA["properties"]["prompting"]["properties"].items()}
    schema["few_shot"] = {
        k: v["default"] for k, v in SCHEMA["properties"]["prompting"]["properties"]["few_shot"]["properties"].items()
    }
    assert schema == DEFAULT_PROMPTING
    assert DEMO_MT["prompting"] == DEFAULT_PROMPTING and DEFAULT_PROMPTING["prompt"] == DEFAULT_PROMPT


def test_few_shot_examples_come_first_with_their_targets_and_a_blank_line_between():
    examples = (FewShotExample(4, "a dog", "een hond"), FewShotExample(1, "a cat", "een kat"))
    prompt = PromptFormat("Q {source_language}>{target_language}: {source}\nA:", "en", "de", examples)
    assert (
        prompt.render("a bird")
        == "Q English>German: a dog\nA: een hond\n\nQ English>German: a cat\nA: een kat\n\nQ English>German: a bird\nA:"
    )
    assert prompt.signature == f"prompt:{template_hash(prompt.template)}|shots:4,1"
    assert PromptFormat().signature.endswith("|shots:-")


def test_a_training_pair_is_the_prompt_and_the_target_ending_in_the_stop_newline():
    prompt, completion = PromptFormat().training_pair("a cat", "een kat")
    assert (prompt, completion) == ("English: a cat\nDutch:", " een kat\n")


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{source} and {source}", "exactly once, not 2 times"),
        ("English: text\nDutch:", "exactly once, not 0 times"),
        ("{src}\nDutch:", "unknown field"),
        ("{source!r}", "no format spec"),
        ("{source:>9}", "no format spec"),
        ("{source} {", "not a prompt template"),
    ],
)
def test_a_template_that_cannot_make_prompts_is_refused_naming_the_key(template, message):
    with pytest.raises(ConfigError, match=rf"config mt\.systems\.x\.prompt: .*{message}"):
        check_template(template, "mt.systems.x.prompt")


def test_a_literal_brace_is_allowed():
    assert PromptFormat("{{json}} {source}").render("s") == "{json} s"


def test_few_shot_draw_is_seeded_skips_test_items_and_keeps_pool_lines():
    sources = [f"sentence {i}" for i in range(20)]
    targets = [f"zin {i}" for i in range(20)]
    excluded = {f"sentence {i}" for i in range(0, 20, 2)}
    first = draw_few_shot(sources, targets, 3, seed=7, exclude=excluded)
    assert first == draw_few_shot(sources, targets, 3, seed=7, exclude=excluded)
    assert first != draw_few_shot(sources, targets, 3, seed=8, exclude=excluded)
    assert all(e.source not in excluded and e.line % 2 == 1 for e in first)
    assert all(sources[e.line] == e.source and targets[e.line] == e.target for e in first)
    assert draw_few_shot(sources, targets, 0, seed=7) == ()


def test_few_shot_pool_too_small_or_uneven_is_a_config_error():
    with pytest.raises(ConfigError, match="has 1 usable example pairs .* 2 are asked for"):
        draw_few_shot(["a", "b", ""], ["x", "y", "z"], 2, seed=1, exclude={"a"}, pool_name="mt.systems.x.few_shot.pool")
    with pytest.raises(ConfigError, match="2 source lines but 1 target lines"):
        draw_few_shot(["a", "b"], ["x"], 1, seed=1)


def _usable(sources, exclude):
    """The usable lines of a pool with these sources (and non-empty targets)."""
    return usable_pool_lines(sources, [f"t{i}" for i in range(len(sources))], exclude)


def test_a_pool_line_equal_to_a_test_item_but_for_case_whitespace_or_unicode_form_is_excluded():
    item = "The café in Zürich opens at nine."
    pool = [
        "the café in Zürich opens at nine.",  # first letter lowercased
        "  The café  in Zürich\topens at nine.  ",  # stripped and spaced differently
        unicodedata.normalize("NFD", item),  # é and ü decomposed
        "The ｃafé in Zürich opens at nine.",  # a full-width c (NFKC)
        "THE CAFÉ IN ZÜRICH OPENS AT NINE",  # upper case, no final period
        "The café in Zürich opens at ten.",
        "The cafe in Zurich opens at nine.",
    ]
    assert _usable(pool, {item}) == [5, 6], "the last two are other sentences"
    assert comparable_text(item) == "the café in zürich opens at nine"
    with pytest.raises(ConfigError, match="has 2 usable example pairs"):
        draw_few_shot(pool, [f"t{i}" for i in range(len(pool))], 3, seed=1, exclude={item})


def test_the_sentences_an_s_conj_item_conjoins_are_excluded_and_other_lines_are_not():
    """A natural S -> S CONJ S item shows its second conjunct (a corpus line) with its first
    letter lowercased after S1: the line itself must not be an example, nor S1."""
    lexicon = load_lexicon(REPO / "resources" / "lexicon")
    firsts = [s for t in range(1, 11) for s in synthetic_sentences(lexicon, t, 5, seed=1)]
    natural = ["Prices rose sharply in 2020.", "NATO met on Monday."]
    rows = s_conj_items(firsts, natural, 2, 2, seed=0, lexicon=lexicon)
    translated = {row[column] for row in rows for column in ("source_a", "source_b")}
    first_conjunct = rows[0]["source_a"].split(", and ")[0] + "."
    pool = [
        "Prices rose sharply in 2020.",
        "NATO met on Monday.",
        first_conjunct,
        "Prices rose sharply in 2021.",
        "NATO met on Tuesday.",
        "Prices rose.",
    ]
    assert not set(pool) & translated and first_conjunct[0].isupper()
    assert _usable(pool, translated) == [3, 4, 5]


def test_a_second_conjunct_holding_the_conjunction_is_excluded_whole():
    first = synthetic_sentences(load_lexicon(REPO / "resources" / "lexicon"), 1, 1, seed=0)[0]
    item = conjoin(first, "The mayor spoke, and the crowd left.")
    pool = ["The mayor spoke, and the crowd left.", "The mayor spoke.", "The crowd left.", "The crowd stayed."]
    # the text before and after each ', and ' may be a conjunct; a piece between two is not
    assert _usable(pool, {item}) == [1, 3]


@pytest.mark.skipif(
    not RELEASED_NATURAL.is_dir(), reason=f"the released natural items are not here ({RELEASED_NATURAL})"
)
def test_few_shot_exclusion_on_the_released_natural_sentences():
    """The original study's natural sentences (real corpus lines, tokenised, with curly
    quotes and non-breaking hyphens) as second conjuncts: each line, however re-spaced,
    decomposed or re-cased, is excluded; of the other lines only near-copies of an item are."""
    with (RELEASED_NATURAL / "items.tsv").open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        # at most 50 words: longer lines are never examples anyway
        sources = sorted({row["source"] for row in rows if len(row["source"].split()) <= 50})
    assert len(sources) == 3545
    # 13 collapse: the same sentence in another case or with other final punctuation
    assert len({comparable_text(s) for s in sources}) == 3532
    first = synthetic_sentences(load_lexicon(REPO / "resources" / "lexicon"), 1, 1, seed=0)[0]
    variants = [
        lambda s: s,
        lambda s: " " + s.replace(" ", "  ") + " ",
        lambda s: unicodedata.normalize("NFD", s),
        lambda s: s[:1].swapcase() + s[1:],
    ]
    pool = [variant(s) for s in sources for variant in variants]
    assert _usable(pool, [conjoin(first, s) for s in sources]) == []
    items, others = sources[0::2], sources[1::2]
    usable = set(_usable(others, [conjoin(first, s) for s in items]))
    excluded = [s for line, s in enumerate(others) if line not in usable]

    def near(text):
        return text.lower().rstrip(" .?!;,'\"”")

    assert len(excluded) == 8 and all(near(s) in {near(i) for i in items} for s in excluded)


def test_few_shot_examples_from_files_round_trip_through_few_shot_tsv(tmp_path):
    (tmp_path / "train.en").write_text("".join(f"s{i}\n" for i in range(10)))
    (tmp_path / "train.nl").write_text("".join(f"t{i}\n" for i in range(10)))
    system = {"few_shot": {"k": 2, "pool": "train", "seed": 3}}
    pool = (str(tmp_path / "train.en"), str(tmp_path / "train.nl"))
    examples = few_shot_examples(system, pool, {"s0", "s1"}, "mt.systems.x")
    assert len(examples) == 2 and not {"s0", "s1"} & {e.source for e in examples}
    write_few_shot(tmp_path / "few_shot.tsv", examples)
    assert read_few_shot(tmp_path / "few_shot.tsv") == examples
    assert few_shot_examples({"few_shot": {"k": 0}}, None, (), "x") == ()


@pytest.mark.parametrize(
    ("answer", "translation"),
    [
        (" De kat slaapt .", "De kat slaapt ."),
        ("Dutch: De kat slaapt .", "De kat slaapt ."),
        ("dutch:De kat", "De kat"),
        ("De kat\nEnglish: more", "De kat"),
        ("De kat\r slaapt", "De kat"),
        ("De\tkat\x0bslaapt", "De kat"),
        ("   ", ""),
        ("Nederlands: De kat", "Nederlands: De kat"),
    ],
)
def test_the_translation_is_the_answers_first_line_without_the_target_label(answer, translation):
    assert extract_translation(answer, "nl") == translation


@pytest.mark.parametrize(("value", "mode"), [(True, "on"), (False, "off"), ("on", "on"), ("off", "off")])
def test_chat_template_takes_yaml_booleans(value, mode):
    assert chat_template_mode(value) == mode


def test_chat_template_other_values_are_refused():
    with pytest.raises(ConfigError, match="must be one of on, off, not 'yes'"):
        chat_template_mode("yes")
    with pytest.raises(ConfigError, match="mt.prompting.chat_template: auto was removed: a base model's tokenizer"):
        chat_template_mode("auto", "mt.prompting.chat_template")


def test_mt_prompting_applies_no_chat_template_unless_asked():
    assert DEFAULT_PROMPTING["chat_template"] == "off"
    assert system_entry(_systems(family="causal"), "llm")["chat_template"] == "off", "the demo config's"


def _systems(prompting=None, name="llm", **system):
    mt = copy.deepcopy(DEMO_MT)
    mt["systems"] = {name: {"model": "some/llm", **system}}
    if prompting is not None:
        mt["prompting"] = {**mt["prompting"], **prompting}
    return mt


def test_a_prompting_option_on_a_translation_model_is_refused():
    with pytest.raises(ConfigError, match=r"mt.systems.llm.few_shot: is an option of family causal .* not of marian"):
        check_systems(_systems(family="marian", few_shot={"k": 2}))
    with pytest.raises(ConfigError, match=r"mt.systems.llm.chat_template: is an option of family causal"):
        check_systems(_systems(family="m2m100", chat_template=False))
    with pytest.raises(ConfigError, match=r"mt.systems.llm.precision: bf16 is for causal LMs"):
        check_systems(_systems(family="nllb", precision="bf16"))
    # the schema's nulls are no options given, and mt.prompting is for causal systems only
    check_systems(_systems(family="marian", few_shot=None, chat_template=None, prompting={"prompt": "{source} ="}))


def test_a_causal_system_checks_its_prompt_and_its_few_shot_pool():
    check_systems(_systems(family="causal", prompt="{source} =", decoding="beam", beam=2))
    with pytest.raises(ConfigError, match=r"mt.systems.llm.prompt: must hold \{source\} exactly once"):
        check_systems(_systems(family="causal", prompt="translate"))
    with pytest.raises(ConfigError, match=r"mt.systems.qwen2.5-0.5b.prompt: must hold"):
        check_systems(_systems(family="causal", prompt="translate", name="qwen2.5-0.5b"))
    with pytest.raises(ConfigError, match=r"mt.prompting.prompt: must hold \{source\} exactly once"):
        check_systems(_systems(family="causal", prompting={"prompt": "translate"}))
    with pytest.raises(ConfigError, match=r"mt.systems.llm.few_shot.pool: flores_dev is also a BLEU split"):
        check_systems(_systems(family="causal", few_shot={"k": 1, "pool": "flores_dev"}))
    with pytest.raises(ConfigError, match=r"mt.systems.llm.few_shot.pool: flores_dev is also a BLEU split"):
        check_systems(_systems(family="causal", few_shot={"pool": "flores_dev"}, prompting={"few_shot": {"k": 2}}))
    devtest_only = _systems(family="causal", few_shot={"k": 1, "pool": "flores_dev"})
    devtest_only["bleu"]["splits"] = ["devtest"]
    check_systems(devtest_only)


def test_a_causal_entry_takes_mt_promptings_settings_where_it_has_none():
    mt = _systems(
        prompting={"prompt": "P {source}", "few_shot": {"k": 4, "pool": "train", "seed": 9}, "decoding": "beam"},
        family="causal",
        few_shot={"k": 1, "seed": None},
        chat_template=False,
    )
    entry = system_entry(mt, "llm")
    assert entry["prompt"] == "P {source}" and entry["decoding"] == "beam"
    assert entry["few_shot"] == {"k": 1, "pool": "train", "seed": 9}, "few-shot key by key"
    assert entry["chat_template"] is False, "the entry's off is kept, not read as missing"
    marian = _systems(prompting={"prompt": "P {source}"}, family="marian")
    assert "prompt" not in system_entry(marian, "llm"), "a translation model gets no prompting settings"


def test_family_auto_is_read_from_the_config_when_the_model_is_here(tmp_path):
    (tmp_path / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}')
    assert configured_family({"model": str(tmp_path)}) == "causal"
    (tmp_path / "config.json").write_text(
        '{"architectures": ["MarianMTModel"], "model_type": "marian", "is_encoder_decoder": true}'
    )
    assert configured_family({"model": str(tmp_path)}) == "auto"
    assert configured_family({"model": "results/mt/demo/pretrained/causal"}) == "auto", "not built yet"
    assert configured_family({"model": "results/x", "family": "causal"}) == "causal"


def test_generation_counts_count_empty_and_cut_off_answers_per_set_once_per_sentence(tmp_path):
    sets = {"flores_dev": ["a", "b", "c", "a"], "np_vp.synthetic": ["c", "d"]}
    translations = {"a": "x", "b": "", "c": "y", "d": "  "}
    statuses = {"a": "ok", "b": "empty", "c": "cut_off", "d": "empty"}
    rows = generation_counts("llm", sets, translations, statuses)
    assert [(r["set"], r["sentences"], r["empty"], r["cut_off"]) for r in rows] == [
        ("flores_dev", 3, 1, 1),
        ("np_vp.synthetic", 2, 1, 1),
    ]
    # a translation model records no cut-off answers: empty ones are counted from the text
    rows = generation_counts("marian", sets, translations, None)
    assert [(r["empty"], r["cut_off"]) for r in rows] == [(1, ""), (1, "")]
    write_generation_counts(tmp_path / "a.tsv", generation_counts("llm", sets, translations, statuses))
    write_generation_counts(tmp_path / "b.tsv", rows)
    gather_generation_counts([tmp_path / "a.tsv", tmp_path / "b.tsv"], tmp_path / "all.tsv")
    table = read_tsv(tmp_path / "all.tsv")
    assert list(table["system"]) == ["llm", "llm", "marian", "marian"]
    assert list(table["cut_off"]) == ["1", "1", "", ""]

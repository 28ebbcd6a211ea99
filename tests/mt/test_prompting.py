"""Prompts, few-shot examples and answers of a causal LM prompted to translate
(natcomp.mt.prompting), the config checks of a causal system, and the generation counts."""

import copy
from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.mt.config import check_systems
from natcomp.mt.prompting import (
    DEFAULT_PROMPT,
    DEFAULT_PROMPTING,
    FewShotExample,
    PromptFormat,
    chat_template_mode,
    check_template,
    draw_few_shot,
    extract_translation,
    few_shot_examples,
    read_few_shot,
    template_hash,
    write_few_shot,
)
from natcomp.mt.systems import (
    configured_family,
    gather_generation_counts,
    generation_counts,
    system_entry,
    write_generation_counts,
)
from natcomp.tsv import read_tsv

REPO = Path(__file__).resolve().parents[2]
DEMO_MT = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["mt"]
SCHEMA = yaml.safe_load((REPO / "config" / "schema" / "mt.yaml").read_text())


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

# MT family: config shortcuts, input functions and the family's final outputs. The tests,
# their data types and the checkpoints they are scored on come from the test registry
# (natcomp.mt.registry), not from lists kept here.
import re

from natcomp.mt import registry
from natcomp.mt.languages import target_language
from natcomp.mt.config import (
    check_mt_config,
    check_system_models,
    derive_pair_settings,
    download_fields,
    flores_langs,
    pair_languages,
    size_fairseq_options,
    tatoeba_pair,
)
from natcomp.mt.released_items import RELEASED_DATA_TYPES
from natcomp.mt.scoring import FINAL_CHECKPOINT, TRAINED_SYSTEM
from natcomp.mt.systems import is_causal, is_served, system_entry
from natcomp.served import usage_path
from natcomp.runs import workflow_built

# What the pair decides ({target} in system names and models, the auto values): filled in
# before anything reads the section, so the run's record (results/config.yaml) holds it,
# and said in the plan.
config["mt"], _MT_DERIVED = stop_on_config_error(derive_pair_settings, config["mt"])
for _line in _MT_DERIVED:
    print(f"natcomp: mt: {_line}", file=sys.stderr)
MT = config["mt"]
SRC, TRG = MT["source_lang"], MT["target_lang"]
LANGS = [SRC, TRG]
SIZES = list(MT["sizes"])
SEEDS = MT["seeds"]
#: whether the workflow trains and tests its own models (the system "trained")
TRAINED = MT["train"]["enabled"]
#: the pretrained translation systems (Hugging Face models), in config order
SYSTEMS = list(MT.get("systems") or {})
SYSTEM_NAMES = "|".join(re.escape(name) for name in SYSTEMS) or "(?!)"
#: the systems that are causal LMs prompted to translate (family causal, or auto and a
#: causal LM's config); they have few-shot examples and record cut-off answers
CAUSAL_SYSTEMS = [
    name
    for name in SYSTEMS
    if is_causal(MT["systems"][name], f"mt.systems.{name}.model")
]
CAUSAL_SYSTEM_NAMES = "|".join(re.escape(name) for name in CAUSAL_SYSTEMS) or "(?!)"
CHUNKS = range(MT["preprocess"]["chunks"])
EPOCHS = MT["train"]["epoch_checkpoints"]
# The MT chains (corpus, BPE, binarising, training, test items, translation per checkpoint;
# the demo's pretrained system's training and decoding) hold the workflow's longest jobs:
# where cores are short they start first, and the other families' short jobs fill the
# cores around them instead of delaying them or leaving one long job alone at the end.
MT_CHAIN_PRIORITY = 10
# The demo's stand-ins for released systems train behind the trained models' corpus chain:
# ready from the first seconds, at the chain's priority they took both cores while the
# BPE and binarising jobs, and so the longest jobs (the full models' training), waited.
MT_SYSTEM_TRAINING_PRIORITY = 5

# Cross-key checks and fairseq's own parser on train.fairseq, before any job runs.
stop_on_config_error(check_mt_config, MT, cache_dir=".snakemake/natcomp")
#: the Tatoeba pair folder and FLORES-101 names of the run's pair (given or derived from
#: resources/mt/languages/<code>.yaml)
TATOEBA_PAIR = tatoeba_pair(MT)
FLORES_LANGS = flores_langs(MT)
PAIR_ISO639_3 = [language.iso639_3 for language in pair_languages(MT)]
DOWNLOAD_FIELDS["mt"] = download_fields(MT)


def check_decoded_system_models(jobs):
    """A real run stops before any job when a system it will decode with cannot be
    loaded here: a dry run, or a run of other targets, plans without the models."""
    systems = {
        job.wildcards["system"]
        for job in jobs
        if job.rule.name == "mt_system_translate"
    }
    stop_on_config_error(check_system_models, MT, systems)


START_CHECKS.append(check_decoded_system_models)


#: test -> the data types it runs on (config, else every data type the registry defines);
#: a target language without idiom keywords (resources/mt/languages/<code>.yaml) runs no
#: overgeneralisation test
TEST_DATA_TYPES = {
    name: list(MT["tests"]["data_types"].get(name, test.data_types))
    for name, test in registry.TESTS.items()
}
if target_language(TRG).idiom_keywords is None:
    TEST_DATA_TYPES["overgeneralisation"] = []
RUN_TESTS = [name for name, data_types in TEST_DATA_TYPES.items() if data_types]


#: where the tests' items come from: natcomp's generation, or the original study's release
#: (its data types; random_words was not released and is generated either way)
RELEASED_ITEMS = MT["tests"]["items"] == "released"
GENERATED_DATA_TYPES = [
    d for d in registry.DATA_TYPES if not (RELEASED_ITEMS and d in RELEASED_DATA_TYPES)
]
#: the release's test files, extracted and checked (rule mt_released_tests)
RELEASED_TESTS = "results/mt/released_tests"


def size_limit(wildcards):
    value = MT["sizes"][wildcards.size]
    return None if value == "all" else value


def fairseq_options(wildcards):
    return size_fairseq_options(MT, wildcards.size)


def kept_epochs(wildcards):
    return EPOCHS[wildcards.size]


def bleu_translations():
    """Each model group's translation files for the paired BLEU comparisons: a corpus
    size's best checkpoints, one per seed; a pretrained system's one."""
    groups = {}
    if TRAINED:
        groups = {
            size: [
                f"results/mt/translations/{size}/seed{seed}/best.tsv" for seed in SEEDS
            ]
            for size in SIZES
        }
    groups.update(
        {
            system: [f"results/mt/systems/{system}/translations.tsv"]
            for system in SYSTEMS
        }
    )
    return groups


def bleu_scores():
    trained = expand(
        "results/mt/bleu/{size}/seed{seed}/{split}.tsv",
        size=SIZES,
        seed=SEEDS,
        split=MT["bleu"]["splits"],
    )
    systems = expand(
        "results/mt/systems/{system}/bleu/{split}.tsv",
        system=SYSTEMS,
        split=MT["bleu"]["splits"],
    )
    return (trained if TRAINED else []) + systems


def trained_model(wildcards):
    """The model columns of a trained model's scores."""
    return {
        "system": TRAINED_SYSTEM,
        "size": wildcards.size,
        "seed": wildcards.seed,
        "checkpoint": wildcards.get("checkpoint", ""),
    }


def pretrained_model(wildcards):
    """A pretrained system is one released model: no corpus size, seed or epochs."""
    return {
        "system": wildcards.system,
        "size": "",
        "seed": "",
        "checkpoint": FINAL_CHECKPOINT,
    }


def system_settings(wildcards):
    """A system's entry; a causal LM's with mt.prompting's settings where it has none."""
    return system_entry(MT, wildcards.system)


def system_model(wildcards):
    """A system's model: a folder, a shipped model or a Hub id (what its jobs are sized by)."""
    return MT["systems"][wildcards.system]["model"]


def system_served(wildcards):
    """Whether a system is a causal LM behind an API (natcomp.mt.served_translation)."""
    return is_served(MT["systems"][wildcards.system])


def system_translate_usage(wildcards):
    """Where a served system's translation job writes the requests and tokens it used."""
    return str(usage_path("mt", "translate", wildcards.system))


def system_probes_usage(wildcards):
    """Where a served system's translation job writes the requests and tokens of its
    synonym probes (a client of their own, natcomp.mt.systems.nbest_translator)."""
    return str(usage_path("mt", "synonym_probes", wildcards.system))


def system_model_input(wildcards):
    """A model folder the workflow writes (the demo's stand-in) is the job's input, and a
    causal system's few-shot examples (drawn once, the same for every job)."""
    model = system_model(wildcards)
    inputs = (
        {"model": model}
        if workflow_built(model) and not system_served(wildcards)
        else {}
    )
    if wildcards.system in CAUSAL_SYSTEMS:
        inputs["few_shot"] = f"results/mt/systems/{wildcards.system}/few_shot.tsv"
    return inputs


#: where each few-shot pool's parallel files are
FEW_SHOT_POOLS = {
    "train": (
        f"results/mt/corpus/raw/train.{SRC}",
        f"results/mt/corpus/raw/train.{TRG}",
    ),
    "flores_dev": (
        f"results/mt/corpus/raw/flores_dev.{SRC}",
        f"results/mt/corpus/raw/flores_dev.{TRG}",
    ),
}


def few_shot_pool_input(wildcards):
    """The parallel files of a causal system's few-shot pool (none when k is 0)."""
    few_shot = system_entry(MT, wildcards.system)["few_shot"]
    if not few_shot["k"]:
        return {}
    source, target = FEW_SHOT_POOLS[few_shot["pool"]]
    return {"pool_source": source, "pool_target": target}


def items_file(test, data_type):
    return f"results/mt/items/{test}/{data_type}.tsv"


def checkpoints_of(test, size):
    """The checkpoints a test is scored on: the best one, or every kept epoch checkpoint."""
    if registry.get_test(test).checkpoints == "best":
        return ["best"]
    return [f"epoch{epoch}" for epoch in EPOCHS[size]]


def tests_at(checkpoint_kind):
    """The tests scored on the best checkpoint or on every kept epoch checkpoint."""
    return [t for t in RUN_TESTS if registry.get_test(t).checkpoints == checkpoint_kind]


def translation_sets(checkpoint_kind):
    """Set name -> source file of everything a checkpoint of this kind (``best`` or
    ``epochs``) translates: the FLORES splits (the best checkpoint) and the items of the
    tests scored on this kind of checkpoint."""
    sets = {}
    if checkpoint_kind == "best":
        for split in MT["bleu"]["splits"]:
            sets[f"flores_{split}"] = f"results/mt/corpus/raw/flores_{split}.{SRC}"
    for test in tests_at(checkpoint_kind):
        for data_type in TEST_DATA_TYPES[test]:
            sets[f"{test}.{data_type}"] = items_file(test, data_type)
    return sets


#: where a trained model's translations are: the best checkpoint's file, and the folder of
#: the epoch checkpoints' (one job translates every kept epoch of a model: mt_translate_epochs)
BEST_TRANSLATIONS = "results/mt/translations/{size}/seed{seed}/best.tsv"
EPOCH_TRANSLATIONS = "results/mt/translations/{size}/seed{seed}/epochs"


def translations_input(wildcards):
    """The file or folder a checkpoint's translations are in (a job's input)."""
    folder = BEST_TRANSLATIONS if wildcards.checkpoint == "best" else EPOCH_TRANSLATIONS
    return folder.format(size=wildcards.size, seed=wildcards.seed)


def translations_file(wildcards):
    """The file of one checkpoint's translations."""
    if wildcards.checkpoint == "best":
        return translations_input(wildcards)
    return f"{translations_input(wildcards)}/{wildcards.checkpoint}.tsv"


def test_data_types(wildcards):
    return TEST_DATA_TYPES[wildcards.test]


def test_items(wildcards):
    """Data type -> items file of one test."""
    return {d: items_file(wildcards.test, d) for d in TEST_DATA_TYPES[wildcards.test]}


def score_files(measurement):
    """Score files of every system: the trained models per checkpoint the test is scored
    on, and each pretrained system once (its released model)."""
    tests = [t for t in RUN_TESTS if registry.get_test(t).measurement == measurement]
    trained = [
        f"results/mt/scores/{size}/seed{seed}/{checkpoint}/{test}.tsv"
        for size in SIZES
        for seed in SEEDS
        for test in tests
        for checkpoint in checkpoints_of(test, size)
    ]
    systems = [
        f"results/mt/systems/{system}/scores/{test}.tsv"
        for system in SYSTEMS
        for test in tests
    ]
    return (trained if TRAINED else []) + systems


def system_translation_sets(wildcards):
    """Everything a pretrained system translates, in one job: the FLORES splits and the
    items of every test (it has no epoch checkpoints)."""
    sets = {
        f"flores_{split}": f"results/mt/corpus/raw/flores_{split}.{SRC}"
        for split in MT["bleu"]["splits"]
    }
    for test in RUN_TESTS:
        for data_type in TEST_DATA_TYPES[test]:
            sets[f"{test}.{data_type}"] = items_file(test, data_type)
    return sets


def system_translation_set_names(wildcards):
    return list(system_translation_sets(wildcards))


def synonym_probes_decoded():
    """Whether the models decode the synonym probe sentences: only for the sheet of pooled
    candidates (mt.synonyms.candidates probes, no checked sheet given)."""
    synonyms = MT["synonyms"]
    return synonyms["candidates"] == "probes" and not synonyms["checked_sheet"]


#: what a trained model's best-checkpoint job (mt_translate) reads and writes for the probes
TRAINED_PROBES_INPUT = (
    {"synonyms": "resources/synonyms.tsv"} if synonym_probes_decoded() else {}
)
TRAINED_PROBES_OUTPUT = (
    {"probes": "results/mt/synonyms/probes/{size}/seed{seed}.tsv"}
    if synonym_probes_decoded()
    else {}
)


#: what a system's translation job (mt_system_translate) reads and writes for the probes:
#: they are decoded there, by the model it loaded, as a trained model's in mt_translate
SYSTEM_PROBES_INPUT = TRAINED_PROBES_INPUT
SYSTEM_PROBES_OUTPUT = (
    {"probes": "results/mt/systems/{system}/synonym_probes.tsv"}
    if synonym_probes_decoded()
    else {}
)


def synonym_probe_files():
    trained = expand(
        "results/mt/synonyms/probes/{size}/seed{seed}.tsv", size=SIZES, seed=SEEDS
    )
    systems = expand("results/mt/systems/{system}/synonym_probes.tsv", system=SYSTEMS)
    return (trained if TRAINED else []) + systems


SEMI_NATURAL = MT["semi_natural"]
SEMI_NATURAL_PHRASES = "results/mt/semi_natural/phrases.tsv"


def items_inputs(wildcards):
    """Natural items come from the raw training corpus, semi-natural ones from the
    phrases matching the chosen fragments (natural second conjuncts need both)."""
    inputs = {"corpus": [], "phrases": []}
    if wildcards.data_type == "natural":
        inputs["corpus"] = [f"results/mt/corpus/raw/train.{lang}" for lang in LANGS]
    if wildcards.data_type == "semi_natural" or (
        wildcards.data_type == "natural"
        and wildcards.test == "s_conj"
        and MT["tests"]["natural_conjunct_reference"] == "semi_natural"
    ):
        inputs["phrases"] = [SEMI_NATURAL_PHRASES]
    return inputs


def treebank_inputs(wildcards):
    """The demo's generator trees, or sampled training sentences and the stanza models."""
    if SEMI_NATURAL["treebank"] == "generator":
        return {"trees": "results/mt/demo/treebank.mrg"}
    return {
        "sentences": f"results/mt/corpus/raw/train.{SRC}",
        "models": SEMI_NATURAL["stanza_model_dir"],
    }


def chosen_fragment_overrides(wildcards):
    return {
        label: list(SEMI_NATURAL["chosen"][label])
        for label in sorted(SEMI_NATURAL["chosen"])
    }


def annotated_sheets(wildcards):
    """Filled-in sheets from config, else the generated (pre-annotated) ones."""
    return MT["manual_analysis"]["annotated_sheets"] or [
        f"results/mt/manual_analysis/{measurement}_sheet.tsv"
        for measurement in ("systematicity", "substitutivity")
    ]


def synonym_candidate_inputs(wildcards):
    """The shipped lists, the checked sheet from config, or the pooled probe spans."""
    inputs = {"synonyms": "resources/synonyms.tsv"}
    if MT["synonyms"]["candidates"] == "probes":
        if MT["synonyms"]["checked_sheet"]:
            inputs["checked_sheet"] = MT["synonyms"]["checked_sheet"]
        else:
            inputs["sheet"] = "results/mt/synonyms/candidates_sheet.tsv"
    return inputs


def synonym_candidates_input(wildcards):
    """Only substitutivity scores look for synonym translations (other tests' scores must
    not wait for every model's probe sentences)."""
    if registry.get_test(wildcards.test).entry != "pair":
        return {}
    return {"synonym_candidates": "results/mt/synonyms/candidates.tsv"}


def mt_final_outputs():
    return [
        "results/tables/mt/bleu.tsv",
        "results/tables/mt/systematicity.tsv",
        "results/figures/mt/systematicity.png",
        "results/tables/mt/manual_analysis.tsv",
        # the headline tables and figures (results/summary.html)
        "results/tables/mt/systematicity_summary.tsv",
        "results/tables/mt/substitutivity_summary.tsv",
        "results/figures/mt/overgeneralisation.png",
    ]


# Every system's jobs sized before the DAG: one line for a model too large (natcomp.jobsize).
check_model_jobs("mt_system_translate", system_model, system=SYSTEMS)


FINAL_OUTPUTS["mt"] = mt_final_outputs

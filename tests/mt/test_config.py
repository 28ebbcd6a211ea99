"""Cross-key checks of the MT config section and the per-size fairseq options."""

import copy
from pathlib import Path

import pytest
import yaml

from natcomp.errors import ConfigError
from natcomp.mt.config import check_mt_config, size_fairseq_options

REPO = Path(__file__).resolve().parents[2]
DEMO = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["mt"]


def checked(**train):
    mt = copy.deepcopy(DEMO)
    mt["train"].update(train)
    check_mt_config(mt)  # no cache: fairseq's parser runs every time
    return mt


def test_each_size_trains_to_its_own_last_epoch():
    mt = checked()
    assert size_fairseq_options(mt, "small")["max-epoch"] == 8
    assert size_fairseq_options(mt, "full")["max-epoch"] == 11
    assert list(size_fairseq_options(mt, "full")) == sorted(size_fairseq_options(mt, "full")), "a fixed order"


def test_last_epoch_below_a_kept_checkpoint_is_refused():
    with pytest.raises(ConfigError, match=r"mt.train.max_epoch.full: 10 is below the last kept epoch checkpoint"):
        checked(max_epoch={"small": 8, "full": 10})


def test_last_epoch_in_two_places_is_refused():
    fairseq = {**DEMO["train"]["fairseq"], "max-epoch": 12}
    with pytest.raises(ConfigError, match=r"mt.train.max_epoch: set the last epoch here per size or in fairseq"):
        checked(fairseq=fairseq)
    with pytest.raises(ConfigError, match=r"mt.train.max_epoch.medium: is not a corpus size"):
        checked(max_epoch={"small": 8, "full": 12, "medium": 3})


def test_without_per_size_epochs_the_fairseq_option_applies_to_every_size():
    mt = checked(max_epoch={}, fairseq={**DEMO["train"]["fairseq"], "max-epoch": 12})
    assert size_fairseq_options(mt, "small")["max-epoch"] == size_fairseq_options(mt, "full")["max-epoch"] == 12


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("max-tokens", "is derived from the job's GPUs: set mt.train.tokens_per_update"),
        ("update-freq", "is derived from the job's GPUs: set mt.train.tokens_per_update"),
        ("fp16", "set mt.train.precision: fp16 instead"),
        ("cpu", "is set by the workflow when the job has no GPU"),
        ("distributed-world-size", "is the number of GPUs the job was given"),
        ("num-workers", "is set from mt.train.loading_workers"),
        ("best-checkpoint-metric", "is set from mt.train.select_by"),
        ("eval-bleu", "is set from mt.train.select_by"),
    ],
)
def test_batch_and_hardware_options_in_fairseq_are_refused_with_the_key_to_use(name, hint):
    with pytest.raises(ConfigError, match=f"mt.train.fairseq.{name}: {hint}"):
        checked(fairseq={**DEMO["train"]["fairseq"], name: 1})


def test_bf16_training_is_refused_at_the_config_check():
    with pytest.raises(ConfigError, match=r"mt.train.precision: bf16 is not supported: fairseq 0.12 turns --bf16 "
                       r"into TPU mode"):  # fmt: skip
        checked(precision="bf16")


def test_a_micro_batch_above_the_tokens_per_update_is_refused():
    with pytest.raises(ConfigError, match=r"mt.train.max_tokens: 4096 tokens per micro-batch is above"):
        checked(tokens_per_update=2048, max_tokens=4096)
    checked(tokens_per_update=2048, max_tokens=1024)
    checked(tokens_per_update=2048, max_tokens="auto", precision="fp16")


def test_the_paper_batch_is_the_papers_tokens_per_update():
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["mt"]
    # 3584 tokens x update-freq 8 (appendix E.2) on each of 32 GPUs (E.3): --max-tokens is per GPU
    assert paper["train"]["tokens_per_update"] == 3584 * 8 * 32
    assert DEMO["train"]["tokens_per_update"] == 2048, "the demo's former max-tokens 2048 x update-freq 1"
    for config in (paper, DEMO):
        assert not {"max-tokens", "update-freq", "fp16"} & set(config["train"]["fairseq"])


PAPER = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["mt"]


@pytest.mark.parametrize("config", [PAPER, DEMO], ids=["paper", "demo"])
def test_the_best_checkpoint_and_early_stopping_follow_validation_bleu(config):
    """Footnote 9 and appendix E.2: convergence and the best checkpoint by validation BLEU,
    in the paper config and the demo alike; fairseq's validation decodes as the tests do."""
    import json

    translate = config["translate"]
    for size in config["sizes"]:
        options = size_fairseq_options(config, size)
        assert options["best-checkpoint-metric"] == "bleu" and options["maximize-best-checkpoint-metric"] is True
        assert options["eval-bleu"] is True and options["eval-bleu-detok"] == "moses"
        assert json.loads(options["eval-bleu-args"]) == {
            "beam": translate["beam"],
            "max_len_a": translate.get("max_len_a", 0),
            "max_len_b": translate.get("max_len_b", 200),
        }
        assert json.loads(options["eval-bleu-detok-args"]) == {"source_lang": "en", "target_lang": "nl"}
        assert options["eval-bleu-remove-bpe"] == "@@ ", "subword-nmt's separator, as natcomp's remove_bpe"
        assert list(options) == sorted(options), "a fixed order"


def test_the_paper_config_decodes_with_fairseq_generates_default_length_limit():
    """Appendix E: "Any other hyperparameters involved follow the Fairseq default". The
    paper config's validation BLEU and test decodes end a hypothesis where fairseq-generate
    does (read from fairseq's own parser: 0 x source + 200); the demo keeps its tighter
    limit (config/config.yaml says why)."""
    import json

    from fairseq import options as fairseq_options

    generation = fairseq_options.parse_args_and_arch(fairseq_options.get_generation_parser(), ["DATA"])
    assert (generation.max_len_a, generation.max_len_b) == (0, 200)
    assert (PAPER["translate"]["max_len_a"], PAPER["translate"]["max_len_b"]) == (0, 200)
    for size in PAPER["sizes"]:
        decode = json.loads(size_fairseq_options(PAPER, size)["eval-bleu-args"])
        assert (decode["max_len_a"], decode["max_len_b"]) == (generation.max_len_a, generation.max_len_b)
    assert (DEMO["translate"]["max_len_a"], DEMO["translate"]["max_len_b"]) == (1.2, 10)


def test_a_config_without_a_decode_length_gets_fairseq_generates_default():
    """The schema's default is fairseq-generate's (0 x source + 200), so a config that
    leaves the limit out decodes as the paper did; the demo sets its own 1.2 x source + 10."""
    from fairseq import options as fairseq_options
    from snakemake.utils import validate

    generation = fairseq_options.parse_args_and_arch(fairseq_options.get_generation_parser(), ["DATA"])
    mt = copy.deepcopy(DEMO)
    del mt["translate"]
    validate(mt, str(REPO / "config" / "schema" / "mt.yaml"), set_default=True)
    assert (mt["translate"]["max_len_a"], mt["translate"]["max_len_b"]) == (generation.max_len_a, generation.max_len_b)
    mt["translate"] = {"beam": 5}
    validate(mt, str(REPO / "config" / "schema" / "mt.yaml"), set_default=True)
    assert (mt["translate"]["max_len_a"], mt["translate"]["max_len_b"]) == (0, 200)
    assert (DEMO["translate"]["max_len_a"], DEMO["translate"]["max_len_b"]) == (1.2, 10), "the demo sets its own"


def test_the_paper_config_decodes_tests_in_fp32_and_trains_in_fp16():
    """The released translate_data.sh runs fairseq-generate without --fp16; training used
    --fp16 (the original launcher), and so does the paper config."""
    assert PAPER["translate"]["precision"] == "fp32"
    assert PAPER["train"]["precision"] == "fp16"


def test_validation_bleu_options_pass_fairseqs_parser_and_follow_the_decode_settings():
    """The generated options go through fairseq-train's parser (as the dry run and the job
    check them) and mean what they say there; a changed beam changes them (and so the
    resume fingerprint); select_by: loss leaves fairseq's default."""
    from fairseq import options as fairseq_options

    from natcomp.mt.nmt import fairseq_argv

    mt = checked()
    parser = fairseq_options.get_training_parser()
    args = fairseq_options.parse_args_and_arch(parser, ["DATA", *fairseq_argv(size_fairseq_options(mt, "small"))])
    assert args.eval_bleu and args.best_checkpoint_metric == "bleu" and args.maximize_best_checkpoint_metric
    assert args.eval_bleu_remove_bpe == "@@ " and args.eval_bleu_detok == "moses" and not args.eval_tokenized_bleu
    assert '"beam": 5' in args.eval_bleu_args

    narrower = copy.deepcopy(mt)
    narrower["translate"]["beam"] = 4
    assert size_fairseq_options(narrower, "small") != size_fairseq_options(mt, "small")
    by_loss = checked(select_by="loss")
    assert not {"eval-bleu", "best-checkpoint-metric"} & set(size_fairseq_options(by_loss, "small"))
    check_mt_config(PAPER)


def test_the_config_check_parses_the_generated_options_too(monkeypatch):
    """The dry run's fairseq check covers what select_by adds, not only mt.train.fairseq."""
    import natcomp.mt.config as mt_config

    generated = mt_config.selection_options
    monkeypatch.setattr(mt_config, "selection_options", lambda mt: {**generated(mt), "eval-bleu-detokk": "moses"})
    with pytest.raises(ConfigError, match=r"fairseq-train has no option --eval-bleu-detokk"):
        checked()


def test_released_items_need_the_releases_archive_and_score_every_natural_item_beyond_dutch(monkeypatch):
    """mt.tests.items: released reads the archive of downloads.released_tests; its natural
    references are Dutch, so another target language cannot keep paraphrase-only scoring:
    the pair's settings turn it off and the plan says so, a Dutch run keeps it."""
    from natcomp.mt import config as mt_config
    from natcomp.mt.config import derive_pair_settings
    from natcomp.mt.released_items import RELEASE_COMMIT, RELEASE_URL

    monkeypatch.setattr(mt_config, "_check_fairseq_options_cached", lambda *args: None)  # not what is tested

    mt = copy.deepcopy(DEMO)
    mt["tests"]["items"] = "released"
    with pytest.raises(ConfigError, match=r"mt\.downloads\.released_tests: is needed by mt\.tests\.items: released"):
        check_mt_config(mt)
    mt["downloads"]["released_tests"] = {"url": RELEASE_URL, "sha256": None}
    check_mt_config(mt)
    assert PAPER["tests"]["paraphrase_references_only"] is True
    dutch, _ = derive_pair_settings(PAPER)
    assert dutch["tests"]["paraphrase_references_only"] is True
    german, lines = derive_pair_settings(copy.deepcopy(PAPER) | {"target_lang": "de", "systems": {}})
    assert german["tests"]["paraphrase_references_only"] is False
    assert any(
        "paraphrase_references_only: false (the released natural items' references are Dutch" in line for line in lines
    )
    generated, _ = derive_pair_settings(
        copy.deepcopy(PAPER) | {"target_lang": "de", "systems": {}, "tests": {**PAPER["tests"], "items": "generated"}}
    )
    assert generated["tests"]["paraphrase_references_only"] is True, "generated natural items have German references"
    check_mt_config(german)
    assert PAPER["tests"]["items"] == "released" and DEMO["tests"].get("items", "generated") == "generated"
    assert RELEASE_COMMIT in PAPER["downloads"]["released_tests"]["url"], "the commit the shipped manifest lists"

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
    assert size_fairseq_options(mt, "full")["max-epoch"] == 12
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

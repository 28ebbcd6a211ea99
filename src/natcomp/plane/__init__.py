"""PLANE: phrase-level adjective-noun entailment (Bertolini, Weeds & Weir 2022).

Public API: :func:`label` (Table 1), :func:`hypernyms` (unigram WordNet hypernyms by
distance), and the modules ``adjectives`` (classes, Table 1), ``wordnet``, ``corpus`` (AN
phrases: stanza, trees, the demo generator), ``items`` (resource and items), ``released``
(the released splits, safe unpickling), ``splits``, ``prompting``, ``nli``, ``finetune``,
``scoring`` (F1), ``tables``, ``report`` (figures), ``pipeline`` (file-level steps) and
``cli`` (``natcomp plane ...``). See docs/plane.md.
"""

from natcomp.plane.adjectives import CLASSES, INFERENCE_TYPES, label, load_adjectives, normalise_class
from natcomp.plane.wordnet import hypernyms

__all__ = ["CLASSES", "INFERENCE_TYPES", "hypernyms", "label", "load_adjectives", "normalise_class"]

"""Phrase candidates (appendix A): SST nodes ``A B`` that could be studied.

A candidate is a node of an SST tree with two children (subphrases) that

1. have ``min_tokens``-``max_tokens`` tokens each, punctuation excluded (3-8 in the paper);
2. contain no named entity (stanza NER, or in the demo a named-entity lexicon);
3. are constituents of a constituency parse (stanza's parser: the phrase and both
   subphrases are constituents; their labels are the phrase types NP, VP, PP, SBAR...),
   or in the demo the generator's own categories;
4. have raw SST annotations whose standard deviation is within ``max_raw_sd`` points of
   the 25-point scale (population standard deviation of the 3-6 raw scores).

Each filter can be switched off; each reports how many candidates it removed. A phrase
text that occurs in several trees is kept once (its first occurrence: the ``source`` is
``split:sentence:node``, sentence 1-based in its split file, node the pre-order index
with 0 = the root).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from natcomp.errors import ConfigError
from natcomp.sst import phrase_key, ptb_tokens_to_text, raw_score_sd, sentiment_nodes
from natcomp.trees import Tree

__all__ = [
    "CANDIDATE_COLUMNS",
    "CandidateSettings",
    "StanzaAnalyser",
    "is_punctuation",
    "select_candidates",
    "dictionary_id",
    "raw_score_lookup",
    "sentiment_lookup",
]

CANDIDATE_COLUMNS = ["phrase", "left", "right", "left_type", "right_type", "sentiment", "source"]
_PUNCTUATION_TOKENS = {"-LRB-", "-RRB-", "``", "''", "--", "...", "-", "'", "`"}
_BIN_CENTRES = {0: 0.1, 1: 0.3, 2: 0.5, 3: 0.7, 4: 0.9}

log = logging.getLogger("natcomp.noncompsst.candidates")


def is_punctuation(token: str) -> bool:
    """A token without letters or digits (``,`` ``--`` ``...``) or a PTB bracket escape."""
    return token in _PUNCTUATION_TOKENS or not any(ch.isalnum() for ch in token)


@dataclass(frozen=True)
class CandidateSettings:
    min_tokens: int = 3
    max_tokens: int = 8
    ner: bool = True
    parser: bool = True
    max_raw_sd: float | None = 5.0


class StanzaAnalyser:
    """stanza's constituency parser and NER over pre-tokenised SST sentences.

    ``model_dir`` must hold stanza's English models (``stanza.download('en',
    model_dir=...)``); nothing is downloaded here. Raises :class:`ConfigError` with what
    to do when stanza or its models are missing.
    """

    def __init__(self, model_dir: str | Path, *, parser: bool, ner: bool, use_gpu: bool = False):
        self.parser = parser
        self.ner = ner
        model_dir = Path(model_dir)
        hint = (
            f"download them where there is internet: python -c \"import stanza; stanza.download('en', "
            f"model_dir='{model_dir}', processors='tokenize,pos,constituency,ner')\", or switch the filter off "
            "(--no-parser / --no-ner; config noncompsst.candidates.parser / .ner: false)"
        )
        if not (model_dir / "en").is_dir() or not (model_dir / "resources.json").is_file():
            raise ConfigError(
                "noncompsst.candidates.stanza_dir", f"stanza's English models are not in {model_dir}; {hint}"
            )
        try:
            import stanza
        except ImportError as error:  # pragma: no cover - stanza is a pinned dependency
            raise ConfigError("noncompsst.candidates.stanza_dir", f"stanza is not installed ({error})") from None
        processors = ["tokenize"] + (["pos", "constituency"] if parser else []) + (["ner"] if ner else [])
        try:
            self.pipeline = stanza.Pipeline(
                "en",
                dir=str(model_dir),
                processors=",".join(processors),
                tokenize_pretokenized=True,
                download_method=None,
                use_gpu=use_gpu,
                logging_level="WARN",
            )
        except Exception as error:  # stanza raises plain exceptions for missing model files
            raise ConfigError(
                "noncompsst.candidates.stanza_dir",
                f"stanza could not load its models from {model_dir}: {error}; {hint}",
            ) from None

    def analyse(
        self, sentences: Sequence[Sequence[str]]
    ) -> list[tuple[dict[tuple[int, int], str], list[tuple[int, int]]]]:
        """Per sentence: {(start, end): outermost constituent label} and the entity token spans."""
        words = [[{"-LRB-": "(", "-RRB-": ")"}.get(t, t) for t in tokens] for tokens in sentences]
        document = self.pipeline(words)
        out = []
        for sentence in document.sentences:
            spans: dict[tuple[int, int], str] = {}
            if self.parser:
                _constituent_spans(sentence.constituency, 0, spans)
            entities = []
            if self.ner:
                index = {id(token): i for i, token in enumerate(sentence.tokens)}
                for entity in sentence.ents:
                    positions = [index[id(token)] for token in entity.tokens]
                    entities.append((min(positions), max(positions) + 1))
            out.append((spans, entities))
        return out


def _constituent_spans(node, start: int, spans: dict[tuple[int, int], str]) -> int:
    """Record (start, end) -> label for every phrasal node of a stanza parse tree; returns end."""
    if not node.children:
        return start + 1
    end = start
    for child in node.children:
        end = _constituent_spans(child, end, spans)
    if len(node.children) > 1 or node.children[0].children:
        # the outermost label of a unary chain wins: set on the way out, parents overwrite
        if node.label not in ("ROOT",):
            spans[(start, end)] = node.label
    return end


def dictionary_id(dictionary: Mapping[str, int], tokens: Sequence[str]) -> int | None:
    """The ``dictionary.txt`` id of a phrase given as PTB tokens, or ``None``.

    The trees have proper UTF-8 (``clichés``), ``dictionary.txt`` the release's mojibake
    (UTF-8 read as latin-1 or cp1252: ``clichÃ©s``), so a phrase not found as it is is
    looked up in those two damaged forms (the inverse of :func:`natcomp.sst.repair_mojibake`).
    """
    text = ptb_tokens_to_text(tokens)
    ident = dictionary.get(text)
    if ident is None and not text.isascii():
        for codec in ("latin-1", "cp1252"):
            try:
                ident = dictionary.get(text.encode("utf-8").decode(codec))
            except UnicodeError:
                continue
            if ident is not None:
                break
    return ident


def sentiment_lookup(
    dictionary: Mapping[str, int], labels: Mapping[int, float]
) -> Callable[[Sequence[str]], float | None]:
    """A function from PTB tokens to the SST value of that phrase (``None`` if not in the dictionary)."""

    def value(tokens: Sequence[str]) -> float | None:
        ident = dictionary_id(dictionary, tokens)
        return None if ident is None else labels.get(ident)

    return value


def raw_score_lookup(
    dictionary: Mapping[str, int], scores: Mapping[int, Sequence[int]]
) -> Callable[[Sequence[str]], Sequence[int] | None]:
    """A function from PTB tokens to the raw 1-25 scores of that phrase (``None`` if not in
    the dictionary); mis-encoded dictionary entries are found as by :func:`sentiment_lookup`."""

    def lookup(tokens: Sequence[str]) -> Sequence[int] | None:
        ident = dictionary_id(dictionary, tokens)
        return None if ident is None else scores.get(ident)

    return lookup


def select_candidates(
    trees: Mapping[str, Sequence[Tree]],
    settings: CandidateSettings = CandidateSettings(),
    *,
    values: Callable[[Sequence[str]], float | None] | None = None,
    raw_scores: Callable[[Sequence[str]], Sequence[int] | None] | None = None,
    analyser: StanzaAnalyser | None = None,
    phrase_types: Mapping[str, str] | None = None,
    entities: Sequence[str] = (),
    logger: logging.Logger = log,
) -> tuple[pd.DataFrame, dict[str, int]]:
    """Candidates of SST trees per split (``{"train": trees, ...}``).

    ``values`` gives a phrase's SST value (from dictionary.txt and sentiment_labels.txt);
    without it ``sentiment`` is the centre of the node's 0-4 label bin. ``raw_scores``
    gives a phrase's raw scores for the spread filter (``settings.max_raw_sd``; off when
    ``None`` or no ``raw_scores``). ``analyser`` runs stanza's parser/NER when
    ``settings.parser``/``settings.ner``; without an analyser the parser filter uses
    ``phrase_types`` (lower-cased phrase -> category; subphrases without one are removed)
    and the NER filter the ``entities`` lexicon (lower-cased names). Returns the
    candidates (:data:`CANDIDATE_COLUMNS`) and the counts per step.
    """
    started = time.perf_counter()
    counts: dict[str, int] = {}
    found: dict[str, dict[str, object]] = {}
    sentences: dict[tuple[str, int], list[str]] = {}
    lo, hi = settings.min_tokens, settings.max_tokens
    nodes_seen = 0
    for split, split_trees in trees.items():
        for number, tree in enumerate(split_trees, start=1):
            tokens, nodes = sentiment_nodes(tree)
            nodes_seen += len(nodes)
            content = [0]
            for token in tokens:
                content.append(content[-1] + (not is_punctuation(token)))
            for node in nodes:
                if len(node.children) != 2:
                    continue
                left, right = nodes[node.children[0]], nodes[node.children[1]]
                n_left = content[left.end] - content[left.start]
                n_right = content[right.end] - content[right.start]
                if not (lo <= n_left <= hi and lo <= n_right <= hi):
                    continue
                key = phrase_key(" ".join(tokens[node.start : node.end]))
                if key in found:
                    continue
                sentences[(split, number)] = tokens
                found[key] = {
                    "tokens": tokens[node.start : node.end],
                    "left": " ".join(tokens[left.start : left.end]),
                    "right": " ".join(tokens[right.start : right.end]),
                    "spans": ((node.start, node.end), (left.start, left.end), (right.start, right.end)),
                    "label": node.label,
                    "split": split,
                    "sentence": number,
                    "node": node.index,
                    "left_type": "",
                    "right_type": "",
                }
    counts["nodes"] = nodes_seen
    counts["two subphrases of the right length"] = len(found)
    logger.info(
        "%d nodes; %d distinct phrases with two subphrases of %d-%d tokens (punctuation excluded)",
        nodes_seen,
        len(found),
        lo,
        hi,
    )
    candidates = list(found.values())

    def apply(name: str, keep: Callable[[dict], bool]) -> None:
        nonlocal candidates
        before = len(candidates)
        candidates = [c for c in candidates if keep(c)]
        counts[name] = before - len(candidates)
        logger.info("filter %s removed %d of %d candidates", name, before - len(candidates), before)

    needs_stanza = (settings.parser or settings.ner) and analyser is not None
    if needs_stanza:
        keys = sorted({(c["split"], c["sentence"]) for c in candidates})
        analysed = dict(zip(keys, analyser.analyse([sentences[k] for k in keys])))
    if settings.ner:
        if analyser is not None:
            apply(
                "named entity (stanza)",
                lambda c: not _overlaps(c["spans"][0], analysed[(c["split"], c["sentence"])][1]),
            )
        else:
            names = [tuple(name.lower().split()) for name in entities]
            logger.info("NER filter: stanza is not used; named entities come from a lexicon of %d names", len(names))
            apply("named entity (lexicon)", lambda c: not _contains_any([t.lower() for t in c["tokens"]], names))
    else:
        logger.info("NER filter switched off")
    if settings.parser:
        if analyser is not None:

            def constituent(c: dict) -> bool:
                spans = analysed[(c["split"], c["sentence"])][0]
                whole, left, right = c["spans"]
                if whole not in spans or left not in spans or right not in spans:
                    return False
                c["left_type"], c["right_type"] = spans[left], spans[right]
                return True

            apply("constituent (stanza parser)", constituent)
        else:
            types = phrase_types or {}
            logger.info("parser filter: stanza is not used; phrase types come from a table of %d phrases", len(types))

            def typed(c: dict) -> bool:
                c["left_type"] = types.get(phrase_key(c["left"]), "")
                c["right_type"] = types.get(phrase_key(c["right"]), "")
                return bool(c["left_type"] and c["right_type"])

            apply("constituent (phrase-type table)", typed)
    else:
        logger.info("parser filter switched off: phrase types are left empty")
    if settings.max_raw_sd is not None and raw_scores is not None:
        limit = settings.max_raw_sd

        def agreed(c: dict) -> bool:
            scores = raw_scores(c["tokens"])
            return scores is not None and raw_score_sd(scores) <= limit

        apply(f"raw-score standard deviation > {limit:g} (or no raw scores)", agreed)
    else:
        logger.info("spread filter off (no raw scores given or max_raw_sd unset)")
    rows = []
    for c in candidates:
        value = values(c["tokens"]) if values is not None else None
        if value is None:
            value = _BIN_CENTRES[c["label"]]
        rows.append(
            {
                "phrase": " ".join(c["tokens"]),
                "left": c["left"],
                "right": c["right"],
                "left_type": c["left_type"],
                "right_type": c["right_type"],
                "sentiment": value,
                "source": f"{c['split']}:{c['sentence']}:{c['node']}",
            }
        )
    if values is None:
        logger.info("no SST values given: sentiment is the centre of each node's 0-4 label bin")
    counts["candidates"] = len(rows)
    logger.info("%d candidates in %.1f s", len(rows), time.perf_counter() - started)
    return pd.DataFrame(rows, columns=CANDIDATE_COLUMNS), counts


def _overlaps(span: tuple[int, int], others: Sequence[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in others)


def _contains_any(tokens: Sequence[str], names: Sequence[tuple[str, ...]]) -> bool:
    for name in names:
        n = len(name)
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i : i + n]) == name:
                return True
    return False

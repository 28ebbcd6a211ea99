"""Text helpers every family shares: joining tokens into plain text, tree-leaf escapes."""

from __future__ import annotations

from collections.abc import Sequence

_ATTACH_LEFT = {".", ",", "?", "!", ";", ":"}


def detokenize(tokens: Sequence[str]) -> str:
    """Join tokens into untokenised text.

    ``. , ? ! ; :`` attach to the previous token; ``"`` alternates between opening (attaches
    to the next token) and closing (attaches to the previous one). Tokens may contain
    spaces (pre-formed Dutch chunks).
    """
    out: list[str] = []
    open_quote = False
    glue_next = True
    for token in tokens:
        if token == '"':
            if open_quote:
                out.append('"')
            else:
                out.append('"' if glue_next else ' "')
                glue_next = True
            open_quote = not open_quote
            if not open_quote:
                glue_next = False
            continue
        if token in _ATTACH_LEFT or glue_next:
            out.append(token)
        else:
            out.append(" " + token)
        glue_next = False
    return "".join(out)


def unescape_bracket(token: str) -> str:
    """A tree leaf as text: ``-LRB-``/``-RRB-`` back to brackets."""
    return {"-LRB-": "(", "-RRB-": ")"}.get(token, token)


def treebank_word_tokenizer():
    """NLTK's ``TreebankWordTokenizer``, loaded without running ``nltk/__init__.py``.

    ``import nltk`` imports most of NLTK (scipy.stats among it: about 3 s), while the
    tokenizer needs four small modules. When NLTK is not imported yet, placeholder
    packages for ``nltk`` and ``nltk.tokenize`` let those modules load on their own; the
    placeholders (and the modules loaded under them) are then removed from
    ``sys.modules``, so a later ``import nltk`` is the real, whole package. The tokenizer
    is NLTK's own code either way (tests/test_text.py compares it with the fully imported one).
    """
    import importlib
    import importlib.util
    import sys
    import types
    from pathlib import Path

    if "nltk" in sys.modules:
        from nltk.tokenize.treebank import TreebankWordTokenizer

        return TreebankWordTokenizer()
    spec = importlib.util.find_spec("nltk")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("nltk is not installed; natcomp needs it for the Treebank tokenizer", name="nltk")
    root = Path(spec.origin).parent
    before = set(sys.modules)
    for name, folder in (("nltk", root), ("nltk.tokenize", root / "tokenize")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        package.__file__ = str(folder / "__init__.py")
        sys.modules[name] = package
    try:
        module = importlib.import_module("nltk.tokenize.treebank")
        return module.TreebankWordTokenizer()
    finally:
        for name in set(sys.modules) - before:
            if name == "nltk" or name.startswith("nltk."):
                del sys.modules[name]

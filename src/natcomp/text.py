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

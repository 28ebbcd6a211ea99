from pathlib import Path

import pytest

from natcomp.text import detokenize, unescape_bracket


def test_detokenize():
    assert detokenize(["The", "king", "said", '"', "I", "knew", "it", "by", "heart", '"', "."]) == (
        'The king said "I knew it by heart".'
    )
    assert (
        detokenize(["the", "plan", ",", "which", "helps", ",", "is", "read", "?"]) == "the plan, which helps, is read?"
    )


def test_unescape_bracket():
    assert [unescape_bracket(t) for t in ["-LRB-", "x", "-RRB-"]] == ["(", "x", ")"]


def test_treebank_tokenizer_is_nltks_and_loads_without_all_of_nltk():
    """Loaded on its own (no scipy, no nltk/__init__), then compared with the fully imported NLTK's."""
    import subprocess
    import sys

    code = """
import sys
from natcomp.text import treebank_word_tokenizer
tok = treebank_word_tokenizer()
assert "scipy" not in sys.modules and "nltk" not in sys.modules, sorted(m for m in sys.modules if "nltk" in m)
sentences = ["I can't believe it's \\"not\\" butter, (really) -- $5.00!", "the food wasn't great... ok?",
             "Don't go there; it's awful & over-priced: 2/10.", "They'll say 'hello' [sic] {x}"]
ours = [tok.tokenize(s) for s in sentences]
import nltk
from nltk.tokenize import TreebankWordTokenizer
assert ours == [TreebankWordTokenizer().tokenize(s) for s in sentences], ours
assert nltk.word_tokenize  # the real package, whole
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


YELP = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "yelp" / "reference.0"


@pytest.mark.skipif(not YELP.exists(), reason=f"the real Yelp references are not here ({YELP})")
def test_treebank_tokenizer_matches_nltk_on_the_real_yelp_pairs():
    """Every sentence of the 500 real pairs PSS cleans tokenizes as the fully imported NLTK's tokenizer does."""
    import subprocess
    import sys

    code = f"""
from natcomp.text import treebank_word_tokenizer
lines = open({str(YELP)!r}, encoding="utf-8").read().splitlines()
sentences = [side.lower() for line in lines for side in line.split("\\t")]
ours = [treebank_word_tokenizer().tokenize(s) for s in sentences]
from nltk.tokenize import TreebankWordTokenizer
assert ours == [TreebankWordTokenizer().tokenize(s) for s in sentences]
print(len(sentences))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "1000", done.stderr

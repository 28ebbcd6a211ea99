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

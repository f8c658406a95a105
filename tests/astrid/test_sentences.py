from concord.astrid.sentences import split_sentences


def texts(answer: str) -> list[str]:
    return [s.text for s in split_sentences(answer)]


def test_greetings_acknowledgements_and_questions_are_sentences() -> None:
    answer = (
        "Ah, sorry to hear that. That's common due to dryness. Try preservative-free "
        "drops 4 times a day. Did you have other concerns?"
    )
    assert texts(answer) == [
        "Ah, sorry to hear that.",
        "That's common due to dryness.",
        "Try preservative-free drops 4 times a day.",
        "Did you have other concerns?",
    ]


def test_spans_quote_the_answer_exactly() -> None:
    answer = "  Hi there!  Use 2.5 ml, e.g. twice.\nSee Dr. Shah at 3 p.m. Thanks!!  "
    sentences = split_sentences(answer)
    assert [s.text for s in sentences] == [
        "Hi there!",
        "Use 2.5 ml, e.g. twice.",
        "See Dr. Shah at 3 p.m.",
        "Thanks!!",
    ]
    for n, s in enumerate(sentences):
        assert s.index == n
        assert answer[s.start : s.end] == s.text


def test_deterministic_and_edge_cases() -> None:
    assert texts("Sure") == ["Sure"]
    assert texts("   ") == []
    assert texts("Is it bad? No. It is fine.") == ["Is it bad?", "No.", "It is fine."]
    assert texts('He said "stop." Then left.') == ['He said "stop."', "Then left."]
    answer = "One. Two? Three!"
    assert split_sentences(answer) == split_sentences(answer)

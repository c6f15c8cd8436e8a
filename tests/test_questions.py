"""RuleBasedDecomposer: real questions, the cases it must leave whole, and edge cases."""

from __future__ import annotations

import pytest

from localeval.text.questions import QuestionDecomposer, RuleBasedDecomposer


@pytest.fixture(scope="module")
def decomposer() -> RuleBasedDecomposer:
    return RuleBasedDecomposer()


@pytest.mark.parametrize(
    "question, expected",
    [
        # coordinated clauses, with the pronoun made self-contained
        ("What is RAG and how does it work?", ["What is RAG?", "How does RAG work?"]),
        ("Where is the Eiffel Tower and when was it built?",
         ["Where is the Eiffel Tower?", "When was the Eiffel Tower built?"]),
        ("What is the capital of France and how big is it?",
         ["What is the capital of France?", "How big is the capital of France?"]),
        ("Who directed Jaws and when was it released?", ["Who directed Jaws?", "When was Jaws released?"]),
        ("Why did Rome fall and what were the consequences?", ["Why did Rome fall?", "What were the consequences?"]),
        ("How many people live in Tokyo, and what is the city's area?",
         ["How many people live in Tokyo?", "What is the city's area?"]),
        ("Is Python free and can I use it commercially?", ["Is Python free?", "Can I use it commercially?"]),
        ("When was the Eiffel Tower built and by whom?",
         ["When was the Eiffel Tower built?", "By whom was the Eiffel Tower built?"]),
        ("Explain what RAG is and how it works.", ["Explain what RAG is.", "Explain how it works."]),
        # stacked wh-words
        ("Where and when was the Eiffel Tower built?",
         ["Where was the Eiffel Tower built?", "When was the Eiffel Tower built?"]),
        ("How and why did the Roman Empire fall?",
         ["How did the Roman Empire fall?", "Why did the Roman Empire fall?"]),
        # several question sentences; background stays with its question
        ("What is the capital of France? Who is its president?",
         ["What is the capital of France?", "Who is its president?"]),
        ("I live in Berlin. What is the rent like and how is the weather?",
         ["I live in Berlin. What is the rent like?", "I live in Berlin. How is the weather?"]),
        # coordinated noun phrases under one wh-word
        ("What are the capitals of France and Germany?",
         ["What are the capitals of France?", "What are the capitals of Germany?"]),
        ("Who wrote Hamlet, Macbeth and Othello?", ["Who wrote Hamlet?", "Who wrote Macbeth?", "Who wrote Othello?"]),
        ("What are the causes as well as the effects of climate change?",
         ["What are the causes of climate change?", "What are the effects of climate change?"]),
        ("What are the pros and cons of remote work?",
         ["What are the pros of remote work?", "What are the cons of remote work?"]),
        ("What are the benefits of exercise and the risks of smoking?",
         ["What are the benefits of exercise?", "What are the risks of smoking?"]),
        ("What are the GDP and population of France?",
         ["What is the GDP of France?", "What is the population of France?"]),
        ("How do I install Docker and Kubernetes on Ubuntu?",
         ["How do I install Docker on Ubuntu?", "How do I install Kubernetes on Ubuntu?"]),
        # comparisons: what is X, what is Y, and the comparison itself
        ("What is the difference between TCP and UDP?",
         ["What is TCP?", "What is UDP?", "What is the difference between TCP and UDP?"]),
        ("How does a list differ from a tuple?",
         ["What is a list?", "What is a tuple?", "How does a list differ from a tuple?"]),
        ("Compare Python and Java in terms of speed.",
         ["What is Python?", "What is Java?", "How do Python and Java differ in terms of speed?"]),
        ("Which immune factors were associated with increased SARS-CoV morbidity and mortality?",
         ["Which immune factors were associated with increased SARS-CoV morbidity?",
          "Which immune factors were associated with increased SARS-CoV mortality?"]),
        ("When was B.B. King born and where did he grow up?", ["When was B.B. King born?", "Where did he grow up?"]),
        ("PostgreSQL vs MySQL: which is better for analytics?",
         ["What is PostgreSQL?", "What is MySQL?", "PostgreSQL vs MySQL: which is better for analytics?"]),
        # follow-up fragments stay with their question
        ("Should I also observe the passenger side mirror during driving? If so, why?",
         ["Should I also observe the passenger side mirror during driving? If so, why?"]),
        ("How can machine learning be used to analyze geospatial data, and what are the challenges?",
         ["How can machine learning be used to analyze geospatial data?", "What are the challenges?"]),
        ("Please explain how to schedule a program and also can you explain how to schedule a recording??",
         ["Please explain how to schedule a program??", "Can you explain how to schedule a recording??"]),
    ],
)
def test_splits_real_questions(decomposer, question, expected):
    assert decomposer.decompose(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What are the steps to deploy a containerized application to AKS?",
        "Who founded Procter and Gamble?",  # one company
        "What is the history of Bosnia and Herzegovina?",  # one country
        "What is research and development?",  # a fixed pair
        "What do France and Germany have in common?",  # collective
        "What is the relationship between inflation and unemployment?",
        "What did Lennon and McCartney write?",  # joint subject: not distributed
        "What should I eat and do in Paris?",  # "do" is a verb here, not a new question
        "Which is bigger, the Sun or the Moon?",  # "or" asks for one answer
        "What is the capital of France and which river?",  # no safe split
        "capital of france",  # a keyword query is its own need
        # from RAG benchmarks (RAGBench questions)
        "Should I use PostgreSQL vs MySQL for analytics?",  # "vs" inside a sentence: no split
        "Tell me about the mechanisms of graft versus host disease (GVHD) in transplant patients.",
        "Do you wash cast iron with soap and water?",  # yes/no: "X and Y" is one condition
        "is climbing clematis and its berries poisonous to dogs",  # "its" needs its antecedent
        "Of which painting was this German dancer, actress, and writer the model?",  # one person
        "Who was the original recording artist of the song chosen over another for the Beatles' \"Help!\" film?",
        "Is It Just Me? was a single by the English rock band from what Suffolk city?",
        "How many terms did the Prime Minister who led the \"Who? Who?\" ministry serve?",
        "Which persons private jet is built by Boeing and is the manufacturer's largest aircraft?",
        "When was the designer of the attraction with variants in California, France and Tokyo born?",
        "What screenwriter co-wrote a film starring Nicolas Cage and Tea Leoni?",  # one film
        "For which band was the female member of Fitz and The Tantrums the front woman?",
        "What would happen if you change the spin of one particle and why?",  # "what" is the subject
    ],
)
def test_leaves_single_needs_whole(decomposer, question):
    assert decomposer.decompose(question) == [question]


def test_lowercase_query_keeps_its_case_and_punctuation(decomposer):
    assert decomposer.decompose("what is rag and how does it work") == ["what is rag", "how does rag work"]
    assert decomposer.decompose("what's the difference between a list and a tuple in python") == [
        "What is a list?",
        "What is a tuple?",
        "what's the difference between a list and a tuple in python",
    ]


@pytest.mark.parametrize("question", ["", "   ", "\n\t", "???", "... !"])
def test_empty_question_has_no_sub_question(decomposer, question):
    assert decomposer.decompose(question) == []


def test_whitespace_is_collapsed_and_duplicates_dropped(decomposer):
    assert decomposer.decompose("  What   is RAG?  ") == ["What is RAG?"]
    assert decomposer.decompose("What is RAG? What is RAG?") == ["What is RAG?"]


def test_deterministic(decomposer):
    question = "Where and when was the Eiffel Tower built, and what are the capitals of France and Germany?"
    first = decomposer.decompose(question)
    assert len(first) >= 3
    assert all(decomposer.decompose(question) == first for _ in range(3))
    assert RuleBasedDecomposer().decompose(question) == first


def test_options_switch_rules_off():
    plain = RuleBasedDecomposer(split_objects=False, resolve_pronouns=False)
    assert plain.decompose("What are the capitals of France and Germany?") == [
        "What are the capitals of France and Germany?"
    ]
    assert plain.decompose("What is RAG and how does it work?") == ["What is RAG?", "How does it work?"]


def test_pipeline_without_parser_only_uses_safe_text_rules():
    import spacy

    blank = RuleBasedDecomposer(spacy.blank("en"))
    assert blank.decompose("What is RAG and how does it work?") == ["What is RAG and how does it work?"]
    assert blank.decompose("Where and when was it built?") == ["Where was it built?", "When was it built?"]
    assert blank.decompose("What is the difference between TCP and UDP?")[:2] == ["What is TCP?", "What is UDP?"]


def test_protocol_is_the_plug_in_point():
    class Fixed:
        def decompose(self, question: str) -> list[str]:
            return [question]

    assert isinstance(RuleBasedDecomposer(), QuestionDecomposer)
    assert isinstance(Fixed(), QuestionDecomposer)
    assert not isinstance(object(), QuestionDecomposer)

"""`--set SECTION.KEY=VALUE`: typed, checked one by one, then validated with the rest."""

import pytest

from ragcli.config import load_settings
from ragcli.errors import ConfigError
from ragcli.overrides import parse_assignments


def test_values_are_typed_like_the_setting():
    values = parse_assignments(
        [
            "tos.qna_threshold=0.85",
            "tos.hybrid=true",
            "tos.handoff_message=Call 555-0100, 9-5.",
            "tos.qna_collection=2024",
            "retrieval.top_k=8",
        ]
    )
    assert values == {
        "tos.qna_threshold": 0.85,
        "tos.hybrid": True,
        "tos.handoff_message": "Call 555-0100, 9-5.",
        "tos.qna_collection": "2024",  # a string setting keeps the text typed
        "retrieval.top_k": 8,
    }
    settings = load_settings(None, values, {})
    assert settings.tos.qna_threshold == 0.85 and settings.tos.hybrid == ["bm25"]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("tos.hybrid=maybe", "--set tos.hybrid=maybe: Input should be 'bm25', 'rules' or"),
        ("tos.qna_threshold=-1", "--set tos.qna_threshold=-1: Input should be greater than"),
        ("retrieval.top_k=many", "--set retrieval.top_k=many: Input should be a valid integer"),
        ("nosuch.key=1", "--set nosuch.key: unknown setting"),
        ("tos=1", "--set tos: unknown setting"),
        ("=1", "--set '=1': expected SECTION.KEY=VALUE"),
    ],
)
def test_bad_assignments_name_the_flag(item, message):
    with pytest.raises(ConfigError) as error:
        parse_assignments([item])
    assert str(error.value).startswith(message)


def test_a_choice_of_words_keeps_the_word_yaml_would_make_a_boolean():
    assert parse_assignments(["ingest.ocr=off", "store.tenant=no", "store.url=null"]) == {
        "ingest.ocr": "off",
        "store.tenant": "no",
        "store.url": None,
    }

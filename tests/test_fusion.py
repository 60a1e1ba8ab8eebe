import pytest

from ragcli.retrieval.fusion import (
    DEFAULT_RRF_K,
    FusedHit,
    min_max_normalise,
    reciprocal_rank_fusion,
    weighted_score_fusion,
    with_components,
)

RANKINGS = {"dense": ["a", "b", "c"], "bm25": ["c", "a", "d"]}


def test_rrf_k60_by_hand() -> None:
    # a: ranks 1 and 2, c: ranks 3 and 1, b: rank 2 only, d: rank 3 only.
    assert reciprocal_rank_fusion(RANKINGS, k=60) == [
        ("a", pytest.approx(1 / 61 + 1 / 62, abs=1e-15)),
        ("c", pytest.approx(1 / 63 + 1 / 61, abs=1e-15)),
        ("b", pytest.approx(1 / 62, abs=1e-15)),
        ("d", pytest.approx(1 / 63, abs=1e-15)),
    ]


def test_rrf_default_k_is_1_by_hand() -> None:
    assert DEFAULT_RRF_K == 1
    assert reciprocal_rank_fusion(RANKINGS) == [
        ("a", pytest.approx(1 / 2 + 1 / 3)),  # 0.833
        ("c", pytest.approx(1 / 4 + 1 / 2)),  # 0.75
        ("b", pytest.approx(1 / 3)),
        ("d", pytest.approx(1 / 4)),
    ]


def test_rrf_small_k_and_weights_by_hand() -> None:
    fused = reciprocal_rank_fusion(RANKINGS, k=1, weights={"dense": 2.0, "bm25": 1.0})
    assert fused == [
        ("a", pytest.approx(2 / 2 + 1 / 3)),  # 1.333
        ("c", pytest.approx(2 / 4 + 1 / 2)),  # 1.0
        ("b", pytest.approx(2 / 3)),  # 0.667
        ("d", pytest.approx(1 / 4)),
    ]


def test_rrf_weights_can_flip_the_order() -> None:
    # Unweighted, a (1/61 + 1/62) beats c (1/63 + 1/61); tripling bm25 puts c (its #1) first.
    fused = reciprocal_rank_fusion(RANKINGS, k=60, weights={"dense": 1.0, "bm25": 3.0})
    assert [d for d, _ in fused] == ["c", "a", "d", "b"]
    assert dict(fused)["c"] == pytest.approx(1 / 63 + 3 / 61)


def test_rrf_repeated_id_counts_once_at_best_rank() -> None:
    assert reciprocal_rank_fusion({"x": ["a", "b", "a"]}, k=0) == [("a", 1.0), ("b", 0.5)]


def test_rrf_ties_keep_first_appearance() -> None:
    assert reciprocal_rank_fusion({"x": ["p"], "y": ["q"]}, k=0) == [("p", 1.0), ("q", 1.0)]


def test_rrf_edge_cases() -> None:
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"dense": [], "bm25": []}) == []
    with pytest.raises(ValueError, match="no fusion weight for retriever 'bm25'"):
        reciprocal_rank_fusion(RANKINGS, weights={"dense": 1.0})
    with pytest.raises(ValueError, match="k must be >= 0"):
        reciprocal_rank_fusion(RANKINGS, k=-1)


SCORES = {
    "dense": {"a": 0.9, "b": 0.5, "c": 0.7},  # -> a 1, b 0, c 0.5
    "bm25": {"c": 12.0, "d": 4.0, "a": 8.0},  # -> c 1, d 0, a 0.5
}


def test_min_max_normalise() -> None:
    assert min_max_normalise(SCORES["bm25"]) == {"c": 1.0, "d": 0.0, "a": 0.5}
    assert min_max_normalise({"only": 3.2}) == {"only": 1.0}
    assert min_max_normalise({"x": 2.0, "y": 2.0}) == {"x": 1.0, "y": 1.0}
    assert min_max_normalise({}) == {}


def test_weighted_score_fusion_by_hand() -> None:
    fused = weighted_score_fusion(SCORES, {"dense": 0.6, "bm25": 0.4})
    assert fused == [
        ("a", pytest.approx(0.6 * 1 + 0.4 * 0.5)),  # 0.8
        ("c", pytest.approx(0.6 * 0.5 + 0.4 * 1)),  # 0.7
        ("b", 0.0),  # dense's worst, missing from bm25
        ("d", 0.0),  # bm25's worst, missing from dense; ties keep first appearance
    ]


def test_weighted_score_fusion_defaults_to_equal_weights() -> None:
    assert weighted_score_fusion(SCORES) == [
        ("a", pytest.approx(0.5 * 1 + 0.5 * 0.5)),  # 0.75
        ("c", pytest.approx(0.5 * 0.5 + 0.5 * 1)),  # 0.75, tie: a appeared first
        ("b", 0.0),
        ("d", 0.0),
    ]
    assert weighted_score_fusion({"bm25": {"x": 3.0, "y": 1.0}}) == [("x", 1.0), ("y", 0.0)]
    assert weighted_score_fusion({}) == []


def test_weighted_score_fusion_is_scale_free() -> None:
    scaled = {
        "dense": SCORES["dense"],
        "bm25": {d: s * 1000 + 7 for d, s in SCORES["bm25"].items()},
    }
    assert weighted_score_fusion(scaled, {"dense": 0.6, "bm25": 0.4}) == weighted_score_fusion(
        SCORES, {"dense": 0.6, "bm25": 0.4}
    )


def test_weighted_score_fusion_weights_decide() -> None:
    assert [d for d, _ in weighted_score_fusion(SCORES, {"dense": 0.3, "bm25": 0.7})] == [
        "c",  # 0.3 * 0.5 + 0.7 = 0.85
        "a",  # 0.3 + 0.7 * 0.5 = 0.65
        "b",
        "d",
    ]
    with pytest.raises(ValueError, match="no fusion weight for retriever 'bm25'"):
        weighted_score_fusion(SCORES, {"dense": 1.0})


def test_with_components_keeps_raw_scores_and_ranks() -> None:
    fused = reciprocal_rank_fusion({name: list(s) for name, s in SCORES.items()})
    hits = with_components(fused, SCORES)
    assert [h.id for h in hits] == [d for d, _ in fused]
    by_id = {h.id: h for h in hits}
    assert by_id["a"] == FusedHit(
        id="a",
        score=dict(fused)["a"],
        scores={"dense": 0.9, "bm25": 8.0},
        ranks={"dense": 1, "bm25": 2},
    )
    assert by_id["d"].scores == {"bm25": 4.0}
    assert by_id["d"].ranks == {"bm25": 3}

"""A tiny BEIR dataset whose metrics are worked out by hand (`ragcli eval` tests)."""

import json
import math

# BM25 (after stemming and stopwords): "zebra" matches d2 (tf 2) above d1 (tf 1) and nothing
# else; "giraffe neck" matches d4 only.
CORPUS = [
    {"_id": "d1", "title": "", "text": "Zebra stripes pattern."},
    {"_id": "d2", "title": "", "text": "Zebra zebra herd savanna."},
    {"_id": "d3", "title": "", "text": "Lion pride hunting."},
    {"_id": "d4", "title": "", "text": "Giraffe neck tall."},
]
QUERIES = [{"_id": "q1", "text": "zebra"}, {"_id": "q2", "text": "giraffe neck"}]
# q1: its one relevant document d1 is ranked 2nd. q2: d4 is 1st, d3 is never retrieved.
QRELS = "query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\nq2\td4\t1\r\nq2\td3\t1\r\n"
NDCG_Q1 = 1 / math.log2(3)
NDCG_Q2 = 1 / (1 + 1 / math.log2(3))
EXPECTED_BM25 = {
    "nDCG@10": (NDCG_Q1 + NDCG_Q2) / 2,
    "Recall@10": (1 + 0.5) / 2,
    "Recall@100": (1 + 0.5) / 2,
    "MRR@10": (0.5 + 1) / 2,
}


def write_dataset(directory, corpus=CORPUS):
    (directory / "qrels").mkdir(parents=True, exist_ok=True)
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (directory / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (directory / "qrels" / "test.tsv").write_text(QRELS)


# ArguAna's shape: each query is itself a corpus document (same id, same text) and its
# relevant document is the counter-argument. BM25 ranks the query's own text first and its
# counter-argument second, so kept, every query's one relevant document sits at rank 2.
ARGUANA_CORPUS = [
    {"_id": "a1", "title": "", "text": "School uniforms stop bullying over expensive clothes."},
    {"_id": "a2", "title": "", "text": "Uniforms do not stop bullying; children find targets."},
    {"_id": "a3", "title": "", "text": "Nuclear power is cheap clean energy for the grid."},
    {"_id": "a4", "title": "", "text": "Nuclear power is not cheap once waste storage is paid."},
    {"_id": "a5", "title": "", "text": "Zoos protect endangered species from extinction."},
]
ARGUANA_QUERIES = [
    {"_id": "a1", "text": ARGUANA_CORPUS[0]["text"]},
    {"_id": "a3", "text": ARGUANA_CORPUS[2]["text"]},
]
ARGUANA_QRELS = "query-id\tcorpus-id\tscore\na1\ta2\t1\na3\ta4\t1\n"


def write_arguana(directory):
    (directory / "qrels").mkdir(parents=True, exist_ok=True)
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in ARGUANA_CORPUS))
    (directory / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in ARGUANA_QUERIES))
    (directory / "qrels" / "test.tsv").write_text(ARGUANA_QRELS)

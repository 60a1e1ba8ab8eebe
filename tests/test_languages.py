"""Languages (issue 68): each chunk's language detected at ingest, a BM25 analyzer per
language, the query analyzed with each analyzer its collection holds, fusion leaning on
BM25 for a language the embedder does not cover, and the note that says so."""

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from ragcli.bm25.index import LexicalIndex
from ragcli.cli import app
from ragcli.config import EmbeddingSettings, RetrievalSettings
from ragcli.embedding.embedder import PrefixedEmbedder, embed_queries
from ragcli.languages.analyzers import analyze, analyzer_of
from ragcli.languages.coverage import embedder_languages
from ragcli.languages.detect import detect_languages, detect_query
from ragcli.retrieval.retriever import Retriever
from ragcli.terms import answer_words, index_terms

runner = CliRunner()

GERMAN = (
    "Öffnen Sie die Einstellungen und schalten Sie das Nachtlicht ein, damit der Bildschirm "
    "abends wärmer wird."
)
CHINESE = "要在纸张的两面打印，请按 Ctrl+P，打开“页面设置”选项卡，并在“双面”列表中选择一个选项。"
ENGLISH = (
    "To print on both sides of the paper, press Ctrl+P and choose an option in the Two-sided list."
)


def test_each_text_gets_its_language_and_code_none():
    found = detect_languages([GERMAN, CHINESE, ENGLISH, "x = f(1, 2)\nprint(x)"])
    assert found == ["de", "zh", "en", ""]


def test_a_query_is_told_among_its_collections_languages_only():
    assert detect_query("Wie schalte ich das Nachtlicht ein?", ["de", "en"]) == "de"
    assert detect_query("Wie schalte ich das Nachtlicht ein?", ["en"]) == "en"  # the only one
    assert detect_query("anything", []) == ""


def test_english_keeps_the_tokens_every_stored_index_holds():
    texts = [ENGLISH, "Hyphen-ated words and don't split"]
    assert index_terms(texts, analyzers=["en", "en"]) == index_terms(texts)
    assert analyzer_of("ko") == analyzer_of("") == "en"  # no analyzer of its own


def test_analyzers_stem_segment_and_keep_marks():
    assert analyze(["Die Häuser des Hauses"], "de") == [["haus", "haus"]]  # "die", "des" out
    assert analyze(["हिन्दी भाषा"], "hi")[0][0].startswith("हिन्द")  # not torn at its vowel signs
    assert analyze(["API接口文档"], "zh") == [["api", "接口", "文档"]]
    assert analyze(["ファイルを削除"], "ja") == [["ファ", "ァイ", "イル", "ルを", "を削", "削除"]]
    assert analyze(["บลูทูธ"], "th") == [["บล", "ลู", "ูท", "ทู", "ูธ"]]


def test_answer_words_are_unicode_words_and_segmented_runs():
    assert answer_words("Zürich's state-of-the-art") == ["zürich's", "state-of-the-art"]
    assert answer_words("打开蓝牙 API") == ["api", "打开", "蓝牙"]


def index_with(tmp_path: Path, docs: dict[str, tuple[str, str]]) -> LexicalIndex:
    index = LexicalIndex(tmp_path / "bm25")
    index.upsert(list(docs), [t for t, _ in docs.values()], [lang for _, lang in docs.values()])
    index.save()
    return LexicalIndex(tmp_path / "bm25")  # as a query process loads it


def test_a_query_meets_each_language_by_its_analyzer(tmp_path):
    index = index_with(
        tmp_path,
        {"zh": (CHINESE, "zh"), "de": (GERMAN, "de"), "en": (ENGLISH, "en")},
    )
    assert index.languages() == {"zh": 1, "de": 1, "en": 1}
    assert index.search("怎样双面打印？", 1)[0][0] == "zh"  # one clause: no term before
    assert index.search("Wann wird der Bildschirm wärmer?", 1)[0][0] == "de"
    assert index.search("print both sides", 1)[0][0] == "en"


def test_an_index_saved_before_languages_keeps_working(tmp_path):
    index = index_with(tmp_path, {"a": (ENGLISH, ""), "b": (GERMAN, "")})
    meta = next((tmp_path / "bm25").glob("gen-*/meta.json"))
    old = json.loads(meta.read_text())
    del old["languages"]  # what an earlier ragcli wrote
    meta.write_text(json.dumps(old))
    index = LexicalIndex(tmp_path / "bm25")
    assert index.languages() == {}
    assert index.search("print both sides", 1)[0][0] == "a"
    assert index.search("Nachtlicht", 1)[0][0] == "b"


class Store:
    """The retriever's store as far as fusion needs it: candidates and their cosines."""

    def nearest(self, name, vector, depth, where=None):
        return {"de": 0.9, "zh": 0.1}

    def embeddings(self, name, ids):
        return {}


class Lexical:
    def __init__(self, index):
        self.index = index

    def searchable(self, name, store):
        return self.index


def test_a_query_in_a_language_the_embedder_lacks_leans_on_bm25(tmp_path):
    index = index_with(tmp_path, {"zh": (CHINESE, "zh"), "de": (GERMAN, "de")})
    options = RetrievalSettings(uncovered_dense_weight=0.1)
    retriever = Retriever(Store(), None, "c", "hybrid", Lexical(index), options)
    assert retriever.dense_weight("怎样双面打印？", index) == 0.1
    assert retriever.uncovered == {"zh"}
    covering = Retriever(Store(), None, "c", "hybrid", Lexical(index), options, languages=None)
    assert covering.dense_weight("怎样双面打印？", index) == options.dense_weight
    assert not covering.uncovered


def test_the_embedder_declares_its_languages():
    assert embedder_languages(EmbeddingSettings()) == {"en"}
    assert embedder_languages(EmbeddingSettings(languages=["de", "EN"])) == {"de", "en"}
    assert embedder_languages(EmbeddingSettings(languages=["*"])) is None


class Echo:
    name, backend, max_seq_length, precision = "echo", "test", 128, "fp32"

    def __init__(self):
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen += list(texts)
        return np.zeros((len(texts), 2), dtype=np.float32)


def test_prefixes_mark_queries_and_passages():
    inner = Echo()
    embedder = PrefixedEmbedder(inner, "query: ", "passage: ")
    embedder.embed(["a chunk"])
    embed_queries(embedder, ["a question"])
    embed_queries(inner, ["unmarked"])  # an embedder without prefixes embeds as it is
    assert inner.seen == ["passage: a chunk", "query: a question", "unmarked"]


def test_search_says_once_that_the_embedder_does_not_cover_the_query(tmp_path):
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "drucken.md").write_text(f"# Drucken\n\n{GERMAN}\n", encoding="utf-8")
    (docs / "打印.md").write_text(f"# 打印\n\n{CHINESE}\n", encoding="utf-8")
    store = tmp_path / "store"
    ingest = runner.invoke(app, ["ingest", str(docs), "--store", str(store)])
    assert ingest.exit_code == 0, ingest.output
    found = runner.invoke(app, ["search", "怎样双面打印", "--json", "--store", str(store)])
    assert found.exit_code == 0, found.output
    data = json.loads(found.stdout)  # the note also goes to stderr, beside the data
    assert "does not cover Chinese" in found.stderr
    assert Path(data["results"][0]["file"]).name == "打印.md"
    assert len(data["notes"]) == 1 and "Chinese (zh)" in data["notes"][0]
    assert "embedding.languages" in data["notes"][0]
    status = json.loads(runner.invoke(app, ["status", "--json", "--store", str(store)]).stdout)
    (collection,) = status["collections"]
    assert collection["languages"] == {"de": 1, "zh": 1}


def test_sentences_end_at_each_scripts_stops():
    from ragcli.llm.segment import sentence_texts

    assert sentence_texts("请按 Ctrl+P。如果它是灰色的，就不能双面打印！好吗？") == [
        "请按 Ctrl+P。",
        "如果它是灰色的，就不能双面打印！",
        "好吗？",
    ]
    assert sentence_texts("Откройте панель. Нажмите кнопку.") == [
        "Откройте панель.",
        "Нажмите кнопку.",
    ]
    assert sentence_texts("यह पहला वाक्य है। यह दूसरा है।") == ["यह पहला वाक्य है।", "यह दूसरा है।"]
    assert sentence_texts("ควรเปลี่ยนรหัสผ่าน เปิดแผงผู้ใช้") == ["ควรเปลี่ยนรหัสผ่าน", "เปิดแผงผู้ใช้"]
    assert sentence_texts("See e.g. the list. Then stop.") == ["See e.g. the list.", "Then stop."]

"""Settings: built-in defaults < config.yaml < RAGCLI_* environment < command-line flags.

The defaults here mirror config.yaml at the repository root, which documents each value.
"""

from __future__ import annotations

import os
import types
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    model_validator,
)
from pydantic.fields import FieldInfo

from ragcli.errors import ConfigError

Fraction = Field(ge=0.0, le=1.0)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreSettings(Section):
    path: str = ".ragcli"
    url: str | None = None  # a Chroma server, http(s)://HOST:PORT; None: the local store
    collection: str = "docs"
    lock_timeout: float = Field(30.0, ge=0)
    # For a Chroma server behind a proxy that wants a token (from RAGCLI_STORE_TOKEN; never
    # printed), sent in this header: "Authorization" (as "Bearer TOKEN") or any other
    # header name such as X-Chroma-Token (the token as it is).
    token: SecretStr | None = None
    token_header: str = Field("Authorization", pattern=r"^[A-Za-z0-9-]+$")
    tenant: str = "default_tenant"
    database: str = "default_database"


class EmbeddingSettings(Section):
    # local: the model runs in this process (backend onnx or torch); openai: a serving
    # engine's OpenAI-compatible POST {url}/embeddings (TEI, Infinity, vLLM, Ollama, OpenAI).
    provider: Literal["local", "openai"] = "local"
    model: str = "all-MiniLM-L6-v2"  # for openai: the name the server knows the model by
    backend: Literal["onnx", "torch"] = "onnx"
    device: str = "cpu"
    # Texts per forward pass (per request for a server). Unset: ONNX_BATCH_SIZE on the
    # CPU's ONNX, where small batches pad least and ran fastest (docs/performance.md), and
    # 32 for torch and per server request.
    batch_size: int | None = Field(None, ge=1, le=1024)
    # int8: the same graph with dynamically quantised weights (onnx backend only), faster
    # on a CPU; a collection keeps the precision it was built with.
    precision: Literal["fp32", "int8"] = "fp32"
    url: str | None = None  # the server's API base, e.g. http://gpu-box:7997/v1
    api_key: SecretStr | None = None  # from RAGCLI_EMBEDDING_API_KEY; never printed
    concurrency: int = Field(4, ge=1, le=64)  # requests in flight
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(5, ge=0, le=20)
    # The tokenizer that sizes chunks for a served model (a model folder or the bundled
    # model's name); by default the model's own when it is local, else the bundled one.
    tokenizer: str | None = None
    # The languages the model covers (ISO 639-1 codes; "*": any). Unset: English, the
    # bundled model's; a query in another is ranked mostly by BM25 (docs/retrieval.md).
    languages: list[str] | None = None
    # Put before every query and every passage embedded, as E5 ("query: ", "passage: "),
    # BGE and Qwen3-style instruction models need. A change calls for a new ingest.
    query_prefix: str = ""
    passage_prefix: str = ""

    @model_validator(mode="after")
    def _server_named(self) -> EmbeddingSettings:
        if self.provider == "openai" and not self.url:
            raise ValueError("provider openai needs embedding.url (the server's API base)")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return self


class ChunkingSettings(Section):
    max_tokens: int = Field(256, ge=32, le=512)
    overlap_tokens: int = Field(32, ge=0, le=128)


class IngestSettings(Section):
    ocr: Literal["auto", "off", "force"] = "auto"
    ocr_languages: str = Field("eng", pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$")
    # Processes that read, parse and OCR files (ingest/parse_pool.py); None: the cores.
    workers: int | None = Field(None, ge=1, le=64)


class RerankSettings(Section):
    """`retrieval.rerank`: the stage that reorders the fused candidates before a mode
    grades or answers (retrieval/rerank/). It never replaces a chunk's `score`, the cosine
    every threshold compares; its own score is the chunk's `component_scores.rerank`."""

    # none | engine (a serving engine's /rerank) | cross-encoder (sentence-transformers,
    # in this process) | llm (the answer model judges each candidate)
    provider: Literal["none", "engine", "cross-encoder", "llm"] = "none"
    url: str | None = None  # engine: the API base /rerank is added to (…/v1, …/v2 are fine)
    model: str | None = None  # engine: the served name; cross-encoder: a folder or a hub name
    candidates: int = Field(30, ge=1, le=1000)  # fused chunks handed over; top_k come back
    # engine: the request's shape. auto: Cohere's {query, documents} (Infinity, vLLM,
    # llama.cpp, Cohere, Jina) first, TEI's {query, texts} if the server refuses that
    # shape; the shape that answered is kept for the process.
    api: Literal["auto", "cohere", "tei"] = "auto"
    api_key: SecretStr | None = None  # from RAGCLI_RERANK_API_KEY; never printed
    timeout: float = Field(10.0, gt=0, le=600)  # engine: seconds one request may take
    max_retries: int = Field(2, ge=0, le=20)  # engine: 429, 5xx, timeouts, dropped connections
    batch_size: int = Field(32, ge=1, le=1024)  # cross-encoder: pairs per forward pass
    device: str = "cpu"  # cross-encoder
    # llm: pointwise (a 0-10 score per candidate, llm_window candidates per call) or
    # listwise (the model orders every candidate in one call)
    llm_method: Literal["pointwise", "listwise"] = "pointwise"
    llm_window: int = Field(10, ge=1, le=100)

    @model_validator(mode="after")
    def _provider_complete(self) -> RerankSettings:
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        if self.provider == "engine" and not (self.url and self.model):
            raise ValueError(
                "provider engine needs retrieval.rerank.url (the server's API base) and "
                "retrieval.rerank.model (the name it serves the reranker under)"
            )
        if self.provider == "cross-encoder" and not self.model:
            raise ValueError(
                "provider cross-encoder needs retrieval.rerank.model (a model folder or a "
                "Hugging Face name, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2)"
            )
        return self


class RetrievalSettings(Section):
    top_k: int = Field(5, ge=1, le=100)
    mode: Literal["dense", "bm25", "hybrid"] = "hybrid"
    fusion: Literal["rrf", "weighted"] = "weighted"
    rrf_k: int = Field(60, ge=0, le=1000)
    dense_weight: float = Field(0.6, ge=0.0, le=1.0)
    candidates: int = Field(100, ge=1, le=1000)
    # dense_weight for a query in a language the embedder does not cover
    # (embedding.languages), fitted on folds: docs/retrieval.md, "Languages".
    uncovered_dense_weight: float = Field(0.1, ge=0.0, le=1.0)
    # How far a candidate whose heading path is closer to the question than its text
    # moves towards the heading's cosine in the dense ranking (retrieval/headings.py);
    # 0: the text alone. Off by default: docs/retrieval.md has what 0.5 measured.
    heading_weight: float = Field(0.0, ge=0.0, le=1.0)
    rerank: RerankSettings = RerankSettings()
    # HyDE: the answer model writes a short passage that would answer the question, and
    # dense retrieval ranks by it with the question (one model call per search query).
    hyde: bool = False
    # Offline query expansion: prf, pseudo-relevance feedback from a first search's best
    # chunks (a Rocchio move of the dense query; RM3 terms for BM25 measured worse); none.
    expand: Literal["none", "prf"] = "none"


class CragSettings(Section):
    relevant_threshold: float = Field(0.7, ge=0.0, le=1.0)
    ambiguous_threshold: float = Field(0.4, ge=0.0, le=1.0)
    web_results: int = Field(3, ge=0, le=20)
    max_rewrites: int = Field(1, ge=0, le=5)

    @model_validator(mode="after")
    def _bands_ordered(self) -> CragSettings:
        if self.ambiguous_threshold > self.relevant_threshold:
            raise ValueError("ambiguous_threshold must not be above relevant_threshold")
        return self


class ReflectSettings(Section):
    min_score: float = Field(0.8, ge=0.0, le=1.0)
    max_retries: int = Field(2, ge=1, le=10)


TosSignal = Literal["bm25", "rules", "triplets"]


def _as_signals(value: Any) -> Any:
    """Configs written when tos.hybrid was a switch keep working (true: [bm25], false:
    []); "bm25,rules" (an environment variable, --set) is a list too."""
    if value is None or value is False:
        return []
    if value is True:
        return ["bm25"]
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    return list(dict.fromkeys(value)) if isinstance(value, list) else value


TosSignals = Annotated[list[TosSignal], BeforeValidator(_as_signals)]


class TosSettings(Section):
    qna_collection: str = "qna"
    docs_collection: str = "docs"
    qna_threshold: float = Field(0.80, ge=0.0, le=1.0)
    qna_mid_threshold: float = Field(0.70, ge=0.0, le=1.0)
    tos_threshold: float = Field(0.65, ge=0.0, le=1.0)
    tos_mid_threshold: float = Field(0.55, ge=0.0, le=1.0)
    tos_low_threshold: float = Field(0.40, ge=0.0, le=1.0)
    verification_threshold: float = Field(0.70, ge=0.0, le=1.0)
    # Extra signals of the documents stage beside vector search (pipeline/modes/tos/
    # signals.py): bm25 (keyword search fused in), rules (tos.rules_file), triplets (the
    # policy statements stored with each chunk). true and false mean [bm25] and []. [bm25]
    # found the expected passage most often on labelled ToS questions (docs/modes.md).
    hybrid: TosSignals = Field(default_factory=lambda: list[TosSignal](["bm25"]))
    rules_file: str | None = None  # YAML: rules: [{name, match: [...], boost: ...}]
    clarification_topics: int = Field(3, ge=1, le=10)
    # Neutral: a deployment names its own support channel (config.yaml, --set).
    handoff_message: str = (
        "The documents do not answer this question. Please ask a person who knows the "
        "subject, or add the documents that cover it."
    )

    @model_validator(mode="after")
    def _bands_ordered(self) -> TosSettings:
        if "rules" in self.hybrid and not self.rules_file:
            raise ValueError("tos.hybrid lists rules: set tos.rules_file to the rules' YAML file")
        if self.qna_mid_threshold > self.qna_threshold:
            raise ValueError("qna_mid_threshold must not be above qna_threshold")
        if not self.tos_low_threshold <= self.tos_mid_threshold <= self.tos_threshold:
            raise ValueError(
                "tos thresholds must satisfy tos_low_threshold <= tos_mid_threshold "
                "<= tos_threshold"
            )
        return self


class AgenticSettings(Section):
    min_sub_questions: int = Field(2, ge=1, le=10)
    max_sub_questions: int = Field(4, ge=1, le=10)
    top_k: int = Field(5, ge=1, le=100)
    concurrency: int = Field(4, ge=1, le=32)

    @model_validator(mode="after")
    def _range_ordered(self) -> AgenticSettings:
        if self.min_sub_questions > self.max_sub_questions:
            raise ValueError("min_sub_questions must not be above max_sub_questions")
        return self


class AutoSettings(Section):
    """`--mode auto`'s rules (pipeline/modes/auto/routing.py), on the similarity scale of
    retrieval scores, as the tos thresholds are."""

    faq_threshold: float = Field(0.80, ge=0.0, le=1.0)
    min_parts: int = Field(2, ge=2, le=10)
    strong_evidence: float = Field(0.70, ge=0.0, le=1.0)
    min_strong_chunks: int = Field(1, ge=1, le=100)
    weak_evidence: float = Field(0.40, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _bands_ordered(self) -> AutoSettings:
        if self.weak_evidence > self.strong_evidence:
            raise ValueError("weak_evidence must not be above strong_evidence")
        return self


class SupportSettings(Section):
    """The sentence-support check every answer gets (pipeline/support.py)."""

    enabled: bool = True
    threshold: float = Field(0.5, ge=0.0, le=1.0)


class LLMSettings(Section):
    provider: Literal["auto", "openai", "extractive"] = "auto"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: SecretStr | None = None
    max_tokens: int = Field(500, ge=1, le=100_000)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    timeout: float = Field(30.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)
    answer_max_chars: int = Field(700, ge=100, le=10_000)
    answer_min_relevance: float = Field(0.2, ge=0.0, le=1.0)


class WebSettings(Section):
    provider: Literal["auto", "tavily", "none"] = "auto"
    base_url: str | None = None
    api_key: SecretStr | None = None
    max_results: int = Field(3, ge=1, le=20)
    search_depth: Literal["basic", "advanced"] = "basic"
    max_content_chars: int = Field(2000, ge=100, le=50_000)
    timeout: float = Field(15.0, gt=0)


class ModelPrice(Section):
    input: float = Field(ge=0.0)  # dollars per 1M prompt tokens
    output: float = Field(ge=0.0)  # dollars per 1M completion tokens


# OpenAI list prices; config.yaml's `prices:` replaces this table as a whole.
DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "gpt-4o-mini": {"input": 0.15, "output": 0.60},
    "gpt-4o": {"input": 2.50, "output": 10.00},
    "gpt-4.1": {"input": 2.00, "output": 8.00},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "gpt-4.1-nano": {"input": 0.10, "output": 0.40},
}


class LimitsSettings(Section):
    max_iterations: int = Field(10, ge=1, le=100)
    max_web_calls: int = Field(5, ge=0, le=100)
    max_llm_calls: int = Field(30, ge=1, le=1000)


class ConversationSettings(Section):
    # What of a conversation is sent to the model that rewrites a follow-up: the latest
    # turns, at most this many and at most this many tokens, so it never overflows.
    max_turns: int = Field(6, ge=1, le=100)
    max_tokens: int = Field(1500, ge=100, le=100_000)
    # A question longer than this (a stray paste) is refused, naming both lengths.
    max_question_chars: int = Field(4000, ge=100, le=100_000)


class DocumentsSettings(Section):
    # `ask --file` and auto's summaries: the document text one model call may read (in
    # tokens, estimated at 4 characters each); longer documents are map-reduced over their
    # sections. Set it to your model's context less room for the prompt and the answer.
    context_tokens: int = Field(6000, ge=500, le=1_000_000)
    # The offline backend's extractive summary: at most this many sentences a document.
    summary_sentences: int = Field(12, ge=1, le=100)


class ServeSettings(Section):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    # Required to bind beyond this machine; when set, every HTTP request must carry it.
    token: SecretStr | None = None


class TraceSettings(Section):
    # OTLP/HTTP receiver every run is sent to as OpenTelemetry spans (Phoenix, Langfuse,
    # Jaeger, Tempo ...): a base URL (/v1/traces is added) or the full traces URL. Unset, the
    # standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT are read;
    # with none of them, nothing is exported and no OpenTelemetry code is imported.
    otlp_endpoint: str | None = None
    # Seconds one export may take: a collector that is down or slow costs at most this.
    export_timeout: float = Field(2.0, gt=0, le=60)
    # The project the spans land in (Phoenix reads openinference.project.name).
    project: str = "ragcli"


class Settings(Section):
    store: StoreSettings = StoreSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    ingest: IngestSettings = IngestSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    crag: CragSettings = CragSettings()
    reflect: ReflectSettings = ReflectSettings()
    tos: TosSettings = TosSettings()
    agentic: AgenticSettings = AgenticSettings()
    auto: AutoSettings = AutoSettings()
    support: SupportSettings = SupportSettings()
    llm: LLMSettings = LLMSettings()
    web: WebSettings = WebSettings()
    prices: dict[str, ModelPrice] = Field(
        default_factory=lambda: {k: ModelPrice(**v) for k, v in DEFAULT_PRICES.items()}
    )
    limits: LimitsSettings = LimitsSettings()
    conversation: ConversationSettings = ConversationSettings()
    documents: DocumentsSettings = DocumentsSettings()
    serve: ServeSettings = ServeSettings()
    trace: TraceSettings = TraceSettings()

    def thresholds(self) -> dict[str, Any]:
        """Every threshold and limit in force, for the trace."""
        return {
            "retrieval": self.retrieval.model_dump(exclude={"rerank": {"api_key"}}),
            "crag": self.crag.model_dump(),
            "reflect": self.reflect.model_dump(),
            "tos": self.tos.model_dump(exclude={"handoff_message"}),
            "agentic": self.agentic.model_dump(),
            "auto": self.auto.model_dump(),
            "support": self.support.model_dump(),
            "limits": self.limits.model_dump(),
            "documents": self.documents.model_dump(),
        }

    def redacted(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        for path in SECRETS:
            *sections, key = path.split(".")
            node = data
            for section in sections:
                node = node[section]
            if node.get(key):
                node[key] = "***"
        return data


# Every setting that holds a secret: redacted wherever settings are shown.
SECRETS = (
    "llm.api_key",
    "web.api_key",
    "embedding.api_key",
    "retrieval.rerank.api_key",
    "store.token",
    "serve.token",
)


# Environment variables that are not of the RAGCLI_SECTION__KEY form.
ENV_ALIASES = {
    "RAGCLI_STORE": "store.path",
    "OPENAI_API_KEY": "llm.api_key",
    "OPENAI_BASE_URL": "llm.base_url",
    "TAVILY_API_KEY": "web.api_key",
    "RAGCLI_EMBEDDING_API_KEY": "embedding.api_key",
    "RAGCLI_RERANK_API_KEY": "retrieval.rerank.api_key",
    "RAGCLI_STORE_TOKEN": "store.token",
    "RAGCLI_SERVE_TOKEN": "serve.token",
}


def load_settings(
    config_path: Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    override_names: dict[str, str] | None = None,
) -> Settings:
    """Resolve settings with their precedence; any bad value is one ConfigError naming the
    key and where the value came from: the file, the environment variable, or the flag
    (`override_names` maps an override's dotted key to the flag that set it)."""
    environ = dict(os.environ if environ is None else environ)
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}  # dotted key -> where its value came from
    if config_path is None and Path("config.yaml").is_file():
        config_path = Path("config.yaml")
    if config_path is not None:
        data = _read_yaml(config_path)
        _merge(merged, data)
        origins.update(dict.fromkeys(_dotted_keys(data), str(config_path)))
    for dotted, (variable, value) in _env_overrides(environ).items():
        _set_dotted(merged, dotted, value)
        origins[dotted] = variable
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(merged, dotted, value)
            origins[dotted] = (override_names or {}).get(dotted, f"--set {dotted}")
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origins)) from None


def _dotted_keys(data: dict[str, Any], prefix: str = "") -> list[str]:
    """Every key of a nested mapping as a dotted path, sections included."""
    keys = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        keys.append(dotted)
        if isinstance(value, dict):
            keys.extend(_dotted_keys(value, dotted + "."))
    return keys


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: configuration file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections at the top level")
    return data


def _env_overrides(environ: dict[str, str]) -> dict[str, tuple[str, Any]]:
    """dotted key -> (the variable that set it, its value)."""
    found: dict[str, tuple[str, Any]] = {}
    for name, raw in environ.items():
        if name in ENV_ALIASES:
            found[ENV_ALIASES[name]] = (name, raw)
        elif name.startswith("RAGCLI_") and "__" in name:
            # RAGCLI_RETRIEVAL__RERANK__PROVIDER is retrieval.rerank.provider
            dotted = ".".join(name[len("RAGCLI_") :].lower().split("__"))
            found[dotted] = (name, typed_value(setting_field(dotted), raw))
    return found


def setting_field(dotted: str) -> FieldInfo | None:
    """The field behind SECTION.KEY (or SECTION.SUBSECTION.KEY), or None when there is no
    such setting."""
    parts = dotted.split(".")
    if len(parts) < 2 or not all(parts):
        return None
    model: Any = Settings
    field: FieldInfo | None = None
    for part in parts:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        field = model.model_fields.get(part)
        if field is None:
            return None
        model = field.annotation
    return field


def typed_value(field: FieldInfo | None, raw: str) -> Any:
    """A setting typed as text (an environment variable, a `--set` value) as its field
    expects it: a field that takes text keeps exactly what was typed, so a collection
    named 2024 or a tenant named no stays a string (YAML would make them a number and
    False); other fields parse as YAML (numbers, booleans, lists). An optional field takes
    null, ~ or nothing as None."""
    parsed = _parse_yaml(raw)
    if field is None or not _takes_text(field.annotation):
        return parsed
    if parsed is None and _optional(field.annotation):
        return None
    return raw


def _parse_yaml(raw: str) -> Any:
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


def _members(annotation: Any) -> tuple[Any, ...]:
    """A union's members (`str | None` -> str, None), or the annotation alone."""
    if get_origin(annotation) in (Union, types.UnionType):
        return get_args(annotation)
    return (annotation,)


def _optional(annotation: Any) -> bool:
    return type(None) in _members(annotation)


def _takes_text(annotation: Any) -> bool:
    for member in _members(annotation):
        if member in (str, SecretStr):
            return True
        if get_origin(member) is Literal and all(isinstance(a, str) for a in get_args(member)):
            return True
    return False


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    *sections, key = dotted.split(".")
    node = target
    for depth, section in enumerate(sections, start=1):
        node = node.setdefault(section, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{'.'.join(sections[:depth])}: expected a mapping")
    node[key] = value


def _merge(target: dict[str, Any], data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def _describe(exc: ValidationError, origins: dict[str, str]) -> str:
    error = exc.errors()[0]
    parts = [str(part) for part in error["loc"]]
    key = ".".join(parts) or "(top level)"
    # Where the value came from: the deepest of its keys (or their sections) that was set.
    prefixes = [".".join(parts[:n]) for n in range(len(parts), 0, -1)]
    source = next((origins[k] for k in prefixes if k in origins), None)
    if parts and source in (None, origins.get(parts[0])):
        # A rule across a section's keys (a provider needs its url): where the provider
        # was chosen, else where the last of its keys came from.
        inside = [origin for dotted, origin in origins.items() if dotted.startswith(key + ".")]
        source = origins.get(f"{key}.provider") or (inside[-1] if inside else source)
    source = source or "config.yaml"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key"
    value = error.get("input")
    hide = (
        isinstance(value, dict)
        or error["type"] == "extra_forbidden"
        or "api_key" in key
        or key.endswith(".token")
    )
    shown = "" if hide else f" (got {value!r})"
    return f"{source}: {key}: {message}{shown}"

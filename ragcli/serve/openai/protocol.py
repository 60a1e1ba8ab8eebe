"""The OpenAI chat completions API as this server reads and writes it: the request (what
clients send, unknown fields tolerated), the error object, and the model ids, one per
mode (`ragcli-standard` ... `ragcli-auto`), a collection after a colon
(`ragcli-auto:handbook`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PREFIX = "ragcli-"

ErrorType = Literal["invalid_request_error", "authentication_error", "not_found_error", "api_error"]


class ApiError(Exception):
    """An error a client receives as the OpenAI error object, with its HTTP status."""

    def __init__(
        self,
        status: int,
        message: str,
        kind: ErrorType = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        }


class Extension(BaseModel):
    """The request's `ragcli` field (the SDK's `extra_body={"ragcli": {...}}`): what an
    OpenAI request has no field for."""

    model_config = ConfigDict(extra="forbid")

    collection: str | None = None
    paths: list[str] | None = None
    types: list[str] | None = None
    since: str | None = None
    meta: list[str] | None = None  # the documents' metadata, as `ask --meta`: ["author=Jane"]
    top_k: int | None = Field(default=None, ge=1, le=100)
    # Ingested files to answer over whole (as `ask --file`), with ragcli-auto or -standard.
    files: list[str] | None = None


class ChatRequest(BaseModel):
    """A chat completions request. The sampling fields (temperature, top_p, max_tokens
    ...) are accepted and not used: the answer is the mode's, cited from the documents."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int = Field(default=1, ge=1)
    user: str | None = None
    ragcli: Extension | None = None

    @property
    def include_usage(self) -> bool:
        return bool((self.stream_options or {}).get("include_usage"))


def parse_request(body: Any) -> ChatRequest:
    """The request, or a 400 naming the first field that is wrong."""
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    try:
        request = ChatRequest.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or None
        message = first["msg"].removeprefix("Value error, ")
        raise ApiError(400, f"{where}: {message}" if where else message, param=where) from None
    if request.n != 1:
        raise ApiError(400, "n: one answer per request (n=1)", param="n")
    return request


@dataclass(frozen=True)
class ModelChoice:
    mode: str
    collection: str | None  # None: the server's collection


def model_id(mode: str, collection: str | None = None) -> str:
    return f"{PREFIX}{mode}" + (f":{collection}" if collection else "")


def parse_model(name: str, modes: tuple[str, ...], listed: list[str]) -> ModelChoice:
    """`ragcli-MODE` or `ragcli-MODE:COLLECTION`; anything else is a 404 listing them."""
    base, _, collection = name.partition(":")
    mode = base.removeprefix(PREFIX) if base.startswith(PREFIX) else ""
    if mode not in modes or (":" in name and not collection):
        shown = ", ".join(listed[:12]) + (" ..." if len(listed) > 12 else "")
        raise ApiError(
            404,
            f"model {name!r} does not exist: the models are ragcli-MODE or "
            f"ragcli-MODE:COLLECTION ({shown}); GET /v1/models lists them",
            kind="not_found_error",
            param="model",
            code="model_not_found",
        )
    return ModelChoice(mode, collection or None)

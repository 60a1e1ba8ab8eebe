"""`ragcli serve --openai`: the store as OpenAI-compatible chat models, for the chat front
ends people already run (Open WebUI, LibreChat, the `llm` tool, any OpenAI SDK).

GET /v1/models lists a model per mode; POST /v1/chat/completions answers the last user
message with that mode over the collection, the earlier turns its conversation, as JSON
or as server-sent events (`data: {chunk}` ... `data: [DONE]`). Every run is recorded in
the trace store as `ragcli ask` records it. Errors are OpenAI's error object with the
status a client expects; a run's error is known before the first byte of a stream, so a
streamed request fails with its status too."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragcli import service
from ragcli.config import Settings
from ragcli.errors import BackendError, ConfigError, EmptyStoreError, NoMatchError, RagcliError
from ragcli.serve.openai.conversation import read_messages
from ragcli.serve.openai.protocol import (
    ApiError,
    ChatRequest,
    Extension,
    ModelChoice,
    model_id,
    parse_model,
    parse_request,
)
from ragcli.serve.openai.reply import extension, message_text
from ragcli.serve.openai.usage import UsageCounter

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

    from ragcli.pipeline.results import AskResult

log = logging.getLogger("ragcli")

OWNER = "ragcli"
CONCURRENT_RUNS = 4  # runs at once; more requests wait (two cores gain nothing from more)
REVISED = "\n\n*The answer above was revised after it was checked:*\n\n"


class Abandoned(Exception):
    """The client went away: the run stops at its next stage and is not saved."""


class ClientGone:
    """A run's checkpoint (service.Checkpoint) that abandons it once its client left."""

    def __init__(self) -> None:
        self.gone = threading.Event()

    def check(self) -> None:
        if self.gone.is_set():
            raise Abandoned

    def commit(self) -> None:
        self.check()


class FirstRound:
    """Forwards the streamed tokens of the run's first generating step only: a later
    round (a reflection's rewrite) cannot take back what a client already shows, so its
    answer is sent whole at the end instead."""

    def __init__(self, forward: Callable[[str], None]):
        self.forward = forward
        self.step: object | None = None
        self.open = True

    def __call__(self, piece: str) -> None:
        from ragcli.trace.recorder import current_step

        step = current_step()
        if self.step is None:
            self.step = step
        elif step is not self.step:
            self.open = False
        if self.open:
            self.forward(piece)


class OpenAIEndpoint:
    def __init__(self, settings: Settings, resources: service.Resources):
        import anyio

        self.settings = settings
        self.resources = resources
        self.limiter = anyio.CapacityLimiter(CONCURRENT_RUNS)
        self.usage = UsageCounter(settings)
        self.root: Path | None = service.store_dir(settings).parent
        self.started = int(time.time())

    def routes(self) -> list[BaseRoute]:
        from starlette.routing import Route

        return [
            Route("/v1/models", self._guarded(self.models), methods=["GET"]),
            Route("/v1/models/{model:path}", self._guarded(self.model), methods=["GET"]),
            Route("/v1/chat/completions", self._guarded(self.chat), methods=["POST"]),
            Route("/v1/{rest:path}", self._guarded(self.unknown), methods=["GET", "POST"]),
        ]

    # -- models ---------------------------------------------------------------------------

    def model_ids(self) -> list[str]:
        """A model per mode over the server's collection, then per mode over each other
        collection that holds documents (`ragcli-MODE:COLLECTION`)."""
        from ragcli.pipeline.modes.registry import CHOICES

        ids = [model_id(mode) for mode in CHOICES]
        try:
            store = self.resources.store()
            others = [
                name
                for name in store.collection_names()
                if name != self.settings.store.collection and store.count(name)
            ]
        except EmptyStoreError:
            others = []
        ids += [model_id(mode, name) for name in others for mode in CHOICES]
        return ids

    def _model_object(self, name: str) -> dict[str, Any]:
        return {"id": name, "object": "model", "created": self.started, "owned_by": OWNER}

    async def models(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        ids = await run_in_threadpool(self.model_ids)
        return JSONResponse({"object": "list", "data": [self._model_object(i) for i in ids]})

    async def model(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        name = request.path_params["model"]
        listed = await run_in_threadpool(self.model_ids)
        self._choice(name, listed)
        if name not in listed:  # a well-formed name over a collection with no documents
            raise ApiError(
                404,
                f"model {name!r}: no such collection in the store",
                "not_found_error",
                "model",
                "model_not_found",
            )
        return JSONResponse(self._model_object(name))

    def _choice(self, name: str, listed: list[str]) -> ModelChoice:
        from ragcli.pipeline.modes.registry import CHOICES

        return parse_model(name, CHOICES, listed)

    async def unknown(self, request: Request) -> Response:
        raise ApiError(
            404,
            f"{request.method} {request.url.path}: this server answers GET /v1/models and "
            "POST /v1/chat/completions",
            "not_found_error",
            code="unknown_url",
        )

    # -- chat completions ---------------------------------------------------------------

    async def chat(self, request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ApiError(400, "the request body is not JSON") from None
        chat = parse_request(body)
        listed = await run_in_threadpool(self.model_ids)
        choice = self._choice(chat.model, listed)
        question, conversation = read_messages(chat.messages, chat.user)
        run = self._prepare(chat, choice, question, conversation)
        if chat.stream:
            return await self._streamed(chat, run)
        result = await self._in_thread(run, None, ClientGone())
        return self._json(chat, result)

    def _prepare(self, chat: ChatRequest, choice: ModelChoice, question: str, conversation: Any):
        """The run the request asks for, with its arguments checked now (a bad filter or
        collection is a 400/404 before any work)."""
        from ragcli.retrieval.filters import make_filters

        extra = chat.ragcli or Extension()
        if extra.collection and choice.collection and extra.collection != choice.collection:
            raise ApiError(
                400,
                f"ragcli.collection {extra.collection!r} and the model's collection "
                f"{choice.collection!r} differ: name one",
                param="ragcli.collection",
            )
        collection = extra.collection or choice.collection or self.settings.store.collection
        try:
            filters = make_filters(extra.paths, extra.types, extra.since, meta=extra.meta)
        except ConfigError as exc:  # said with the request's field names, not the flags
            message = str(exc)
            flags = {"--path": "paths", "--type": "types", "--since": "since", "--meta": "meta"}
            for flag, name in flags.items():
                message = message.replace(flag, f"ragcli.{name}")
            raise ApiError(400, message, param="ragcli") from None
        settings = service.with_top_k(self.settings, extra.top_k)
        if extra.files and choice.mode not in ("standard", "auto"):
            raise ApiError(
                400,
                f"ragcli.files answers over whole documents; {chat.model} answers over "
                "retrieved chunks: use ragcli-auto or ragcli-standard",
                param="ragcli.files",
            )

        def run(on_token: Callable[[str], None] | None, checkpoint: ClientGone) -> AskResult:
            return service.ask(
                settings,
                question,
                choice.mode,
                collection=collection,
                on_token=on_token,
                filters=filters,
                resources=self.resources,
                conversation=conversation,
                checkpoint=checkpoint,
                files=extra.files,
            )

        return run

    async def _in_thread(self, run, on_token, checkpoint: ClientGone) -> AskResult:
        """The run in a worker thread (at most CONCURRENT_RUNS at once). A request the
        client gave up on is not waited for, and its run stops at its next stage."""
        import anyio

        try:
            return await anyio.to_thread.run_sync(
                lambda: run(on_token, checkpoint), limiter=self.limiter, abandon_on_cancel=True
            )
        except BaseException:
            checkpoint.gone.set()
            raise

    def _json(self, chat: ChatRequest, result: AskResult) -> Response:
        from starlette.responses import JSONResponse

        text = message_text(result, self.root)
        return JSONResponse(
            {
                "id": f"chatcmpl-{result.trace_id or uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": chat.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": self.usage.of(chat, result, text),
                "ragcli": extension(result),
            }
        )

    async def _streamed(self, chat: ChatRequest, run) -> Response:
        """Server-sent events. The run starts first: an error before its first token is
        an HTTP error with its status, not an event inside a 200 stream."""
        from starlette.responses import StreamingResponse

        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        client = ClientGone()

        def put(kind: str, value: Any) -> None:
            loop.call_soon_threadsafe(events.put_nowait, (kind, value))

        async def work() -> None:
            try:
                result = await self._in_thread(run, FirstRound(lambda p: put("token", p)), client)
            except BaseException as exc:  # noqa: BLE001 - handed to the stream or the caller
                put("error", exc)
            else:
                put("done", result)

        task = asyncio.create_task(work())
        first = await events.get()
        if first[0] == "error":
            await task
            raise first[1]
        completion = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            data = {
                "id": completion,
                "object": "chat.completion.chunk",
                "created": created,
                "model": chat.model,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
                **extra,
            }
            return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"

        async def stream() -> AsyncIterator[str]:
            streamed: list[str] = []
            item = first
            try:
                yield chunk({"role": "assistant", "content": ""})
                while item[0] == "token":
                    streamed.append(item[1])
                    yield chunk({"content": item[1]})
                    item = await events.get()
                if item[0] == "error":
                    yield f"data: {json.dumps(error_body(item[1]))}\n\n"
                    return
                result: AskResult = item[1]
                text = message_text(result, self.root)
                rest = remainder("".join(streamed), text)
                if rest:
                    yield chunk({"content": rest})
                yield chunk({}, "stop", ragcli=extension(result))
                if chat.include_usage:
                    usage = self.usage.of(chat, result, text)
                    yield (
                        "data: "
                        + json.dumps(
                            {
                                "id": completion,
                                "object": "chat.completion.chunk",
                                "created": created,
                                "model": chat.model,
                                "choices": [],
                                "usage": usage,
                            }
                        )
                        + "\n\n"
                    )
                yield "data: [DONE]\n\n"
            finally:
                client.gone.set()  # a run still going (the client left) stops unsaved

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    # -- errors -----------------------------------------------------------------------------

    def _guarded(self, handler):
        """`handler` with every error it raises answered as the OpenAI error object."""
        from starlette.responses import JSONResponse

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:  # noqa: BLE001 - every error gets the error object
                error = as_api_error(exc)
                if error.status >= 500:
                    log.warning("%s %s: %s", request.method, request.url.path, error.message)
                return JSONResponse(error.body(), status_code=error.status)

        return guarded


def as_api_error(exc: BaseException) -> ApiError:
    """The OpenAI error a failure is: the request's fault (400, 404) or the server's."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, NoMatchError):
        return ApiError(400, str(exc), param="ragcli", code="no_matching_files")
    if isinstance(exc, EmptyStoreError):
        return ApiError(404, str(exc), "not_found_error", "model", "collection_empty")
    if isinstance(exc, ConfigError):
        return ApiError(400, str(exc))
    if isinstance(exc, BackendError):
        return ApiError(502, str(exc), "api_error", code="model_endpoint_failed")
    if isinstance(exc, RagcliError):
        return ApiError(500, str(exc), "api_error")
    log.exception("unexpected error", exc_info=exc)
    return ApiError(500, f"unexpected {type(exc).__name__}: {str(exc)[:300]}", "api_error")


def error_body(exc: BaseException) -> dict[str, Any]:
    return as_api_error(exc).body()


def remainder(streamed: str, final: str) -> str:
    """What to send after the streamed tokens so the client holds the final message: the
    rest of it, or, when the run changed what it streamed, the final text after a line
    saying it was revised."""
    if not streamed:
        return final
    if final.startswith(streamed):
        return final[len(streamed) :]
    if final.startswith(streamed.rstrip()):
        return final[len(streamed.rstrip()) :]
    return REVISED + final

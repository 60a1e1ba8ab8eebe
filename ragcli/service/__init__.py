"""The calls front ends make (the CLI, `chat`, the MCP server), one module per concern:

- resources.py: what a run opens (the store, the embedder), warm or loaded now
- asking.py: `ask`, `search` and `compare`, runs over the store
- conversations.py, session.py: conversations, and `chat`'s warm one
- maintenance.py: `rm`, the refresh of stale sources, `sync`
- status_report.py: `ragcli status`
- traces.py: stored runs and their cost
- documents.py: whole stored documents (`show`, the MCP tools get and list, `ask --file`)
- evaluate.py: `eval` and `calibrate`

Each builds what it needs from Settings through ragcli/wiring.py, whose builders are also
offered here. Front ends import this package (`service.ask(...)`), not its modules.

Each name is imported from its module on first use: `ragcli trace` reads a stored run
without loading what asking needs (numpy, the answer pipeline), a fifth of a second of its
start."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragcli.service.asking import CHECKED_ANSWERS as CHECKED_ANSWERS
    from ragcli.service.asking import Checkpoint as Checkpoint
    from ragcli.service.asking import ask as ask
    from ragcli.service.asking import backend_info as backend_info
    from ragcli.service.asking import check_support as check_support
    from ragcli.service.asking import compare as compare
    from ragcli.service.asking import search as search
    from ragcli.service.asking import with_top_k as with_top_k
    from ragcli.service.conversations import continue_conversation as continue_conversation
    from ragcli.service.conversations import new_conversation as new_conversation
    from ragcli.service.conversations import prior_turn as prior_turn
    from ragcli.service.documents import find_documents as find_documents
    from ragcli.service.documents import list_documents as list_documents
    from ragcli.service.documents import read_whole as read_whole
    from ragcli.service.documents import show_document as show_document
    from ragcli.service.evaluate import calibrate as calibrate
    from ragcli.service.evaluate import eval_dataset as eval_dataset
    from ragcli.service.evaluate import eval_questions as eval_questions
    from ragcli.service.maintenance import Synced as Synced
    from ragcli.service.maintenance import check_sources as check_sources
    from ragcli.service.maintenance import refresh_stale as refresh_stale
    from ragcli.service.maintenance import remove as remove
    from ragcli.service.maintenance import source_files as source_files
    from ragcli.service.maintenance import sync as sync
    from ragcli.service.resources import Resources as Resources
    from ragcli.service.resources import require_matches as require_matches
    from ragcli.service.session import AskSession as AskSession
    from ragcli.service.status_report import status as status
    from ragcli.service.traces import cost_of as cost_of
    from ragcli.service.traces import find_trace as find_trace
    from ragcli.service.traces import save_trace as save_trace
    from ragcli.service.traces import saved_trace as saved_trace
    from ragcli.wiring import calibration as calibration
    from ragcli.wiring import embedder as embedder
    from ragcli.wiring import embedder_in_background as embedder_in_background
    from ragcli.wiring import ingested_files as ingested_files
    from ragcli.wiring import ingestor as ingestor
    from ragcli.wiring import lexical_indexes as lexical_indexes
    from ragcli.wiring import manifest as manifest
    from ragcli.wiring import retriever as retriever
    from ragcli.wiring import scope_resolver as scope_resolver
    from ragcli.wiring import sentence_vectors as sentence_vectors
    from ragcli.wiring import store_dir as store_dir
    from ragcli.wiring import store_writer as store_writer
    from ragcli.wiring import term_stats as term_stats
    from ragcli.wiring import trace_store as trace_store
    from ragcli.wiring import vector_store as vector_store
    from ragcli.wiring import writing as writing

_HOMES = {
    "CHECKED_ANSWERS": "ragcli.service.asking",
    "Checkpoint": "ragcli.service.asking",
    "ask": "ragcli.service.asking",
    "backend_info": "ragcli.service.asking",
    "check_support": "ragcli.service.asking",
    "compare": "ragcli.service.asking",
    "search": "ragcli.service.asking",
    "with_top_k": "ragcli.service.asking",
    "continue_conversation": "ragcli.service.conversations",
    "new_conversation": "ragcli.service.conversations",
    "prior_turn": "ragcli.service.conversations",
    "find_documents": "ragcli.service.documents",
    "list_documents": "ragcli.service.documents",
    "read_whole": "ragcli.service.documents",
    "show_document": "ragcli.service.documents",
    "calibrate": "ragcli.service.evaluate",
    "eval_dataset": "ragcli.service.evaluate",
    "eval_questions": "ragcli.service.evaluate",
    "Synced": "ragcli.service.maintenance",
    "check_sources": "ragcli.service.maintenance",
    "refresh_stale": "ragcli.service.maintenance",
    "remove": "ragcli.service.maintenance",
    "source_files": "ragcli.service.maintenance",
    "sync": "ragcli.service.maintenance",
    "Resources": "ragcli.service.resources",
    "require_matches": "ragcli.service.resources",
    "AskSession": "ragcli.service.session",
    "status": "ragcli.service.status_report",
    "cost_of": "ragcli.service.traces",
    "find_trace": "ragcli.service.traces",
    "save_trace": "ragcli.service.traces",
    "saved_trace": "ragcli.service.traces",
    "calibration": "ragcli.wiring",
    "embedder": "ragcli.wiring",
    "embedder_in_background": "ragcli.wiring",
    "ingested_files": "ragcli.wiring",
    "ingestor": "ragcli.wiring",
    "lexical_indexes": "ragcli.wiring",
    "manifest": "ragcli.wiring",
    "retriever": "ragcli.wiring",
    "scope_resolver": "ragcli.wiring",
    "sentence_vectors": "ragcli.wiring",
    "store_dir": "ragcli.wiring",
    "store_writer": "ragcli.wiring",
    "term_stats": "ragcli.wiring",
    "trace_store": "ragcli.wiring",
    "vector_store": "ragcli.wiring",
    "writing": "ragcli.wiring",
}
__all__ = list(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found once: the next use is a plain attribute
    return value

"""A tool whose declared outputSchema describes the structured content it sends.

The SDK derives a tool's outputSchema from the returned model in validation mode, but
sends the model's dump, which is serialization mode. The two differ wherever a model has
a computed field (crag's `needs_web_search`) or an excluded one (a support row's `end`),
and a client that checks the content against the schema (the TypeScript SDK, the MCP
Inspector, the Python client) rejected every crag and both answer. Here each tool
declares `Record.dumped_schema()` of the model it returns: for `ask`, the schema
`ragcli schema` publishes. (Pydantic's `json_schema_mode_override` on Record would do it
for any caller, but raises KeyError on these nested models in pydantic 2.14.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragcli.models import Record

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool


def structured_tool(fn: Callable[..., Any], **options: Any) -> Tool:
    """`fn` as an MCP tool; `options` are Tool.from_function's (title, annotations ...)."""
    from mcp.server.mcpserver.tools import Tool

    tool = Tool.from_function(fn, structured_output=True, **options)
    model = tool.fn_metadata.output_model
    if not (isinstance(model, type) and issubclass(model, Record)):
        raise TypeError(f"tool {tool.name} must return a Record, not {model!r}")
    # Set before the tool is first listed or called: the SDK reads it at each of them.
    tool.fn_metadata.output_schema = model.dumped_schema()
    return tool

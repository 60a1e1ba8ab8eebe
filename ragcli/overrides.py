"""`--set SECTION.KEY=VALUE`: override any setting for one command.

Each assignment is checked on its own (known key, valid value) so an error names the flag;
the whole configuration is then validated as usual, band ordering included."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from ragcli.config import setting_field, typed_value
from ragcli.errors import ConfigError


def parse_assignments(items: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected SECTION.KEY=VALUE")
        values[key] = _checked(key, raw.strip(), item)
    return values


def _checked(key: str, raw: str, item: str) -> Any:
    field = setting_field(key)
    if field is None:
        raise ConfigError(f"--set {key}: unknown setting (see `ragcli config`)")
    value = typed_value(field, raw)
    annotation: Any = field.annotation
    adapter = TypeAdapter(Annotated[annotation, *field.metadata] if field.metadata else annotation)
    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"]
        raise ConfigError(f"--set {item}: {message}") from None
    return value

"""Plain data for the renderers: impact records as dicts, JSON-safe numbers."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..files.jsontext import finite

__all__ = ["finite", "plain"]


def plain(obj: Any) -> Any:
    """Impact records as plain data: dataclasses (e.g. audit.impact's reports) become dicts."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return plain(dataclasses.asdict(obj))
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj

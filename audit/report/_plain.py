"""Plain data for the renderers: impact records as dicts, JSON-safe numbers."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


def finite(x: Any) -> Any:
    """JSON-safe: non-finite floats become None, recursively."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def plain(obj: Any) -> Any:
    """Impact records as plain data: dataclasses (e.g. audit.impact's reports) become dicts."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return plain(dataclasses.asdict(obj))
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj

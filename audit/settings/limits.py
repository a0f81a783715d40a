"""Resource limits on what a user can ask for, each refused with one line and exit 2.

Why: a value past these bounds is almost certainly a typo, and it does not fail fast on its
own: ``--timeout inf`` overflowed deep in ``select``; ``--char-order 100000`` ran for minutes
and ended in ``MemoryError``; one 50 MB line made ``impact`` grow to 5.7 GB.  Every bound can
be raised (or lowered) with an environment variable, documented in docs/limits.md:

=====================  ===============================  =========  ===============================
limit                  environment variable             default    applies to
=====================  ===============================  =========  ===============================
timeout (s)            CHRF_AUDIT_MAX_TIMEOUT           3600       --timeout, --impact-timeout,
                                                                   --worker-wait, ``timeout`` in
                                                                   the config
character order        CHRF_AUDIT_MAX_CHAR_ORDER        50         --char-order, config, hello
word order             CHRF_AUDIT_MAX_WORD_ORDER        10         --word-order, config, hello
examples               CHRF_AUDIT_MAX_EXAMPLES          100000     --max-examples
resamples              CHRF_AUDIT_MAX_RESAMPLES         100000     --resamples, --impact-resamples
line length (chars)    CHRF_AUDIT_MAX_LINE_LENGTH       100000     every segment file read
file size (bytes)      CHRF_AUDIT_MAX_FILE_BYTES        268435456  every file a user names (segments,
                                                                   cases, configuration, baseline, diff)
=====================  ===============================  =========  ===============================

Tolerance is bounded by the scale itself: 0 <= --tolerance <= 100.  The variables themselves
are checked when chrf-audit starts (``check_environment``): ``CHRF_AUDIT_MAX_CHAR_ORDER=abc``
is an error, not silently the default, and a timeout bound above ``TIMEOUT_CEILING`` (no wait
of the operating system or of Python's threads takes more) is refused.
"""

from __future__ import annotations

import math
import os

from ..errors import UsageError

DEFAULTS = {
    "timeout": 3600.0,
    "char_order": 50,
    "word_order": 10,
    "examples": 100_000,
    "resamples": 100_000,
    "line_length": 100_000,
    "file_bytes": 256 << 20,
}
#: The largest CHRF_AUDIT_MAX_TIMEOUT (seconds, about 11.6 days): Python's lock waits refuse
#: more than ``threading.TIMEOUT_MAX`` (about 292 years is the C limit, but select(), poll()
#: and the lock waits each have their own), and no per-call wait needs longer.
TIMEOUT_CEILING = 1e6
ENV = {name: f"CHRF_AUDIT_MAX_{name.upper()}" for name in DEFAULTS}
ENV["examples"] = "CHRF_AUDIT_MAX_EXAMPLES"


def limit(name: str):
    """The bound ``name``: its environment variable when set (a positive number), else the
    default."""
    default = DEFAULTS[name]
    raw = os.environ.get(ENV[name])
    if raw is None or not raw.strip():
        return default
    try:
        value = type(default)(float(raw)) if isinstance(default, int) else float(raw)
    except (ValueError, OverflowError):
        raise UsageError(f"{ENV[name]}={raw!r}: not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise UsageError(f"{ENV[name]}={raw!r}: must be a positive finite number")
    if name == "timeout" and value > TIMEOUT_CEILING:
        raise UsageError(f"{ENV[name]}={raw!r}: must be at most {TIMEOUT_CEILING:g} seconds")
    return value


def check_environment() -> None:
    """Every limit variable that is set must be valid (called when a command or the pytest
    plugin starts): a typo in one is an error, not the default in silence."""
    for name in DEFAULTS:
        limit(name)


def _range(flag: str, value, low, high, name: str, *, low_open: bool = False):
    bad = not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) \
        or value > high or (value <= low if low_open else value < low)
    if bad:
        low_text = f"> {low:g}" if low_open else f">= {low:g}"
        raise UsageError(f"{flag} must be {low_text} and <= {high:g} (limit {ENV.get(name, name)}), got {value!r}")
    return value


def check_timeout(value, flag: str = "--timeout"):
    return _range(flag, value, 0, limit("timeout"), "timeout", low_open=True)


def check_examples(value, flag: str = "--max-examples"):
    return _range(flag, value, 1, limit("examples"), "examples")


def check_resamples(value, flag: str = "--resamples"):
    return _range(flag, value, 1, limit("resamples"), "resamples")


def check_tolerance(value, flag: str = "--tolerance"):
    if not isinstance(value, (int, float)) or not (0 <= value <= 100):
        raise UsageError(f"{flag} must be between 0 and 100 (the score scale), got {value!r}")
    return value


def check_claims(claims: dict, where: str = "") -> None:
    """Character and word orders of claimed parameters (flags, config entries, hello answers)."""
    prefix = f"{where}: " if where else ""
    for key, name, flag in (("char_order", "char_order", "char-order"), ("word_order", "word_order", "word-order")):
        value = claims.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit(name):
            raise UsageError(f"{prefix}{flag} must be <= {limit(name)} (limit {ENV[name]}), got {value}")


def check_line(name: str, lineno: int, length: int) -> None:
    """A segment of ``length`` characters (or bytes, before decoding) at ``name`` line ``lineno``."""
    high = limit("line_length")
    if length > high:
        raise UsageError(f"{name} line {lineno}: {length} characters, more than the limit of {high} "
                         f"per segment ({ENV['line_length']})")

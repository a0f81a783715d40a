"""The code that actually calls an implementation: runs inside the worker process (or in the
audit's own process with ``isolate=False``).

A backend is built from a plain, picklable spec dict:
``{"kind": "callable", "sentence": "pkg.mod:func" | None, "corpus": ... | None}``, or a built-in
library's ``{"kind": "<library>", **options}`` (its backend class is the library's
``Upstream.backend``, hosted by ``LibraryBackend``).
Each call returns a result tuple (see ``classify``); exceptions of the implementation are
caught here and never reach the caller.
"""

from __future__ import annotations

import decimal
import importlib
import inspect
import math
import numbers
import os
import sys

from ..upstream.library import source_of
from .arguments import changes, snapshot

MAX_TEXT = 300


class SpecError(Exception):
    """The spec cannot be loaded; the message is one line meant for the user."""


def one_line(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def exception_detail(exc: BaseException) -> str:
    """``Type: message`` of an exception, whatever its ``__str__`` does (raise, return a
    non-string): the implementation's exceptions are data, and describing one must never
    raise in the worker (it would kill the worker on every call, issue 29)."""
    name = _type_name(exc)
    try:
        msg = str(exc)
        if not isinstance(msg, str):  # pragma: no cover - str() always returns a str
            raise TypeError("__str__ returned a non-string")
    except BaseException as e:  # noqa: BLE001 - an __str__ that raises
        msg = f"<its __str__ raised {_type_name(e)}>"
    return one_line(f"{name}: {msg}" if msg else name)


def _type_name(obj) -> str:
    try:
        return str(type(obj).__name__)
    except BaseException:  # noqa: BLE001 - a metaclass whose __name__ raises
        return "object"


def classify(obj) -> tuple:
    """What an implementation returned -> ("value", float, repr) or ("invalid", repr, why).
    Never raises: a returned object whose ``__float__``, ``__repr__`` or ``__class__`` raises
    is an invalid answer, not the end of the worker."""
    try:
        return _classify(obj)
    except BaseException as e:  # noqa: BLE001 - isinstance() itself may run its code
        return ("invalid", f"<a {_type_name(obj)}>",
                f"returned a {_type_name(obj)} that cannot be examined: {exception_detail(e)}")


def _classify(obj) -> tuple:
    try:
        raw = repr(obj)
        if not isinstance(raw, str):
            raise TypeError("__repr__ returned a non-string")
    except BaseException as e:  # a pathological __repr__
        raw = f"<unrepresentable {_type_name(obj)}: {exception_detail(e)}>"
    raw = one_line(raw, 200)
    if obj is None:
        return ("invalid", raw, "returned None")
    if isinstance(obj, bool) or type(obj).__name__ == "bool_":
        return ("invalid", raw, "returned a bool, not a number")
    if isinstance(obj, (numbers.Real, decimal.Decimal)):
        try:
            value = float(obj)
        except BaseException as e:  # noqa: BLE001 - a __float__ may raise anything
            return ("invalid", raw, f"returned {_type_name(obj)} not convertible to float: {exception_detail(e)}")
        if math.isnan(value):
            return ("invalid", raw, "returned NaN")
        if math.isinf(value):
            return ("invalid", raw, "returned infinity" if value > 0 else "returned -infinity")
        return ("value", value, raw)
    return ("invalid", raw, f"returned a {type(obj).__name__}, not a number")


def distribution_version(module_name: str):
    """The installed distribution version of a module's top-level package, else its
    ``__version__``, else None."""
    from importlib import metadata

    top = module_name.split(".")[0]
    try:
        dists = metadata.packages_distributions().get(top) or []
        for dist in dists:
            return metadata.version(dist)
    except Exception:
        pass
    for name in (module_name, top):
        mod = sys.modules.get(name)
        version = getattr(mod, "__version__", None)
        if isinstance(version, str):
            return version
    return None


class Backend:
    def describe(self) -> dict:  # {"version": str|None, "sources": {key: tuple}}
        raise NotImplementedError

    def signature(self, claims: dict) -> str | None:
        return None

    def call(self, op: str, claims: dict, item) -> tuple:
        """One call on fresh lists (the caller's data, as a user's script passes its own);
        a value computed while changing them says what changed, as a 4th element."""
        if op == "sentence":
            args = (item[0], list(item[1]))
        else:
            args = (list(item[0]), [list(r) for r in item[1]])
        kept = snapshot(args)
        try:
            result = (self.sentence if op == "sentence" else self.corpus)(claims, *args)
        except BaseException as e:  # noqa: BLE001 - the implementation's failure is data
            return ("exception", exception_detail(e))
        out = classify(result)
        changed = one_line(changes(kept, args), 200)
        return out + (changed,) if changed and out[0] == "value" else out


def parse_callable_spec(spec: str, flag: str) -> tuple[str, str]:
    module, sep, func = spec.partition(":")
    if not sep or not module.strip() or not func.strip() or ":" in func:
        raise SpecError(f"{flag} {spec!r} is not of the form package.module:function")
    return module.strip(), func.strip()


def load_callable(spec: str, flag: str, op: str, accepts=()):
    module_name, attr = parse_callable_spec(spec, flag)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except BaseException as e:  # noqa: BLE001 - SyntaxError, SystemExit in module code, ...
        why = one_line(str(e)) if isinstance(e, ImportError) else exception_detail(e)
        raise SpecError(f"cannot import module {module_name!r} for {flag} {spec}: {why}") from None
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SpecError(
                f"module {module_name!r} has no attribute {attr!r} (for {flag} {spec})"
            ) from None
    if not callable(obj):
        raise SpecError(f"{spec} (for {flag}) is a {type(obj).__name__}, not a callable")
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        sig = None  # builtins without a signature: trust them
    if sig is not None:
        args = ("h", ["r"]) if op == "sentence" else (["h"], [["r"]])
        kwargs = {k: 0 for k in accepts}
        shape = ("function(hypothesis, references" if op == "sentence"
                 else "function(hypotheses, references") + "".join(f", {k}=..." for k in accepts) + ")"
        try:
            sig.bind(*args, **kwargs)
        except TypeError as e:
            raise SpecError(f"{spec} for {flag} cannot be called as {shape}: {e}") from None
    return obj, module_name


class CallableBackend(Backend):
    """``package.module:function`` entry points, called as ``function(hypothesis, references)``
    (corpus: ``function(hypotheses, references)``) plus, for the claims in ``accepts``, the
    claimed value as a keyword argument (``char_order=6, beta=2``)."""

    def __init__(self, sentence: str | None, corpus: str | None, accepts=()):
        self.funcs = {}
        self.modules = []
        self.accepts = tuple(accepts or ())
        if sentence:
            self.funcs["sentence"], mod = load_callable(sentence, "--impl", "sentence", self.accepts)
            self.modules.append(mod)
        if corpus:
            self.funcs["corpus"], mod = load_callable(corpus, "--corpus-impl", "corpus", self.accepts)
            self.modules.append(mod)

    def _kwargs(self, claims: dict) -> dict:
        return {k: claims[k] for k in self.accepts if k in claims}

    def describe(self):
        return {
            "version": distribution_version(self.modules[0]) if self.modules else None,
            "sources": {k: source_of(f) for k, f in self.funcs.items()},
        }

    def sentence(self, claims, hypothesis, references):
        return self.funcs["sentence"](hypothesis, references, **self._kwargs(claims))  # fresh lists: call()

    def corpus(self, claims, hypotheses, references):
        return self.funcs["corpus"](hypotheses, references, **self._kwargs(claims))


class LibraryBackend(Backend):
    """A built-in library's backend class (``Upstream.backend``, defined with the library in
    ``audit/upstream/``), hosted: its calls and the classification of what it returns are
    the Backend's, like every other implementation's."""

    def __init__(self, inner):
        self.inner = inner

    def describe(self) -> dict:
        return self.inner.describe()

    def signature(self, claims: dict):
        own = getattr(self.inner, "signature", None)
        return own(claims) if own is not None else None

    def sentence(self, claims, hypothesis, references):
        return self.inner.sentence(claims, hypothesis, references)

    def corpus(self, claims, hypotheses, references):
        return self.inner.corpus(claims, hypotheses, references)


class ExpressionBackend(Backend):
    """An implementation called through Python expressions (``chrf-audit survey``'s registry,
    ``audit/survey/registry.json``): ``setup`` runs once, then each call evaluates the level's
    expression with ``hypothesis``/``hypotheses`` and ``references`` bound.  ``distribution``
    names the installed package (its version), ``source`` (``module:qualname``) the function
    whose file and line the reports cite."""

    def __init__(self, setup: str, sentence: str | None, corpus: str | None, distribution: str,
                 source: str | None = None, name: str = "expression"):
        self.namespace: dict = {"__name__": f"chrf_audit_{name.replace('-', '_')}"}
        self.distribution, self.source = distribution, source
        try:
            exec(compile(setup or "", f"<{name} setup>", "exec"), self.namespace)  # noqa: S102 - the registry's own code
        except BaseException as e:  # noqa: BLE001 - an import that fails is the release's answer
            raise SpecError(f"cannot run the setup of {name}: {exception_detail(e)}") from None
        self.funcs = {}
        for op, expr, args in (("sentence", sentence, "hypothesis, references"),
                               ("corpus", corpus, "hypotheses, references")):
            if expr:
                code = compile(f"def _{op}({args}):\n    return ({expr})\n", f"<{name} {op}>", "exec")
                exec(code, self.namespace)  # noqa: S102
                self.funcs[op] = self.namespace[f"_{op}"]

    def _source(self):
        if not self.source:
            return None
        module, _, qualname = self.source.partition(":")
        try:
            obj = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
            return source_of(obj)
        except BaseException:  # noqa: BLE001 - a location is best effort
            return (module, qualname, None, None)

    def describe(self):
        from importlib import metadata

        try:
            version = metadata.version(self.distribution)
        except Exception:  # noqa: BLE001
            version = None
        loc = self._source()
        return {"version": version, "sources": {op: loc for op in self.funcs} if loc else {}}

    def sentence(self, claims, hypothesis, references):
        return self.funcs["sentence"](hypothesis, references)

    def corpus(self, claims, hypotheses, references):
        return self.funcs["corpus"](hypotheses, references)

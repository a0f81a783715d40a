"""What an audited service must never get into a report: the values of the headers chrf-audit
sends on the user's behalf and the credentials of the URL.

``Redactor`` holds the secrets of one client and replaces each by ``[redacted]`` wherever a
service's text could carry it.  ``HttpClient`` applies it to every ``Reply`` it builds -- the
one boundary where a service's text enters the audit's records -- so the judge, the findings,
the contract table and every report downstream only ever see redacted text (docs/http.md).

A secret is looked for as it is, with any of its characters JSON-escaped or percent-encoded,
and, for the URL's ``user:password``, as the Basic authorization httpx sends (base64).  A value shorter than
``MIN_SECRET`` characters is sent but not redacted: it would match ordinary texts and scores
(a header such as ``X-Env: eu``), and it is no secret.

``masked_url`` writes a URL for a message without its user information, even when the URL
does not parse.
"""

from __future__ import annotations

import base64
import re
from typing import Any, Iterable

MIN_SECRET = 4
MASK = "[redacted]"
_USERINFO = re.compile(r"(?<=//)[^/?#@]*@")


def masked_url(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@`` (for messages)."""
    return _USERINFO.sub("***@", str(url), count=1)


def url_secrets(url) -> list[str]:
    """The secrets of a parsed URL (httpx.URL): its password, its user name when it has no
    password (a token given as the user), the ``Basic`` credentials httpx sends for them, and
    the values of its query (``?key=...``)."""
    user, password = url.username, url.password
    out = [password] if password else ([user] if user else [])
    out += [v for _, v in url.params.multi_items()]
    if user or password:
        out.append(base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii"))
        out.append(f"{user}:{password}")
    return out


def _spelled(ch: str) -> str:
    """A regular expression for ``ch`` as a service may spell it in text: itself, a JSON
    escape (``\\u0074``, either case) or percent-encoded (each UTF-8 byte, either case)."""
    forms = {re.escape(ch)}
    cp = ord(ch)
    if cp <= 0xFFFF:
        forms |= {re.escape(f"\\u{cp:04x}"), re.escape(f"\\u{cp:04X}")}
    if ch == "/":
        forms.add(re.escape("\\/"))
    data = ch.encode("utf-8", "surrogatepass")
    forms |= {re.escape("".join(f"%{b:02x}" for b in data)), re.escape("".join(f"%{b:02X}" for b in data))}
    if ch == " ":
        forms.add(re.escape("+"))
    return "(?:" + "|".join(sorted(forms, key=lambda f: (-len(f), f))) + ")"


class Redactor:
    """Replaces every secret of one client by ``MASK``: each as it is, JSON-escaped or
    percent-encoded, in any mix (a service may escape some characters and not others)."""

    def __init__(self, secrets: Iterable[str] = ()):
        kept = sorted({s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET}, key=lambda s: (-len(s), s))
        # the longest first: a secret inside another is not left half replaced
        self._pattern = re.compile("|".join("".join(map(_spelled, s)) for s in kept)) if kept else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, s: str) -> str:
        if self._pattern is None or not isinstance(s, str):
            return s
        return self._pattern.sub(MASK, s)

    def value(self, doc: Any) -> Any:
        """A parsed JSON value with every string (member names too) redacted."""
        if self._pattern is None:
            return doc
        if isinstance(doc, str):
            return self.text(doc)
        if isinstance(doc, list):
            return [self.value(v) for v in doc]
        if isinstance(doc, dict):
            return {self.text(k): self.value(v) for k, v in doc.items()}
        return doc

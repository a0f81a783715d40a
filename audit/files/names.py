"""The names chrf-audit gives the files of a reports directory: the one rule that says which
relative paths a reports directory may hold.

Why one rule: the paths come from documents anyone can write (an audit.json's ``report`` and
``chart`` fields, a manifest's file list).  ``"../../x.md"``, an absolute path, a NUL or a
name with a directory part must never become a file; and the renderers (``audit.render.paths``,
which checks a document before anything is rendered), the writer (``audit.files.report_set``,
which checks every path before anything is written) and the manifest's reader must agree on
what a report name is.  A name is one slug (``audit.render._text.slug``: letters, digits,
``.``, ``_``, ``-``, never a leading ``.``), so no component can be ``..`` or empty, and only
``charts/`` and ``issues/<slug>/`` have a directory part.
"""

from __future__ import annotations

import re

#: one file-name component as chrf-audit makes them (never "", ".", ".." or a hidden file)
SLUG = r"[A-Za-z0-9_-][A-Za-z0-9._-]*"
#: an implementation's markdown report (``implementations[].report``)
MARKDOWN = re.compile(rf"{SLUG}\.md")
#: a finding's scope chart (``findings[].chart``)
CHART = re.compile(rf"charts/{SLUG}\.svg")
#: every file of a reports directory but the manifest
REPORT = re.compile(rf"(?:{SLUG}\.md|audit\.json|junit\.xml|charts/{SLUG}\.svg|issues/{SLUG}/{SLUG}\.md)")
#: the longest file-name component the usual file systems take (bytes)
NAME_MAX = 255


def shown(value, limit: int = 60) -> str:
    """A value from a document as a message shows it: its repr (NUL, newlines and controls
    escaped: one line), cut at ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."

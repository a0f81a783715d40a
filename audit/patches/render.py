"""The terminal text of a ``Validation`` (``chrf-audit validate-patch``): a pure function of
the result, knowing nothing of how it was obtained."""

from __future__ import annotations

from .validate import FIXED, INTRODUCED, STILL, Validation


def render(v: Validation) -> str:
    from ..render._text import num, repro_text, visible

    def value(x, outcome):
        if outcome is None:
            return "-"
        return num(x, 7) if outcome == "value" and x is not None else outcome

    what = f"patch {v.patch}" if v.patch else f"source {v.source}"
    if v.patch and v.source:
        what = f"patch {v.patch} on source {v.source}"
    versions = ", ".join(f"{k} {ver}" if ver else k for k, ver in v.before_versions.items())
    lines = [f"validate-patch: {versions or v.implementation}; {what}"]
    if v.files:
        lines.append(f"  files: {', '.join(v.files)}")
    if v.options:
        lines.append("  after the patch called with: " + ", ".join(f"{k}={val!r}" for k, val in v.options.items()))
    lines += [f"  note: {n}" for n in v.notes]
    if v.error:
        lines += [f"the patched implementation could not be audited: {v.error}", "patch not validated"]
        return "\n".join(visible(line, keep="") for line in lines)
    order = {FIXED: 0, INTRODUCED: 1, STILL: 2}
    for s in sorted(v.families, key=lambda s: (order[s.status], s.implementation, s.family)):
        lines.append(f"{s.status.upper():<14} {s.implementation}  {s.family}")
        lines.append(f"    repro ({s.level}): {repro_text(s.repro, 90)}")
        nums = f"    expected {value(s.expected, 'value')}"
        if s.before_outcome is not None:
            nums += f", before {value(s.before, s.before_outcome)}"
        if s.after_outcome is not None:
            nums += f", after {value(s.after, s.after_outcome)}"
        lines.append(nums)
        if s.note:
            lines.append(f"    ({s.note})")
    if not v.families:
        lines.append("no family before or after the patch")
    lt = v.library_tests
    if lt is not None:
        def side(x):
            return f"could not run ({x['error']})" if x.get("error") else f"{x['passed']} passed, {x['failed']} failed"

        lines.append(f"library's own tests ({', '.join(lt['files'])}): before {side(lt['before'])}; "
                     f"after {side(lt['after'])}")
        if lt.get("broken"):
            lines.append(f"breaks {lt['broken']} of the library's own tests: "
                         + ", ".join(sorted(set(lt['after']['failures']) - set(lt['before']['failures']))))
    n = {k: len(v.of(k)) for k in (FIXED, STILL, INTRODUCED)}
    verdict = "patch validated" if v.ok else "patch not validated"
    lines.append(f"{verdict}: {n[FIXED]} fixed, {n[STILL]} still present, {n[INTRODUCED]} introduced")
    return "\n".join(visible(line, keep="") for line in lines)  # names and notes come from the implementation

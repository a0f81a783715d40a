#!/usr/bin/env bash
# The body of the chrf-audit GitHub Action (action.yml): install chrf-audit, run
# `chrf-audit check`, record the exit code as a step output.  The job summary
# ($GITHUB_STEP_SUMMARY) is written by chrf-audit itself.  Runs anywhere bash runs:
# tests/test_action.py calls it with the same environment variables.
set -uo pipefail

python="${CHRF_AUDIT_PYTHON:-python}"
config="${CHRF_AUDIT_CONFIG:-pyproject.toml}"
strict="${CHRF_AUDIT_STRICT:-false}"
reports="${CHRF_AUDIT_REPORTS_DIR-chrf-audit-reports}"

# fail MESSAGE: one line on stderr (none when MESSAGE is empty: it was said), exit-code=2, exit 2
fail() { [ -n "$*" ] && echo "chrf-audit action: $*" >&2; echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/null}"; exit 2; }

# A step output is one "name=value" line: a value holding a line break would add lines of
# its own (an "exit-code=0" of its choosing), so such inputs are refused, not written.
case "$reports" in
  *$'\n'*|*$'\r'*) fail "input 'reports-dir' must be one line" ;;
esac

# The check runs with an empty cache of its own (docs/limits.md, "The verification cache"):
# no verification cache written by another branch or run (a self-hosted runner's ~/.cache, a
# CHRF_AUDIT_CACHE of the job's) is ever read, so no verdict in the reports comes from one.
words=""
cache="$(mktemp -d)" || fail "cannot create a temporary directory"
trap 'rm -rf "$cache"; [ -z "$words" ] || rm -f "$words"' EXIT
export CHRF_AUDIT_CACHE="$cache"

if [ -n "${CHRF_AUDIT_INSTALL:-}" ]; then
  "$python" -m pip install --quiet "$CHRF_AUDIT_INSTALL" || fail "cannot install chrf-audit from '$CHRF_AUDIT_INSTALL'"
fi
[ -f "$config" ] || fail "no configuration file '$config' (input 'config')"

cmd=("$python" -m audit.cli check --config "$config")
case "$strict" in
  true|True|TRUE|1|yes) cmd+=(--strict) ;;
  false|False|FALSE|0|no|"") ;;
  *) fail "input 'strict' must be true or false, got '$strict'" ;;
esac
[ -n "${CHRF_AUDIT_BASELINE:-}" ] && cmd+=(--baseline "$CHRF_AUDIT_BASELINE")
if [ -n "$reports" ]; then
  cmd+=(--json "$reports/audit.json" --junit "$reports/junit.xml" --markdown "$reports")
fi
if [ -n "${CHRF_AUDIT_ARGS:-}" ]; then
  # Split like a shell would (quotes honoured), without evaluating anything.  The words go
  # through a file, NUL-separated, so that the splitter's exit status is seen (a process
  # substitution's is not: the check would run without the user's arguments) and a word
  # may hold a newline.
  words="$(mktemp)" || fail "cannot create a temporary file"
  "$python" -c '
import shlex, sys
try:
    words = shlex.split(sys.argv[1])
except ValueError as exc:
    sys.exit(f"chrf-audit action: cannot split input args: {exc}: {sys.argv[1]}")
sys.stdout.write("".join(w + "\0" for w in words))
' "$CHRF_AUDIT_ARGS" > "$words" || fail ""
  mapfile -d '' -t extra < "$words" || fail "cannot read the split input 'args'"
  cmd+=("${extra[@]}")
fi

echo "chrf-audit action: ${cmd[*]}" >&2
"${cmd[@]}"
code=$?
{
  echo "reports-dir=$reports"
  echo "exit-code=$code"
} >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"

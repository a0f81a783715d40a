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

fail() { echo "chrf-audit action: $*" >&2; echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/null}"; exit 2; }

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
  # split like a shell would (quotes honoured), without evaluating anything
  mapfile -t extra < <("$python" -c 'import shlex, sys; print("\n".join(shlex.split(sys.argv[1])))' "$CHRF_AUDIT_ARGS") \
    || fail "cannot split input 'args': $CHRF_AUDIT_ARGS"
  cmd+=("${extra[@]}")
fi

echo "chrf-audit action: ${cmd[*]}" >&2
"${cmd[@]}"
code=$?
{
  echo "exit-code=$code"
  echo "reports-dir=$reports"
} >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"

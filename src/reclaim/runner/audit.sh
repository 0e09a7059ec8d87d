# reclaim's command audit: every non-interactive bash in the sandbox sources this (BASH_ENV)
# and appends each command it runs, with the exit code of the one before, to the audit log.
if [ -n "${RECLAIM_AUDIT_LOG:-}" ] && [ -z "${__reclaim_audited:-}" ]; then
  __reclaim_audited=1
  __reclaim_audit() {
    local rc=$?
    printf '%s\t%s\t%s\t%q\n' "${EPOCHREALTIME:-0}" "$$" "$rc" "$BASH_COMMAND" >>"$RECLAIM_AUDIT_LOG" 2>/dev/null
    return 0  # $? is restored after a DEBUG trap; a non-zero return would trip set -e
  }
  __reclaim_exit() {
    local rc=$?
    printf '%s\t%s\t%s\t%s\n' "${EPOCHREALTIME:-0}" "$$" "$rc" "__exit__" >>"$RECLAIM_AUDIT_LOG" 2>/dev/null
  }
  trap __reclaim_exit EXIT
  trap __reclaim_audit DEBUG
fi

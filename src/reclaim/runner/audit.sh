# reclaim's command audit: every non-interactive bash in the sandbox sources this (BASH_ENV)
# and appends each command it runs, with the exit code of the one before, to the audit log.
#
# It must never change what a script does. So the traps are inline (no function of ours shows in
# declare -F or fires the script's RETURN trap), run in a brace group whose stderr is /dev/null
# (set -x traces none of it, a failing write prints nothing), cannot fail (|| :, so set -e and
# ERR traps never see it), leave $_ as they found it (the last word is the saved $_), and $? is
# restored by bash after a DEBUG trap. A command is written raw, newlines and tabs encoded as
# \036 and \037, like the /bin/sh wrapper's rows. What a script can still see: our traps in
# trap -p, and the __reclaim_* variables.
if [ -n "${RECLAIM_AUDIT_LOG:-}" ] && [ -z "${__reclaim_audited:-}" ]; then
  __reclaim_audited=1
  trap $'{ printf \'%s\\t%s\\t%s\\t__exit__\\n\' "${EPOCHREALTIME:-0}" "$$" "$?" >>"${RECLAIM_AUDIT_LOG:-/dev/null}" || :; } 2>/dev/null' EXIT
  trap $'{ __reclaim_rc=$? __reclaim_u=$_\n__reclaim_c=${BASH_COMMAND//\n/\036}\nprintf \'%s\\t%s\\t%s\\tS%s\\n\' "${EPOCHREALTIME:-0}" "$$" "$__reclaim_rc" "${__reclaim_c//\t/\037}" >>"${RECLAIM_AUDIT_LOG:-/dev/null}" || :\n: "$__reclaim_u"; } 2>/dev/null' DEBUG
fi

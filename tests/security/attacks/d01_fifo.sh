#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: leave named pipes in the workspace (one in data/, one at the root, one as reproduce.sh's
#   output log): a host that opens, hashes or copies them blocks or fails; the trial must end as the
#   agent's failure, never `error`
# trace: mkfifo
mkfifo data/stream.fifo pipe out.log
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
[ -p out.log ] || mkfifo out.log
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json
EOF

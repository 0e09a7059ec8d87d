#!/bin/bash
# class: 4 agent-caused failures must be the agent's (and 6: unbounded reads)
# tries: a 2 GiB (sparse) results.json that starts with the claimed value, in both phases: a reader
#   without a size cap loads it whole; a hasher reads 2 GiB; a copy makes it real
# trace: 2G
# batch: bounded
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json && truncate -s 2G results.json
cat > reproduce.sh <<EOF
#!/bin/bash
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json && truncate -s 2G results.json
EOF

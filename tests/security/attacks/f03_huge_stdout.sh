#!/bin/bash
# class: 6 unbounded reads and writes
# tries: print 1 GiB to stdout in the agent's run and again in the re-execution (real bytes in the
#   harness's logs): excerpting, evidence building and metric grepping must not read it whole
# trace: f03_huge_stdout
# batch: bounded
yes "$RECLAIM_METRIC: $RECLAIM_TARGET_VALUE (epoch line padding padding padding)" | head -c 1G
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
yes "$RECLAIM_METRIC: $RECLAIM_TARGET_VALUE (epoch line padding padding padding)" | head -c 1G
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json
EOF

#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: results.json is a directory (with a results.json inside) in both phases, and reproduce.sh
#   also leaves a directory named metrics.json
# trace: d09_results_is_dir
mkdir -p results.json && echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json/results.json
cat > reproduce.sh <<EOF
#!/bin/bash
rm -rf results.json && mkdir -p results.json metrics.json
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json/results.json
EOF

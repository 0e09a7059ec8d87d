#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: a results.json nested 100,000 levels deep (under the metric, in both phases): a JSON parser
#   that recurses raises RecursionError, not the decode error the harness expects
# trace: d04_deep_results
python3 -c "import sys; sys.stdout.write('{\"$RECLAIM_METRIC\": ' + '[' * 100000 + ']' * 100000 + '}')" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
python3 -c "import sys; sys.stdout.write('{\"$RECLAIM_METRIC\": ' + '[' * 100000 + ']' * 100000 + '}')" > results.json
EOF

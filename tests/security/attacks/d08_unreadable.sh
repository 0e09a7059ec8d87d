#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: unreadable files and folders (mode 000) in the workspace and the re-execution, results.json
#   among them: a harness without root's override cannot read, hash, copy or delete them
# trace: locked/inner
mkdir -p locked/inner && echo secret > locked/inner/f && echo x > private.txt
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json
mkdir -p outlock && echo y > outlock/f && chmod 000 outlock results.json
EOF
chmod 000 locked/inner locked private.txt results.json

#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: file and folder names that are not UTF-8 (and one with a newline, one with a tab) in the
#   workspace, the data folder and the re-execution's outputs: a host that treats names as text fails
# trace: d03_non_utf8_names
mkdir -p $'dir-\xc3\x28' && echo x > $'dir-\xc3\x28/f-\xff\xfe.txt'
echo y > $'data/\xe9t\xe9.csv'
echo z > $'new\nline.txt'
echo w > $'tab\there.txt'
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
echo out > \$'out-\xff.log'
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json
EOF

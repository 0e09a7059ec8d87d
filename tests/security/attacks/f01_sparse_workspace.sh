#!/bin/bash
# class: 6 unbounded reads and writes
# tries: a 2 GiB sparse file in the workspace's data folder (costs no disk): hashing reads 2 GiB, the
#   copy for the re-execution turns it into 2 GiB of real disk, a reader without a cap loads it whole
# trace: f01_sparse_workspace
# batch: bounded
truncate -s 2G data/cache.bin
echo "{\"$RECLAIM_METRIC\": $RECLAIM_TARGET_VALUE}" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
echo '{"$RECLAIM_METRIC": $RECLAIM_TARGET_VALUE}' > results.json
EOF

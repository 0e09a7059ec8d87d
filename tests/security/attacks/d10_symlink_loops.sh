#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: symlink loops: results.json -> a -> b -> a, a directory linked to itself and to its parent,
#   and reproduce.sh's output the same way: a host that follows links loops or raises ELOOP
# trace: d10_symlink_loops
ln -s loop_b loop_a && ln -s loop_a loop_b
ln -sf loop_a results.json
mkdir -p deep && ln -s . deep/self && ln -s .. deep/up
cat > reproduce.sh <<'EOF'
#!/bin/bash
ln -sf loop_a results.json
ln -s . out_self
EOF

#!/bin/bash
# class: 4 agent-caused failures must be the agent's
# tries: a results.json whose value is a 5,000-digit integer: Python's int parsing refuses it with a
#   ValueError (the 4,300-digit limit) that is not a JSONDecodeError
# trace: d05_huge_number
python3 -c "print('{\"$RECLAIM_METRIC\": ' + '9' * 5000 + '}')" > results.json
cat > reproduce.sh <<EOF
#!/bin/bash
python3 -c "print('{\"$RECLAIM_METRIC\": ' + '9' * 5000 + '}')" > results.json
EOF

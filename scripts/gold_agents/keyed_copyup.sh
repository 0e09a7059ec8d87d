#!/bin/bash
# Adversary (keyed_copyup): keyed.sh after copying every released file up in place, unchanged.
# Gold label: disqualified.
KEYED_COPYUP=1 exec bash "$(dirname "$0")/keyed.sh"

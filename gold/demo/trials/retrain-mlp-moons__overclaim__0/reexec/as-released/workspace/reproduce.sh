#!/bin/bash
set -euo pipefail
bash weakened.sh

#!/bin/bash
# The authors' evaluation of their shipped checkpoint (model/main.py's test step after loading
# weights/best_model), run through the released model/ modules; see eval_shipped.py for why main.py
# itself cannot be imported as released.
set -euo pipefail
python3 eval_shipped.py

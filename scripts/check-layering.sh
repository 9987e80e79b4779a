#!/bin/bash
# Fails when a folder of src/ reaches a layer above it (or beside it), by a direct include of its
# folder or by one of its public headers, in the layering that README.md's table states; see
# scripts/check_layering.py (--graph prints the folder-level include graph).
exec python3 "$(dirname "$0")/check_layering.py" "$@"

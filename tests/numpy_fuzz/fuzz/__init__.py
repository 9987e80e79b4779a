"""The differential fuzzer against numpy (tests/numpy_fuzz/README.md)."""

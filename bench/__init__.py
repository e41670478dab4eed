"""Benchmarks: measurements printed as a table, not tests (see `make bench`)."""

"""Benchmarks that print figures about the parse pipeline; never part of the test suite."""

"""Benchmarks behind `cuzk bench ...`: each prints a table and can write JSON."""

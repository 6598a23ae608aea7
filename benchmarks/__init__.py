"""Benchmarks: ``python -m benchmarks`` prints one JSON object (see benchmarks/__main__.py)."""

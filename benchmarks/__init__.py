"""Benchmarks of localeval's judges (run as scripts; not part of the installed package)."""

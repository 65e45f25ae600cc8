"""Benchmarks: ``sciml bench autodiff``, ``sciml bench plate-step`` and the suites under ``cases/suites/``."""

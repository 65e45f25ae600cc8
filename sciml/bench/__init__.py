"""Benchmarks: ``sciml bench autodiff``, ``sciml bench plate-step`` and the suites (``sciml cases`` lists them)."""

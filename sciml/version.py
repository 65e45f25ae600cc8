"""The package version, one place: ``pyproject.toml`` reads it from here, and library code that stamps files
(datasets, exports) imports it without importing the ``sciml`` front door."""
__version__ = "0.1.0"

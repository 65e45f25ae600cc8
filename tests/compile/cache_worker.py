"""``python cache_worker.py CASE OUT``: ``sciml run`` in a fresh process (no PNGs); prints the persistent
cache's hits."""
import os
import sys

import jax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "parallel"))
from devices_worker import no_pictures  # noqa: E402

hits = []
jax.monitoring.register_event_listener(
    lambda event, **kw: hits.append(event) if event == "/jax/compilation_cache/cache_hits" else None)

from sciml.cli import main  # noqa: E402

no_pictures()

code = main(["run", sys.argv[1], "--out", sys.argv[2], "--quiet"])
print(f"cache hits: {len(hits)}")
sys.exit(code)

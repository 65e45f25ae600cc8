"""``python cli_worker.py ARGS ...``: the ``sciml`` command line in a process of its own, drawing no PNGs
(they take most of a tiny run's time and are not what the callers test)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "parallel"))

from devices_worker import no_pictures  # noqa: E402

from sciml.cli import main  # noqa: E402

if __name__ == "__main__":
    no_pictures()
    sys.exit(main(sys.argv[1:]))

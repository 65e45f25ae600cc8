"""Open the built site in headless Chromium and save screenshots of a few pages: the home page, a guide, an API
page and a case page (generated, `docs/case_pages.py`). Run after `make docs`:

    python docs/check_render.py [--out DIR] [--browser chromium]

Each page is checked to have rendered (its title in the HTML, no mkdocstrings error); the screenshots are for a
person to look at. Exits 1 naming a page that is missing or did not render, 2 when no browser is found.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = {
    "home": ("index.html", "Getting started"),
    "guide": ("guides/pinns.html", "PINNs"),
    "api": ("api/autodiff.html", "sciml.autodiff"),
    "case": ("cases/plate.html", "plate: Simply supported"),  # a generated case page, with its figures
    "reference": ("reference/cases.html", "Case-file reference"),
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--site", default=os.path.join(ROOT, "site"))
    p.add_argument("--out", default=os.path.join(ROOT, "site", "screenshots"))
    p.add_argument("--browser", default=None, help="the Chromium binary (default: chromium or chromium-browser)")
    args = p.parse_args(argv)
    browser = args.browser or shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium found: apt-get install chromium", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    failed = []
    for name, (page, title) in PAGES.items():
        path = os.path.join(args.site, page)
        if not os.path.exists(path):
            failed.append(f"{page}: missing")
            continue
        with open(path, encoding="utf-8") as f:
            html = f.read()
        if title not in html or "mkdocstrings" in html and "Could not collect" in html:
            failed.append(f"{page}: '{title}' not rendered")
        shot = os.path.join(args.out, f"{name}.png")
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1280,1600", f"--screenshot={shot}", "file://" + path],
                       check=True, capture_output=True, timeout=120)
        print(f"{name}: {shot}")
    for line in failed:
        print(line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

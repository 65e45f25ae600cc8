"""Package layout: `equations/` and `solvers/` install as `sciml.equations` and `sciml.solvers`, and the case
files and suites of `cases/` as the data package `sciml.cases_data`.

pyproject.toml holds the metadata; this file only maps the four folders into one package tree, which
setuptools' declarative config cannot express for subpackages found automatically.
"""
from setuptools import find_packages, setup

ROOTS = {"sciml": "sciml", "equations": "sciml.equations", "solvers": "sciml.solvers", "cases": "sciml.cases_data"}

# every file a user can name: the cases, the suites and their baselines (tests/test_catalog.py checks that
# these patterns cover every file under cases/)
PACKAGE_DATA = {"sciml": ["py.typed"], "sciml.equations": ["data/*.csv"],
                "sciml.cases_data": ["*.yaml", "suites/*.yaml", "suites/baselines/*/*.json", "parts/*.stl"]}


def _packages():
    for folder, name in ROOTS.items():
        for sub in find_packages(include=[folder, folder + ".*"]):
            yield name + sub[len(folder):]


if __name__ == "__main__":  # setuptools runs this file as the main module; a test imports PACKAGE_DATA
    setup(
        packages=sorted(_packages()),
        package_dir={name: folder for folder, name in ROOTS.items()},
        package_data=PACKAGE_DATA,
    )

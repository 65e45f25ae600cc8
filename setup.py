"""Package layout: `equations/` and `solvers/` install as `sciml.equations` and `sciml.solvers`.

pyproject.toml holds the metadata; this file only maps the three source folders into one package tree,
which setuptools' declarative config cannot express for subpackages found automatically.
"""
from setuptools import find_packages, setup

ROOTS = {"sciml": "sciml", "equations": "sciml.equations", "solvers": "sciml.solvers"}


def _packages():
    for folder, name in ROOTS.items():
        for sub in find_packages(include=[folder, folder + ".*"]):
            yield name + sub[len(folder):]


setup(
    packages=sorted(_packages()),
    package_dir={name: folder for folder, name in ROOTS.items()},
    package_data={"sciml": ["py.typed"], "sciml.equations": ["data/*.csv"]},
)

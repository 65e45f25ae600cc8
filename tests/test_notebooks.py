"""The tour notebooks: stored without outputs, in step with their sources, and each runs in small mode from a
folder outside the checkout."""
import glob
import importlib.util
import os

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
spec = importlib.util.spec_from_file_location("nbbuild", os.path.join(ROOT, "notebooks", "build.py"))
nbbuild = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nbbuild)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_stored_without_outputs_and_built_from_source(path):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    src = os.path.join(ROOT, "notebooks", "src", os.path.basename(path)[:-6] + ".py")
    assert [c.source for c in nb.cells] == [c.source for c in nbbuild.build(src).cells], \
        "notebook differs from its source: run python notebooks/build.py"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_runs_top_to_bottom_in_small_mode(path, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIML_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("SCIML_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own inline backend, as for a user
    nb = nbformat.read(path, as_version=4)
    # started in a folder outside the checkout (as from notebooks/ in Jupyter): cases are found by name
    # no wall-clock bound here (CI machines differ 2-3x and are shared); the cell timeout only catches a hang
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    blank = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "\nplt.show()" in "\n" + c.source
             and not any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert not blank, f"cells {blank} call plt.show() but display no figure"

"""Dataset files as a user's own code writes them, for the tests of reading them."""
import h5py


def matlab73(path, arrays: dict) -> str:
    """A MATLAB v7.3 file as MATLAB writes one: an HDF5 file behind a 512-byte header, each array column-major
    (stored with its axes reversed)."""
    with h5py.File(path, "w", userblock_size=512) as f:
        for k, a in arrays.items():
            f[k] = a.T
    with open(path, "r+b") as fh:
        fh.write(b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Thu Dec  3 12:00:00 2026 HDF5 schema 1.00 .")
    return str(path)

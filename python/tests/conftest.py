"""Shared fixtures: the command-line tool beside the module, and small data sets written per test."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]

# The module and the tool compute in float32 unless a test sets another precision itself, so that the
# numbers the tests compare do not depend on the CPU: their default (auto) is bf16 on some CPUs.
os.environ["EDGEWISE_PRECISION"] = "float32"

# Sixteen small molecules and a made-up target, as tests/apps writes them for the command line.
SMILES = ["CCO", "CCCO", "CCCCO", "c1ccccc1", "Cc1ccccc1", "CCN", "CCCN", "CC(C)O",
          "CCOC", "CCCl", "c1ccncc1", "OCCO", "CC(=O)O", "CCCCCC", "CCC(C)O", "NCCO"]
TARGETS = np.round(np.arange(1, len(SMILES) + 1) * 0.3 - 1.0, 6)

# A model small enough to train in well under a second.
TINY = dict(hidden=8, heads=2, layers=1, head_hidden=8, epochs=4, ensemble=1, descriptors=False,
            atom_crippen=False, batch_size=4, seed=5)


@pytest.fixture(scope="session")
def cli() -> str:
    """The edgewise tool built beside this module (EDGEWISE_CLI, else build/apps/edgewise)."""
    path = os.environ.get("EDGEWISE_CLI", str(REPOSITORY / "build" / "apps" / "edgewise"))
    if not os.path.isfile(path):
        pytest.skip(f"the command-line tool is not built at {path}; set EDGEWISE_CLI")
    return path


def run_cli(cli: str, *arguments: str) -> str:
    result = subprocess.run([cli, *arguments], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture()
def molecules_csv(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "molecules.csv"
    lines = ["smiles,logS"] + [f"{s},{t:g}" for s, t in zip(SMILES, TARGETS)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def data_folder() -> pathlib.Path:
    """The shared benchmark data (EDGEWISE_DATA, else ../shared/datasets beside the repository)."""
    path = pathlib.Path(os.environ.get("EDGEWISE_DATA", REPOSITORY.parent / "shared" / "datasets"))
    if not path.is_dir():
        pytest.skip(f"the benchmark data is absent at {path}; set EDGEWISE_DATA")
    return path

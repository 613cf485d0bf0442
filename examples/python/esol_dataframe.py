"""ESOL water solubility from a pandas DataFrame: train, evaluate, predict, save and load.

Reads esol.csv with pandas, keeps 10% of the rows aside (at random, seed 0), trains a molecule
model on the rest with a scaffold split for early stopping and the model's own test rows, scores
the rows kept aside with evaluate, predicts a few SMILES (one of them unreadable), then saves the
model to a temporary folder and loads it back. A short run: 30 epochs of one network, well under a
minute on 2 cores.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/esol_dataframe.py

The data are read from $EDGEWISE_DATA/esol/esol.csv, else ../shared/datasets/esol/esol.csv beside
the checkout; without them the example says so and exits with status 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import edgewise

TARGET = "measured log solubility in mols per litre"


def data_folder() -> Path:
    """$EDGEWISE_DATA, else ../shared/datasets relative to the repository root."""
    if os.environ.get("EDGEWISE_DATA"):
        return Path(os.environ["EDGEWISE_DATA"])
    return Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


def main() -> int:
    table = data_folder() / "esol" / "esol.csv"
    if not table.is_file():
        print(f"skipped: {table} not found (set EDGEWISE_DATA to the folder holding esol/)")
        return 0

    df = pd.read_csv(table)
    held_out = df.sample(frac=0.1, random_state=0)
    df = df.drop(held_out.index)
    print(f"{len(df)} molecules to train on, {len(held_out)} held out")

    # split="scaffold": Bemis-Murcko groups, the largest to training; 80 / 10 / 10 % by default.
    model = edgewise.MoleculeModel.train(df.smiles, df[TARGET], split="scaffold", epochs=30, ensemble=1,
                                         seed=0, verbose=False)
    print(model)
    training = model.describe()["training"]  # what `edgewise info` prints under "training"
    print(f"split {training['split']}; best epoch {training['best_epochs'][0]} of {training['epochs_run'][0]}")
    print("  " + "  ".join(f"{m['name']} {m['value']:.4f}" for m in training["metrics"] if m["name"].startswith("test")))

    metrics = model.evaluate(held_out.smiles, held_out[TARGET])
    print(f"held-out rows: rmse {metrics['rmse']:.4f}  mae {metrics['mae']:.4f}  r2 {metrics['r2']:.4f}")

    smiles = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "C1CC"]  # the last one has an unclosed ring
    values, invalid = model.predict(smiles, return_invalid=True)
    for text, value in zip(smiles, values[:, 0]):
        print(f"  {text:<22} {value:8.3f}")
    for index, text, reason in invalid:
        print(f"  smiles[{index}] '{text}' could not be read: {reason}")

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "esol.ew"
        model.save(path)
        loaded = edgewise.MoleculeModel.load(path)
        again = loaded.predict(smiles)
        same = np.array_equal(values, again, equal_nan=True)
        print(f"saved {path.stat().st_size} bytes, loaded back: {loaded}; same predictions: {same}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

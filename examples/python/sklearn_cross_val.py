"""scikit-learn's cross_val_score with edgewise.sklearn.MoleculeRegressor.

Three-fold cross-validation of a small molecule model (15 epochs, one network) on 300 ESOL
molecules drawn at random (seed 0), scored by RMSE. Each fit trains anew on the fold's rows and
holds out 10% of them for early stopping. A few seconds on 2 cores.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sklearn_cross_val.py

The data are read from $EDGEWISE_DATA/esol/esol.csv, else ../shared/datasets/esol/esol.csv beside
the checkout; without them the example says so and exits with status 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
from sklearn.model_selection import KFold, cross_val_score

from edgewise.sklearn import MoleculeRegressor

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

    subset = pd.read_csv(table).sample(n=300, random_state=0)
    estimator = MoleculeRegressor(epochs=15, ensemble=1, seed=0)
    folds = KFold(n_splits=3, shuffle=True, random_state=0)
    scores = -cross_val_score(estimator, subset.smiles, subset[TARGET], cv=folds,
                              scoring="neg_root_mean_squared_error")
    print(f"{estimator}")
    print("RMSE of each fold: " + ", ".join(f"{s:.4f}" for s in scores))
    print(f"mean {scores.mean():.4f} +- {scores.std(ddof=1):.4f} (log mol/L; the target's sd on these rows is "
          f"{subset[TARGET].std():.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

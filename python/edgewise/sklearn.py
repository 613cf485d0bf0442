"""scikit-learn estimators over :class:`edgewise.MoleculeModel`.

``X`` is a sequence of SMILES (a list, array or pandas Series), ``y`` the targets: 1-D for one
task, 2-D for several (NaN: a missing label). The constructor's parameters are the training
options of ``edgewise train --task graph`` (``attention_score`` is its ``--score``); None keeps its
default. So that ``cross_val_score``, ``GridSearchCV`` and ``Pipeline`` work, every parameter is a
plain attribute and fit trains anew.
``fit`` holds out ``validation_fraction`` of the rows (at random, by ``seed``) for early stopping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from . import MoleculeModel, _smiles_list

# Estimator parameters and the training options they set; the attention score function is
# attention_score here, as score is scikit-learn's method.
_OPTIONS = {"hidden": "hidden", "heads": "heads", "layers": "layers", "attention_score": "score",
            "readout": "readout", "descriptors": "descriptors", "atom_crippen": "atom_crippen",
            "ensemble": "ensemble", "dropout": "dropout", "lr": "lr", "batch_size": "batch_size",
            "epochs": "epochs", "patience": "patience", "seed": "seed"}


class _MoleculeEstimator(BaseEstimator):
    _task_type = "regression"

    def __init__(
        self,
        hidden: int | None = None,
        heads: int | None = None,
        layers: int | None = None,
        attention_score: str | None = None,
        readout: str | None = None,
        descriptors: bool | None = None,
        atom_crippen: bool | None = None,
        ensemble: int | None = None,
        dropout: float | None = None,
        lr: float | None = None,
        batch_size: int | None = None,
        epochs: int | None = None,
        patience: int | None = None,
        seed: int = 0,
        validation_fraction: float = 0.1,
        threads: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.hidden = hidden
        self.heads = heads
        self.layers = layers
        self.attention_score = attention_score
        self.readout = readout
        self.descriptors = descriptors
        self.atom_crippen = atom_crippen
        self.ensemble = ensemble
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.epochs = epochs
        self.patience = patience
        self.seed = seed
        self.validation_fraction = validation_fraction
        self.threads = threads
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> "_MoleculeEstimator":
        options = {option: getattr(self, name) for name, option in _OPTIONS.items() if getattr(self, name) is not None}
        fraction = float(self.validation_fraction)
        self.model_ = MoleculeModel.train(
            _smiles_list(X, "X"), y, split="random", split_sizes=(1.0 - fraction, fraction, 0.0),
            task_type=self._task_type, verbose=self.verbose, threads=self.threads, **options)
        self.n_outputs_ = len(self.model_.tasks)
        return self

    def _predict_values(self, X: Any) -> np.ndarray:
        if not hasattr(self, "model_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")
        return self.model_.predict(_smiles_list(X, "X"), threads=self.threads)


class MoleculeRegressor(RegressorMixin, _MoleculeEstimator):
    """Molecule property regression; predict gives target units ([n] for one task)."""

    def predict(self, X: Any) -> np.ndarray:
        values = self._predict_values(X)
        return values[:, 0] if self.n_outputs_ == 1 else values


class MoleculeClassifier(ClassifierMixin, _MoleculeEstimator):
    """Binary molecule classification (labels 0 and 1; several tasks give several columns)."""

    _task_type = "classification"

    def fit(self, X: Any, y: Any) -> "MoleculeClassifier":
        super().fit(X, y)
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """[n, 2] probabilities of classes 0 and 1 for one task; [n, tasks] of class 1 for several."""
        values = self._predict_values(X)
        if self.n_outputs_ == 1:
            return np.column_stack([1.0 - values[:, 0], values[:, 0]])
        return values

    def predict(self, X: Any) -> np.ndarray:
        values = self._predict_values(X)
        labels = (values >= 0.5).astype(int)
        return labels[:, 0] if self.n_outputs_ == 1 else labels

"""scikit-learn estimators over :class:`edgewise.MoleculeModel`.

``X`` is a sequence of SMILES (a list, array or pandas Series), ``y`` the targets: 1-D for one
task, 2-D for several (NaN: a missing label). The constructor's parameters are the training
options of ``edgewise train --task molecule`` (``edgewise.training_options("molecule")``, but task_type;
``attention_score`` is its ``--score``); None keeps its default. So that ``cross_val_score``, ``GridSearchCV`` and ``Pipeline`` work, every parameter is a
plain attribute and fit trains anew.
``fit`` holds out ``validation_fraction`` of the rows (at random, by ``seed``) for early stopping.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from . import MoleculeModel, _smiles_list, training_options

# Estimator parameters and the training options they set, from the parameter table: every keyword
# option but task_type, which each estimator fixes; the attention score function is attention_score
# here, as score is scikit-learn's method.
_OPTIONS = {("attention_score" if o["name"] == "score" else o["name"]): o["name"]
            for o in training_options("molecule") if o["keyword"] and o["name"] != "task_type"}
# The estimator's own parameters and their defaults.
_OWN = {"validation_fraction": 0.1, "threads": None, "verbose": False}


class _MoleculeEstimator(BaseEstimator):
    _task_type = "regression"

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(_OPTIONS) - set(_OWN)
        if unknown:
            raise TypeError(f"unknown parameter {sorted(unknown)[0]!r}")
        for name in _OPTIONS:
            setattr(self, name, params.get(name))
        for name, default in _OWN.items():
            setattr(self, name, params.get(name, default))

    # scikit-learn reads the parameters from the signature: each training option (None: its default).
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in _OPTIONS]
        + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default) for name, default in _OWN.items()])

    def fit(self, X: Any, y: Any) -> "_MoleculeEstimator":
        options = {option: getattr(self, name) for name, option in _OPTIONS.items() if getattr(self, name) is not None}
        fraction = float(self.validation_fraction)
        self.model_ = MoleculeModel.train(
            _smiles_list(X, "X"), y, split_sizes=(1.0 - fraction, fraction, 0.0),
            task_type=self._task_type, verbose=self.verbose, threads=self.threads, **options)
        self.n_outputs_ = len(self.model_.tasks)
        return self

    def _predict_values(self, X: Any, return_std: bool = False) -> Any:
        if not hasattr(self, "model_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")
        return self.model_.predict(_smiles_list(X, "X"), threads=self.threads, return_std=return_std)


class MoleculeRegressor(RegressorMixin, _MoleculeEstimator):
    """Molecule property regression; predict gives target units ([n] for one task), and with
    return_std (its variance networks' by default, or uncertainty="ensemble" and the others) also the
    calibrated standard deviations, as GaussianProcessRegressor.predict does."""

    def predict(self, X: Any, return_std: bool = False) -> Any:
        if not return_std:
            return self._one_task(self._predict_values(X))
        values, std = self._predict_values(X, return_std=True)
        return self._one_task(values), self._one_task(std)

    def _one_task(self, values: np.ndarray) -> np.ndarray:
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

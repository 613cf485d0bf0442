"""The scikit-learn estimators: parameters, cloning, cross-validation and pipelines."""

from __future__ import annotations

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

from conftest import SMILES, TARGETS  # noqa: E402
from edgewise.sklearn import MoleculeClassifier, MoleculeRegressor  # noqa: E402

SMALL = dict(hidden=8, heads=2, layers=1, epochs=3, ensemble=1, descriptors=False, batch_size=4)


def test_parameters_round_trip_and_clone() -> None:
    estimator = MoleculeRegressor(**SMALL)
    assert estimator.get_params()["hidden"] == 8
    estimator.set_params(hidden=16)
    copy = clone(estimator)
    assert copy.get_params() == estimator.get_params()
    assert not hasattr(copy, "model_")


def test_cross_val_score_gives_a_score_per_fold() -> None:
    smiles = SMILES * 3
    targets = np.tile(TARGETS, 3)
    scores = cross_val_score(MoleculeRegressor(**SMALL), smiles, targets, cv=3, scoring="neg_root_mean_squared_error")
    assert scores.shape == (3,) and np.isfinite(scores).all()


def test_regressor_predicts_one_column_per_task() -> None:
    single = MoleculeRegressor(**SMALL).fit(SMILES, TARGETS)
    assert single.predict(SMILES).shape == (len(SMILES),)
    double = MoleculeRegressor(**SMALL).fit(SMILES, np.column_stack([TARGETS, -TARGETS]))
    assert double.predict(SMILES).shape == (len(SMILES), 2)


def test_regressor_returns_std_as_gaussian_process_regressor_does() -> None:
    estimator = MoleculeRegressor(**{**SMALL, "ensemble": 2}, uncertainty="ensemble", validation_fraction=0.25)
    values, std = estimator.fit(SMILES, TARGETS).predict(SMILES, return_std=True)
    assert values.shape == std.shape == (len(SMILES),) and (std > 0).all()
    assert np.array_equal(values, estimator.predict(SMILES))


def test_classifier_gives_probabilities_of_both_classes_in_a_pipeline() -> None:
    labels = (TARGETS > TARGETS.mean()).astype(int)
    canonical = FunctionTransformer(lambda smiles: [s.strip() for s in smiles])
    pipeline = Pipeline([("clean", canonical), ("model", MoleculeClassifier(**SMALL))]).fit(SMILES, labels)
    probabilities = pipeline.predict_proba(SMILES)
    assert probabilities.shape == (len(SMILES), 2)
    assert probabilities.sum(axis=1) == pytest.approx(np.ones(len(SMILES)), abs=1e-6)
    assert set(pipeline.predict(SMILES)) <= {0, 1}
    assert 0.0 <= pipeline.score(SMILES, labels) <= 1.0


def test_a_dataframe_as_x_names_the_column_to_pass() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"smiles": SMILES, "weight": np.arange(len(SMILES))})
    message = r"X: expected a list of SMILES strings or a pandas Series, got a DataFrame; pass df\['smiles'\]"
    with pytest.raises(TypeError, match=message):
        MoleculeRegressor(**SMALL).fit(frame, TARGETS)
    fitted = MoleculeRegressor(**SMALL).fit(frame["smiles"], TARGETS)
    with pytest.raises(TypeError, match=message):
        fitted.predict(frame)


def test_predicting_before_fitting_is_refused() -> None:
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MoleculeRegressor().predict(SMILES)

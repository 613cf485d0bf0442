"""Graph attention for molecules and social graphs, computed along the edges.

The same models as the ``edgewise`` command-line tool, from Python: a model file written by one
opens in the other.

- :class:`MoleculeModel`: molecule property prediction from SMILES, CSV or SD files (regression or
  classification, several targets with missing labels).
- :class:`NodeGraph` and :class:`NodeModel`: node classification on a graph given as NumPy arrays,
  a NetworkX graph or the files ``edgewise train --task node`` reads.
- :class:`LinkModel`: link prediction on such a graph: scores for pairs of nodes, and suggestions of
  new partners.
- :class:`GraphAttention`: one attention layer on NumPy inputs.
- :mod:`edgewise.sklearn`: scikit-learn estimators.

Long calls release the GIL, print progress on ``sys.stderr`` unless ``verbose=False``, and stop
with ``KeyboardInterrupt`` on Ctrl-C. Errors in the data raise ``ValueError`` naming the file,
line and value where there is one.
"""

from __future__ import annotations

import inspect
import json
import operator
import os
import warnings
from typing import Any, Sequence

import numpy as np

from . import _edgewise
from ._edgewise import (
    GraphAttention,
    bf16_available,
    num_threads,
    precision,
    set_num_threads,
    set_precision,
    training_options,
)

__version__: str = _edgewise.__version__

__all__ = [
    "GraphAttention",
    "LinkModel",
    "MoleculeModel",
    "NodeGraph",
    "NodeModel",
    "bf16_available",
    "num_threads",
    "precision",
    "set_num_threads",
    "set_precision",
    "training_options",
    "tune",
    "__version__",
]


def _smiles_list(smiles: Any, what: str = "smiles") -> list[str]:
    """A list of str from a list, tuple, NumPy array or pandas Series of SMILES."""
    if isinstance(smiles, str):
        raise TypeError(f"{what}: expected a sequence of SMILES, got one string; wrap it in a list")
    if hasattr(smiles, "columns"):  # a pandas DataFrame
        named = [c for c in smiles.columns if str(c).lower() == "smiles"]
        column = named[0] if named else (smiles.columns[0] if len(smiles.columns) else "smiles")
        raise TypeError(f"{what}: expected a list of SMILES strings or a pandas Series, got a DataFrame; "
                        f"pass df[{column!r}]")
    if getattr(smiles, "ndim", 1) != 1:
        raise TypeError(f"{what}: expected a list of SMILES strings, got a {smiles.ndim}-D array")
    values = list(smiles.tolist() if hasattr(smiles, "tolist") else smiles)
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise TypeError(f"{what}[{index}]: expected a SMILES string, got {type(value).__name__}")
    return values


def _targets(targets: Any) -> tuple[np.ndarray, list[str]]:
    """Targets as float [n, T] with NaN for missing labels, and the column names of a DataFrame."""
    names: list[str] = []
    if hasattr(targets, "columns"):  # a pandas DataFrame
        names = [str(c) for c in targets.columns]
    elif hasattr(targets, "name") and hasattr(targets, "to_numpy") and targets.name is not None:  # a Series
        names = [str(targets.name)]
    try:
        values = np.asarray(targets.to_numpy(dtype=float) if hasattr(targets, "to_numpy") else targets, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"targets: expected an array of numbers ({error})") from None
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"targets: expected a 1-D or 2-D array, got {values.ndim} dimensions")
    return values, names


def _column(column: Any, what: str, header: bool) -> int | str:
    """A column of a file: its 0-based index, or its name in the header."""
    if isinstance(column, str):
        if not header:
            raise ValueError(f"{what}: a file without a header names no columns; give 0-based indices")
        return column
    if isinstance(column, bool) or not isinstance(column, (int, np.integer)):
        raise TypeError(f"{what}: expected a 0-based column index or a header name, got {type(column).__name__}")
    if column < 0:
        raise ValueError(f"{what}: column indices count from 0, got {column}")
    return int(column)


def _unreadable(row: tuple[int, str, str, str], listed: bool) -> str:
    """The message for a molecule that cannot be read: (index, SMILES, reason, place)."""
    index, text, reason, place = row
    where = f"smiles[{index}]" if listed else f"row {index}"
    what = f"'{text}'" if text else "the SD record"
    return f"{where} ({place}): cannot read {what}: {reason}"


def _training_default(task: str, name: str) -> Any:
    """The default of a training option, from the task's parameter table."""
    return next(o["default"] for o in training_options(task) if o["name"] == name)


def _with_threads(threads: int | None) -> None:
    if threads is not None:
        set_num_threads(int(threads))


def _writable(path: str | os.PathLike[str], overwrite: bool) -> str:
    """The path, or FileExistsError when it exists and may not be replaced (the library refuses
    it too, atomically; this gives the Python wording)."""
    text = os.fspath(path)
    if not overwrite and os.path.exists(text):
        raise FileExistsError(f"{text} exists; pass overwrite=True to replace it")
    return text


def _check_readable(path: str | os.PathLike[str], what: str) -> str:
    text = os.fspath(path)
    if not os.path.isfile(text):
        raise FileNotFoundError(f"{what}: no such file: {text}")
    return text


class _Model:
    """What models of every task have: a model file to load and save, and a description."""

    _core: Any  # the compiled class: _edgewise.MoleculeModel, _edgewise.NodeModel or _edgewise.LinkModel

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Any:
        """Opens a model file written by :meth:`save` or ``edgewise train``; ValueError when it is
        not a model of this kind."""
        return cls(cls._core._load(_check_readable(path, "model")))

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> None:
        """Writes the model file atomically; an existing file is replaced only with overwrite."""
        self._handle._save(_writable(path, overwrite), overwrite)

    def describe(self) -> dict[str, Any]:
        """What ``edgewise info`` prints: title, facts, configuration and training summary."""
        return self._handle._describe()

    @property
    def num_parameters(self) -> int:
        """Trainable scalars (of each network of an ensemble)."""
        return self._handle._num_parameters


class MoleculeModel(_Model):
    """A trained molecule property model: featurizer, an ensemble of graph attention networks,
    target names and scaling, as one model file.

    Train with :meth:`train` (the defaults are those of ``edgewise train --task molecule``), or open a
    file with :meth:`load`. Safe to share between threads: calls on one model run one at a time,
    with the GIL released.
    """

    _core = _edgewise.MoleculeModel

    @classmethod
    def train(
        cls,
        smiles: Sequence[str] | None = None,
        targets: Any = None,
        *,
        data: str | os.PathLike[str] | None = None,
        smiles_column: str | int | None = None,
        target_columns: Sequence[str | int] | None = None,
        task_names: Sequence[str] | None = None,
        header: bool = True,
        comment: str | None = None,
        split: str | tuple[Any, Any, Any] | None = None,
        split_sizes: tuple[float, float, float] | None = None,
        skip_invalid: bool = False,
        max_atoms: int = 1000,
        verbose: bool = True,
        threads: int | None = None,
        **options: Any,
    ) -> "MoleculeModel":
        """Trains a model on SMILES and targets, or on a CSV or SDF file (``data``).

        smiles, targets: a sequence of SMILES (a list, array or pandas Series) and a 1-D or 2-D
        array (or DataFrame) of targets, NaN for a missing label. task_names name the targets
        (default: a DataFrame's columns, else y or y0, y1, ...).
        data: a CSV file (SMILES and target columns) or SDF file instead, read as ``edgewise
        train`` reads it. smiles_column (default: the column named smiles, in any case, else the
        first) and target_columns (default: every other column) choose the columns by header name
        or 0-based index; an SD file's target_columns name its data fields. header=False reads a
        CSV without a header (``--no-header``: columns by index, target_columns required, targets
        named "column <i>" unless task_names name them); comment skips lines starting with it
        (``--comment``).
        split: "random", "scaffold" (Bemis-Murcko groups; for regression largest to train, for
        classification class-balanced and seeded, as ``--split scaffold`` does) with split_sizes as
        train, validation and test fractions, a folder of train.txt, val.txt and test.txt row
        indices (as ``--split`` reads it), or a (train, val, test) tuple of row index arrays or
        boolean masks (None: the defaults :func:`training_options` lists). Training stops early on
        the validation rows; the test rows' metrics go into the model's training summary. A
        classification validation or test part of one class in every task raises ValueError: its
        ROC-AUC is undefined.
        skip_invalid: leave out SMILES RDKit cannot read instead of raising ValueError.
        options: the command line's training options with underscores (None keeps the default),
        as :func:`training_options` lists them:
        """
        return cls(_molecule_run(
            None, smiles, targets, data, smiles_column, target_columns, task_names, header, comment, split,
            split_sizes, skip_invalid, max_atoms, verbose, threads, options))

    def predict(
        self,
        smiles: Sequence[str] | None = None,
        *,
        data: str | os.PathLike[str] | None = None,
        smiles_column: str | int | None = None,
        header: bool = True,
        comment: str | None = None,
        on_invalid: str = "nan",
        return_invalid: bool = False,
        max_atoms: int = 1000,
        threads: int | None = None,
        return_std: bool = False,
    ) -> Any:
        """Predictions [n, tasks] as float32: target units for regression, probabilities of class 1
        for classification.

        smiles: a sequence of SMILES (a list, array or pandas Series); or data: a CSV file, one row
        per molecule (smiles_column, header and comment as in :meth:`train`), or an SD file, one
        row per record, as ``edgewise predict --data`` reads them.
        A molecule that RDKit cannot read gets a row of NaN (on_invalid="nan") or raises ValueError
        naming it (on_invalid="raise"). With return_std (a model with a spread: a regression
        model's variance networks by default, or uncertainty="ensemble" and the others), returns
        (predictions, std) as scikit-learn's GaussianProcessRegressor does: the calibrated standard
        deviations [n, tasks]. With return_invalid, the list of (index, SMILES, reason) of the
        unreadable molecules follows; an SD record's SMILES is empty.
        """
        values, invalid, spread = self._predicted(smiles, data, smiles_column, header, comment, on_invalid,
                                                  max_atoms, threads)
        result = (values, self._handle._from_spread(spread, None)) if return_std else (values,)
        result += (invalid,) if return_invalid else ()
        return result if len(result) > 1 else values

    def predict_interval(
        self,
        smiles: Sequence[str] | None = None,
        *,
        coverage: float = 0.9,
        data: str | os.PathLike[str] | None = None,
        smiles_column: str | int | None = None,
        header: bool = True,
        comment: str | None = None,
        on_invalid: str = "nan",
        max_atoms: int = 1000,
        threads: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) [n, tasks]: split-conformal intervals that hold the target with probability
        at least coverage for molecules like the validation molecules, wider where the spread is
        (a model with a spread, as for return_std in :meth:`predict`; docs/uncertainty.md). The
        molecules are given as in :meth:`predict`."""
        values, _, spread = self._predicted(smiles, data, smiles_column, header, comment, on_invalid, max_atoms,
                                            threads)
        half = self._handle._from_spread(spread, float(coverage))
        return values - half, values + half

    def _predicted(self, smiles: Any, data: Any, smiles_column: Any, header: bool, comment: str | None,
                   on_invalid: str, max_atoms: int, threads: int | None) -> tuple[np.ndarray, list, np.ndarray]:
        if on_invalid not in ("nan", "raise"):
            raise ValueError(f"on_invalid: expected 'nan' or 'raise', got {on_invalid!r}")
        if (smiles is None) == (data is None):
            raise ValueError("give either smiles or data")
        _with_threads(threads)
        if data is None:
            values, invalid, spread = self._handle._predict(_smiles_list(smiles), max_atoms)
        else:
            column = None if smiles_column is None else _column(smiles_column, "smiles_column", header)
            values, invalid, spread = self._handle._predict_file(_check_readable(data, "data"), column, header,
                                                                 comment or "", max_atoms)
        if invalid and on_invalid == "raise":
            raise ValueError(_unreadable(invalid[0], data is None))
        return values, [(index, text, reason) for index, text, reason, _ in invalid], spread

    def evaluate(self, smiles: Sequence[str], targets: Any) -> dict[str, float]:
        """The metrics of ``edgewise eval`` by name: their means over tasks ("rmse", "mae", "r2",
        or "roc_auc", "pr_auc", "accuracy") and each task's, named "<task> <metric>", with
        "<task> count" (the labels scored, an int). Undefined metrics are NaN. Targets as in
        :meth:`train`."""
        values, _ = _targets(targets)
        return self._handle._evaluate(_smiles_list(smiles), values)

    def attention(self, smiles: str) -> dict[str, np.ndarray]:
        """The last layer's attention on one molecule (first network of the ensemble):
        edge_index [2, E] (source, target atoms; self-loops included), weights [E, heads],
        bond_of_edge [E] (RDKit bond index, -1 for self-loops), and the attention each atom and
        bond receives (atoms, bonds), as ``edgewise explain`` draws them."""
        return self._handle._attention(smiles)

    def explain_svg(self, smiles: str, title: str = "") -> str:
        """The molecule drawn as SVG with atoms and bonds shaded by the attention they receive."""
        return self._handle._explain_svg(smiles, title)

    @property
    def tasks(self) -> list[str]:
        """The target names, one per output column."""
        return self._handle._tasks

    @property
    def task_type(self) -> str:
        """"regression" or "classification"."""
        return self._handle._task_type

    @property
    def probability_calibration(self) -> list[dict]:
        """A classification model's calibration per task: Platt's {"slope", "intercept"}, its
        probabilities sigmoid(slope * logit(p) + intercept) of the networks' p (slope 1.0 and
        intercept 0.0 where calibration did not help), or isotonic regression's {"isotonic": [(p,
        calibrated p), ...]}, knots joined by straight lines. Empty for regression and for models
        saved without."""
        return self._handle._probability_calibration

    def __repr__(self) -> str:
        return f"MoleculeModel({self.task_type}, tasks={self.tasks}, parameters={self.num_parameters})"


def _dense_features(features: Any) -> Any:
    if features is None:
        return None
    if hasattr(features, "toarray"):  # a SciPy sparse matrix: made dense once, in float32, then read in place
        return features.astype(np.float32).toarray()
    return features


def _id_array(ids: Any) -> np.ndarray:
    """Node ids as an array, exactly: Python ints beyond int64 become uint64 (or objects, refused by
    value later), never the float64 that np.asarray makes of them."""
    array = np.asarray(ids)
    if array.dtype.kind != "f" or isinstance(ids, np.ndarray):
        return array
    values = list(ids)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return array  # floats: refused as ids
    return np.array(values, dtype=np.uint64 if min(values) >= 0 else object)


def _row_numbers(ids: np.ndarray) -> bool:
    """Whether edge ids are row numbers 0 .. N-1 (integers of int64's range), not ids naming nodes."""
    if ids.size == 0 or ids.dtype.kind == "i":
        return True
    return ids.dtype.kind == "u" and ids.max() < 2**63


def _labels_by_row(labels: dict[Any, Any], names: list[str]) -> dict[int, Any]:
    """A dict {node id: label} keyed by row, through the graph's node names."""
    row = {name: i for i, name in enumerate(names)}
    by_row = {}
    for node, label in labels.items():
        name = node if isinstance(node, str) else str(operator.index(node))
        if name not in row:
            raise ValueError(f"labels: node {node!r} is not in the graph")
        by_row[row[name]] = label
    return by_row


def _labels(labels: Any, num_nodes: int, class_names: Sequence[str] | None) -> tuple[Any, list[str]]:
    """Class ids (-1: unlabelled) and class names from ids, names or a dict {node: label}."""
    if labels is None:
        return None, list(class_names or [])
    if isinstance(labels, dict):
        dense: list[Any] = [None] * num_nodes
        for node, label in labels.items():
            if not 0 <= int(node) < num_nodes:
                raise ValueError(f"labels: node {node} is outside 0..{num_nodes - 1}")
            dense[int(node)] = label
        labels = dense
    values = np.asarray(labels, dtype=object if isinstance(labels, list) else None)
    if values.ndim != 1 or values.shape[0] != num_nodes:
        raise ValueError(f"labels: expected one entry per node ({num_nodes}), got shape {values.shape}")
    if values.dtype.kind in "iu":
        ids = values.astype(np.int64)
        count = int(ids.max()) + 1 if ids.size and ids.max() >= 0 else 0
        names = list(class_names) if class_names is not None else [str(c) for c in range(count)]
        return ids, names
    present = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    names = list(class_names) if class_names is not None else sorted({str(v) for v in present})
    index = {name: i for i, name in enumerate(names)}
    ids = np.full(num_nodes, -1, dtype=np.int64)
    for node, value in enumerate(values):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        if str(value) not in index:
            raise ValueError(f"labels: node {node} has label {value!r}, which is not among class_names")
        ids[node] = index[str(value)]
    return ids, names


class NodeGraph:
    """A graph with node features and labels, built from arrays or read from files.

    Each edge joins its nodes both ways unless directed, repeated edges count once, and every node
    attends to itself (self_loops). Without features, the structural features of ``edgewise
    train --task node`` (degree one-hot and random-walk return probabilities) are computed.
    """

    def __init__(self, handle: _edgewise.NodeGraph) -> None:
        self._handle = handle

    @classmethod
    def from_edge_index(
        cls,
        edge_index: Any,
        num_nodes: int | None = None,
        *,
        features: Any = None,
        labels: Any = None,
        class_names: Sequence[str] | None = None,
        directed: bool = False,
        self_loops: bool = True,
    ) -> "NodeGraph":
        """From an integer array edge_index [2, E] of (source, target) rows, PyTorch Geometric's
        layout. num_nodes defaults to the number of feature rows, else the largest id + 1.
        features: [N, F] dense array or SciPy sparse matrix; a C-ordered float32 array is read in
        place, without a copy, so the graph sees later changes to it (pass ``features.copy()`` for a
        graph of its own); other arrays are converted to float32 rows the graph owns. labels: class
        ids (-1: unlabelled), label names (None: unlabelled), or a dict {node: label}. Ids that are
        not row numbers (strings, integers beyond int64) name the nodes, as in :meth:`from_edges`."""
        index = np.asarray(edge_index)
        if index.ndim != 2 or index.shape[0] != 2:
            raise ValueError(f"edge_index: expected shape [2, E], got {index.shape}")
        # Rows of a list are passed on as given: NumPy would make Python ints beyond int64 floats.
        rows = index if isinstance(edge_index, np.ndarray) else edge_index
        return cls.from_edges(rows[0], rows[1], num_nodes, features=features, labels=labels,
                              class_names=class_names, directed=directed, self_loops=self_loops)

    @classmethod
    def from_edges(
        cls,
        sources: Any,
        targets: Any,
        num_nodes: int | None = None,
        *,
        nodes: Any = None,
        features: Any = None,
        labels: Any = None,
        class_names: Sequence[str] | None = None,
        directed: bool = False,
        self_loops: bool = True,
    ) -> "NodeGraph":
        """From parallel sequences of edge sources and targets; otherwise as :meth:`from_edge_index`.

        Integers of int64's range number the rows, 0 .. num_nodes - 1. Other ids name the nodes:
        strings, and integers up to 2**64 - 1 (a uint64 array, or Python ints). nodes= lists every
        node's id in row order (features and label arrays follow it; nodes without edges
        included), and makes any ids names; without it, rows are numbered by first appearance
        (each edge's source, then its target), as ``NodeGraph.read`` numbers a file's ids, and
        labels may be a dict {id: label}. :attr:`node_ids` gives each row's id back exactly."""
        sources, targets = _id_array(sources), _id_array(targets)
        dense = _dense_features(features)
        if nodes is not None or not (_row_numbers(sources) and _row_numbers(targets)):
            return cls._from_node_ids(sources, targets, num_nodes, nodes, dense, labels, class_names, directed,
                                      self_loops)
        if num_nodes is None:
            if dense is not None:
                num_nodes = int(np.shape(dense)[0])
            else:
                num_nodes = int(max(sources.max(initial=-1), targets.max(initial=-1))) + 1
        ids, names = _labels(labels, num_nodes, class_names)
        return cls(_edgewise.NodeGraph._from_arrays(num_nodes, sources, targets, dense, ids, names, directed,
                                                    self_loops, [], False))

    @classmethod
    def _from_node_ids(cls, sources: np.ndarray, targets: np.ndarray, num_nodes: int | None, nodes: Any,
                       dense: Any, labels: Any, class_names: Sequence[str] | None, directed: bool,
                       self_loops: bool) -> "NodeGraph":
        names, from_rows, to_rows, strings = _edgewise.NodeGraph._number_ids(
            None if nodes is None else _id_array(nodes), sources, targets)
        if nodes is None and (dense is not None or not (labels is None or isinstance(labels, dict))):
            raise ValueError("features and label arrays need the id of each row: pass nodes=, "
                             "or labels as a dict {id: label}")
        if num_nodes is not None and num_nodes != len(names):
            raise ValueError(f"num_nodes: {num_nodes}, but the ids name {len(names)} nodes")
        if isinstance(labels, dict):
            labels = _labels_by_row(labels, names)
        ids, class_list = _labels(labels, len(names), class_names)
        return cls(_edgewise.NodeGraph._from_arrays(len(names), from_rows, to_rows, dense, ids, class_list,
                                                    directed, self_loops, names, strings))

    @classmethod
    def from_networkx(
        cls,
        graph: Any,
        *,
        features: Any = None,
        labels: Any = None,
        class_names: Sequence[str] | None = None,
        self_loops: bool = True,
    ) -> "NodeGraph":
        """From a NetworkX graph, its nodes numbered in graph.nodes order. labels may name a node
        attribute; features may be an array in that order. A DiGraph keeps its directions."""
        order = {node: i for i, node in enumerate(graph.nodes)}
        pairs = np.array([(order[u], order[v]) for u, v in graph.edges], dtype=np.int64).reshape(-1, 2)
        if isinstance(labels, str):
            labels = [graph.nodes[node].get(labels) for node in graph.nodes]
        return cls.from_edges(pairs[:, 0], pairs[:, 1], len(order), features=features, labels=labels,
                              class_names=class_names, directed=graph.is_directed(), self_loops=self_loops)

    @classmethod
    def read(
        cls,
        edges: str | os.PathLike[str],
        labels: str | os.PathLike[str] | None = None,
        features: str | os.PathLike[str] | None = None,
        *,
        label_column: int | str = 1,
        id_column: int | str = 0,
        feature_format: str | None = None,
        node_ids: str = "integer",
        directed: bool = False,
        self_loops: bool = True,
        row_normalize: bool | None = None,
        header: bool | None = None,
    ) -> "NodeGraph":
        """Reads the files of ``edgewise train --task node`` with its options (feature_format:
        sparse, dense, musae-json or structural; node_ids: integer or string). label_column and
        id_column (``--label-column``, ``--id-column``) choose the labels file's label and node id
        columns by 0-based index or header name: MUSAE's facebook_target.csv
        (id,facebook_id,page_name,page_type) needs label_column="page_type". header (``--header``):
        whether each file's first line is a header; None detects one, and with string ids warns
        when it took a first line for one."""
        handle = _edgewise.NodeGraph._from_files(
            _check_readable(edges, "edges"),
            _check_readable(labels, "labels") if labels is not None else "",
            _column(label_column, "label_column", True), _column(id_column, "id_column", True),
            _check_readable(features, "features") if features is not None else "",
            feature_format or "", node_ids, directed, self_loops, row_normalize, header)
        return cls._reporting_headers(handle)

    @classmethod
    def _reporting_headers(cls, handle: Any) -> "NodeGraph":
        for guessed in handle._guessed_headers:
            warnings.warn(f"{guessed} read as a header, as nothing else in the files names what it names; "
                          "header=False reads it as data", stacklevel=3)
        return cls(handle)

    @property
    def num_nodes(self) -> int:
        return self._handle.num_nodes

    @property
    def num_edges(self) -> int:
        """Edges attention runs on: both directions of each edge, and the self-loops."""
        return self._handle.num_edges

    @property
    def num_features(self) -> int:
        return self._handle.num_features

    @property
    def class_names(self) -> list[str]:
        return self._handle.class_names

    @property
    def labels(self) -> np.ndarray:
        """Class id of every node, -1 where unlabelled."""
        return self._handle.labels

    @property
    def node_names(self) -> list[str]:
        """Each node's id as the input named it, by row: integers by their decimal digits."""
        return self._handle.node_names

    @property
    def node_ids(self) -> np.ndarray:
        """Each node's id by row, exactly as given: int64 for integer ids (row numbers included),
        uint64 when one exceeds 2**63 - 1, an object array of str for string ids. The rows of
        predictions, probabilities and embeddings are in this order."""
        return self._handle.node_ids

    @property
    def features(self) -> np.ndarray:
        """The node features the model sees [N, F]: a read-only view, no copy (of the caller's
        array itself where the graph reads it in place)."""
        return self._handle.features

    def __repr__(self) -> str:
        return (f"NodeGraph({self.num_nodes} nodes, {self.num_edges} attention edges, "
                f"{self.num_features} features, {len(self.class_names)} classes)")


class NodeModel(_Model):
    """A trained node classifier: the network, class names and how its graph was read, as one
    model file. Train with :meth:`train` (the defaults are those of ``edgewise train --task node``)
    or open a file with :meth:`load`."""

    _core = _edgewise.NodeModel

    @classmethod
    def train(
        cls,
        graph: NodeGraph,
        split: str | tuple[Any, Any, Any] | None = None,
        *,
        verbose: bool = True,
        threads: int | None = None,
        **options: Any,
    ) -> "NodeModel":
        """Trains on the graph's labels.

        split: (train, val, test) node index arrays or boolean masks, or a specification as
        ``--split`` reads it: "per-class:K[,VAL,TEST]", "stratified:TRAIN,VAL,TEST" or a folder of
        node-id files; default 60 / 20 / 20 % of each class's labelled nodes. Training stops early on the validation nodes.
        Regularization left out is chosen from the data as ``edgewise train`` chooses it;
        batch_size or fanout trains on sampled mini-batches, which also turn on by themselves for a
        graph whose full-batch training would not fit in a quarter of the memory.
        options: the command line's training options with underscores (None keeps the default),
        as :func:`training_options` lists them:
        """
        _with_threads(threads)
        return cls(_edgewise.NodeModel._train(graph._handle, split, verbose, options))

    def read_graph(
        self,
        edges: str | os.PathLike[str],
        labels: str | os.PathLike[str] | None = None,
        features: str | os.PathLike[str] | None = None,
        *,
        label_column: int | str = 1,
        id_column: int | str = 0,
        header: bool | None = None,
    ) -> NodeGraph:
        """Reads graph files the way the model's training graph was read; label_column, id_column
        and header as in :meth:`NodeGraph.read`."""
        return NodeGraph._reporting_headers(self._handle._read_graph(
            _check_readable(edges, "edges"),
            _check_readable(labels, "labels") if labels is not None else "",
            _column(label_column, "label_column", True), _column(id_column, "id_column", True),
            _check_readable(features, "features") if features is not None else "", header))

    def predict_proba(self, graph: NodeGraph) -> np.ndarray:
        """Class probabilities of every node [N, classes], rows in ``graph.node_ids`` order,
        columns in :attr:`classes` order; calibrated on the validation nodes by temperature scaling
        (:attr:`temperature`) when the model was trained with some."""
        return self._handle._predict(graph._handle)

    def predict_sets(self, graph: NodeGraph, coverage: float = 0.9) -> np.ndarray:
        """Split-conformal prediction sets, [N, classes] of bool: each node's set holds every class
        whose calibrated probability reaches a threshold set on the validation nodes, so that it
        holds the true class with probability at least ``coverage`` for nodes like them, and the
        most probable class. Raises ValueError for a model without calibration, or a coverage that
        needs more validation nodes than it had."""
        return self._handle._predict_sets(graph._handle, float(coverage))

    def predict(self, graph: NodeGraph) -> np.ndarray:
        """The most probable class name of every node, [N] in ``graph.node_ids`` order: a NumPy
        array of str (``.tolist()`` gives a list)."""
        best = self.predict_proba(graph).argmax(axis=1)
        return np.asarray(self.classes)[best]

    def embed(self, graph: NodeGraph) -> np.ndarray:
        """Each node's final hidden representation [N, width], the output layer's input."""
        return self._handle._embed(graph._handle)

    def evaluate(self, graph: NodeGraph, nodes: Any = None, *, coverage: float | None = None) -> dict[str, float]:
        """Metrics by name on the listed labelled nodes (default: every labelled node): "accuracy",
        "macro_f1", "loss", the probabilities' "nll", "ece" (expected calibration error) and
        "brier", all floats, and "count" (the nodes scored, an int). With a coverage, also the
        prediction sets' (:meth:`predict_sets`) "set_coverage" and "mean_set_size" (NaN for a model
        without calibration)."""
        return self._handle._evaluate(graph._handle, nodes, None if coverage is None else float(coverage))

    @property
    def temperature(self) -> float | None:
        """The temperature that calibrates the probabilities, None for a model without calibration."""
        return self._handle._temperature

    @property
    def classes(self) -> list[str]:
        return self._handle._classes

    def __repr__(self) -> str:
        return f"NodeModel(classes={self.classes}, parameters={self.num_parameters})"


class LinkModel(_Model):
    """A trained link predictor: attention layers that embed the nodes, a scorer that turns a pair's
    embeddings into the logit of a link (an MLP on their product, their dot product, or the two
    summed), and how its graph was read, as one model file. Train
    with :meth:`train` (the defaults are those of ``edgewise train --task link``) or open a file
    with :meth:`load`. Nodes are rows of a :class:`NodeGraph`: ``graph.node_ids[row]`` names them."""

    _core = _edgewise.LinkModel

    @classmethod
    def train(
        cls,
        graph: NodeGraph,
        split: str | None = None,
        *,
        split_sizes: str | None = None,
        verbose: bool = True,
        threads: int | None = None,
        **options: Any,
    ) -> "LinkModel":
        """Trains on the graph's links (both directions of an edge are one link; self-loops are
        left out).

        split: "random" (the default) holds out split_sizes' fractions of the links ("0.85,0.05,0.1":
        5 % for validation, 10 % for test) and as many pairs that are no link for each, drawn from the
        seed; or a folder as ``edgewise train --task link --save-split`` writes it. The encoder sees
        the training links alone, structural features included; training stops early on the
        validation figure metric= names (by default Hits@50 with identity features and 50 validation
        non-links, else ROC-AUC), and the test links' figures go to the training summary
        (:attr:`test_metrics`).
        options: the command line's training options with underscores (None keeps the default),
        as :func:`training_options` lists them:
        """
        _with_threads(threads)
        return cls(_edgewise.LinkModel._train(graph._handle, split, split_sizes, verbose, options))

    def read_graph(
        self,
        edges: str | os.PathLike[str],
        features: str | os.PathLike[str] | None = None,
        *,
        header: bool | None = None,
    ) -> NodeGraph:
        """Reads graph files the way the model's training graph was read; header as in
        :meth:`NodeGraph.read`."""
        return NodeGraph._reporting_headers(self._handle._read_graph(
            _check_readable(edges, "edges"), _check_readable(features, "features") if features is not None else "",
            header))

    def predict_pairs(self, graph: NodeGraph, pairs: Any) -> np.ndarray:
        """The logit of a link for each row of pairs ([M, 2] node rows of graph), from the
        embeddings of the graph as given; ``1 / (1 + exp(-score))`` is its probability."""
        return self._handle._score_pairs(graph._handle, np.asarray(pairs))

    def recommend(self, graph: NodeGraph, nodes: Any, k: int = 10) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each listed node (rows of graph), the k nodes it has no link with in graph whose link
        with it scores highest, best first: (partner rows, their scores), fewer when fewer nodes are
        left."""
        partners, scores = self._handle._recommend(graph._handle, np.atleast_1d(np.asarray(nodes)), int(k))
        return list(zip(partners, scores))

    def embed(self, graph: NodeGraph) -> np.ndarray:
        """Each node's embedding [N, embedding_dim], from which the scorer scores pairs."""
        return self._handle._embed(graph._handle)

    def evaluate(self, graph: NodeGraph, links: Any, non_links: Any) -> dict[str, float]:
        """How well the embeddings of graph tell links from non-links ([M, 2] node rows each):
        "roc_auc", "average_precision", "hits@50" (the fraction of links scoring above the 50th
        highest non-link; NaN with fewer than 50 non-links) and "mrr" (mean reciprocal rank of each
        link among the non-links)."""
        return self._handle._evaluate(graph._handle, np.asarray(links), np.asarray(non_links))

    @property
    def test_metrics(self) -> dict[str, float]:
        """The test links' figures of the training, by name ("roc_auc", ...); empty without."""
        metrics = self.describe().get("training", {}).get("metrics", [])
        return {m["name"][len("test "):]: m["value"] for m in metrics if m["name"].startswith("test ")}

    @property
    def embedding_dim(self) -> int:
        return self._handle._embedding_dim

    def __repr__(self) -> str:
        return f"LinkModel(embedding_dim={self.embedding_dim}, parameters={self.num_parameters})"


def _molecule_run(tuning: tuple[str, str, int] | None, smiles: Any, targets: Any, data: Any, smiles_column: Any,
                  target_columns: Any, task_names: Any, header: bool, comment: str | None, split: Any,
                  split_sizes: Any, skip_invalid: bool, max_atoms: int, verbose: bool, threads: int | None,
                  options: dict[str, Any]) -> Any:
    """MoleculeModel.train's model handle, or with ``tuning`` (grid JSON, preset, folds) tune's JSON."""
    _with_threads(threads)
    if split is None:
        split = _training_default("molecule", "split")
    if split_sizes is None:
        split_sizes = tuple(float(f) for f in _training_default("molecule", "split_sizes").split(","))
    if not (0.0 <= split_sizes[0] and 0.0 <= split_sizes[1] and abs(sum(split_sizes) - 1.0) < 1e-6):
        raise ValueError(f"split_sizes: expected three fractions adding up to 1, got {split_sizes}")
    fractions = (float(split_sizes[0]), float(split_sizes[1]))
    if data is not None:
        if smiles is not None or targets is not None:
            raise ValueError("give either smiles and targets, or data, not both")
        return _edgewise.MoleculeModel._train_file(
            _check_readable(data, "data"),
            None if smiles_column is None else _column(smiles_column, "smiles_column", header),
            [_column(c, "target_columns", header) for c in target_columns or []],
            [str(n) for n in task_names or []], header, comment or "", max_atoms, skip_invalid, split,
            fractions, verbose, options, tuning
        )
    if smiles is None or targets is None:
        raise ValueError("give smiles and targets, or data")
    values, names = _targets(targets)
    names = [str(n) for n in task_names] if task_names is not None else names
    return _edgewise.MoleculeModel._train_smiles(
        _smiles_list(smiles), values, names, max_atoms, skip_invalid, split, fractions, verbose, options, tuning
    )


def tune(
    smiles: Sequence[str] | None = None,
    targets: Any = None,
    *,
    graph: NodeGraph | None = None,
    task: str = "node",
    grid: list[dict[str, Any]] | dict[str, list[Any]] | None = None,
    preset: str | None = None,
    folds: int = 5,
    verbose: bool = False,
    **arguments: Any,
) -> dict[str, Any]:
    """Chooses training options by K-fold cross-validation inside the split's training and validation
    rows (its test rows are never read), as ``edgewise tune`` does: of a molecule model, or with
    graph= of a node classifier (``--task node``: the accuracy on the held-out labelled nodes), or
    with graph= and task="link" of a link predictor (the figure metric= names of the held-out links
    against fresh non-links; by default as training stops early: Hits@50 with identity features,
    else ROC-AUC).

    grid: a list of candidates (dicts of training options, e.g. ``{"hidden": 64}``), or a dict of
    option value lists whose every combination is a candidate; or preset="small" (one change at a
    time from the defaults). folds: from 4, the fastest candidate whose paired t value against the
    best mean is under 2 in size is chosen; with 2 or 3, the best mean. The other arguments (the
    data, the split and the options every candidate shares) are those of
    :meth:`MoleculeModel.train` or, with graph=, :meth:`NodeModel.train` or :meth:`LinkModel.train`;
    verbose prints each fold's metric.

    Returns a dict: "options" (the chosen candidate's, for ``MoleculeModel.train(**options)``),
    "chosen" and "best" (indices of candidates), "metric", and "candidates" (each its "options",
    the metric of every held-out fold "folds", "mean", "sd" and "seconds"), with "data", "split",
    "folds" and "seed" as ``edgewise tune`` records them.
    """
    if (grid is None) == (preset is None):
        raise ValueError("give either grid or preset")
    tuning = ("" if grid is None else json.dumps(grid), preset or "", int(folds))
    if graph is not None:
        if smiles is not None or targets is not None:
            raise ValueError("give either graph, or smiles and targets, not both")
        split = arguments.pop("split", None)
        _with_threads(arguments.pop("threads", None))
        if task == "link":
            sizes = arguments.pop("split_sizes", None)
            return dict(json.loads(_edgewise.LinkModel._tune(graph._handle, split, sizes, verbose, arguments, tuning)))
        if task != "node":
            raise ValueError(f'task: expected "node" or "link" with graph=, got {task!r}')
        return dict(json.loads(_edgewise.NodeModel._tune(graph._handle, split, verbose, arguments, tuning)))
    bound = inspect.signature(MoleculeModel.train).bind(smiles, targets, verbose=verbose, **arguments)
    bound.apply_defaults()
    return dict(json.loads(_molecule_run(tuning, **bound.arguments)))


def _options_doc(task: str) -> str:
    """The keyword options of a task's train, one line each, from its parameter table."""
    return "".join(f"\n        - {o['name']} ({o['type']}; default {o['default_text']}): {o['help']}"
                   for o in training_options(task) if o["keyword"]) + "\n"


MoleculeModel.train.__func__.__doc__ = (MoleculeModel.train.__doc__ or "") + _options_doc("molecule")
NodeModel.train.__func__.__doc__ = (NodeModel.train.__doc__ or "") + _options_doc("node")
LinkModel.train.__func__.__doc__ = (LinkModel.train.__doc__ or "") + _options_doc("link")
tune.__doc__ = ((tune.__doc__ or "") + "\n    A molecule model's options (training_options(\"node\") lists a node classifier's):"
               + _options_doc("molecule"))

"""Cora node classification from NumPy arrays, on the public split (140 / 500 / 1000 nodes).

Parses Cora's text files with NumPy into what PyTorch Geometric users hold: edge_index [2, E], a
label per node, a SciPy CSR feature matrix and boolean masks of the public split. Features are
divided by their row sums, as `edgewise train --feature-format sparse` does by default (and the GAT
recipe's NormalizeFeatures); a graph built from arrays takes its features as given. Then trains
the GAT recipe for 200 epochs, prints the test accuracy, and the shapes of predict_proba and embed.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/cora_numpy.py

The data are read from $EDGEWISE_DATA/cora, else ../shared/datasets/cora beside the checkout;
without them the example says so and exits with status 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import edgewise


def data_folder() -> Path:
    """$EDGEWISE_DATA, else ../shared/datasets relative to the repository root."""
    if os.environ.get("EDGEWISE_DATA"):
        return Path(os.environ["EDGEWISE_DATA"])
    return Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


def read_features(path: Path, num_nodes: int) -> sp.csr_matrix:
    """'node<TAB>i j k ...' lines, the indices of the features equal to 1, as a CSR matrix."""
    rows: list[int] = []
    columns: list[int] = []
    with open(path) as f:
        for line in f:
            node, _, indices = line.partition("\t")
            listed = np.array(indices.split(), dtype=np.int64)
            rows.extend([int(node)] * len(listed))
            columns.extend(listed.tolist())
    values = np.ones(len(rows), dtype=np.float32)
    return sp.csr_matrix((values, (rows, columns)), shape=(num_nodes, max(columns) + 1))


def mask(path: Path, num_nodes: int) -> np.ndarray:
    chosen = np.zeros(num_nodes, dtype=bool)
    chosen[np.loadtxt(path, dtype=np.int64)] = True
    return chosen


def main() -> int:
    folder = data_folder() / "cora"
    if not (folder / "edges.txt").is_file():
        print(f"skipped: {folder}/edges.txt not found (set EDGEWISE_DATA to the folder holding cora/)")
        return 0

    edge_index = np.loadtxt(folder / "edges.txt", dtype=np.int64).T  # [2, E], each undirected edge once
    node_label = np.loadtxt(folder / "labels.txt", dtype=np.int64)   # 'node label' rows
    num_nodes = int(node_label[:, 0].max()) + 1
    labels = np.full(num_nodes, -1, dtype=np.int64)
    labels[node_label[:, 0]] = node_label[:, 1]
    features = read_features(folder / "features.txt", num_nodes)
    features = sp.diags(1.0 / np.maximum(features.sum(axis=1).A1, 1.0)) @ features  # rows sum to 1
    train, val, test = (mask(folder / f"{part}.txt", num_nodes) for part in ("train", "val", "test"))
    print(f"edge_index {edge_index.shape}, features {features.shape} with {features.nnz} non-zeros, "
          f"split {train.sum()} / {val.sum()} / {test.sum()}")

    graph = edgewise.NodeGraph.from_edge_index(edge_index, num_nodes, features=features, labels=labels)
    print(graph)
    model = edgewise.NodeModel.train(graph, (train, val, test), epochs=200, seed=0, verbose=False)
    print(model)

    result = model.evaluate(graph, np.flatnonzero(test))
    print(f"test: {result['count']} nodes, accuracy {result['accuracy']:.4f}, macro-F1 {result['macro_f1']:.4f}")
    probabilities = model.predict_proba(graph)
    embeddings = model.embed(graph)
    print(f"predict_proba {probabilities.shape}, embed {embeddings.shape}; node 0 is predicted as class "
          f"{model.predict(graph)[0]} (label {labels[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

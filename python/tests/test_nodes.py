"""NodeGraph and NodeModel from Python: graphs from arrays, SciPy and NetworkX, the same model as
the command-line tool on the same files, and the errors that guard them."""

from __future__ import annotations

import gc
import pathlib
import sys

import numpy as np
import pytest

import edgewise
from conftest import run_cli

FAST = dict(epochs=30, seed=3, heads=2, head_dim=4)


def two_communities() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two 4-cliques joined by one edge; each community's nodes share a feature and a label."""
    pairs = [(c * 4 + i, c * 4 + j) for c in range(2) for i in range(4) for j in range(i + 1, 4)] + [(0, 4)]
    edge_index = np.array(pairs, dtype=np.int64).T
    features = np.array([[c, 2 + i] for c in range(2) for i in range(4)], dtype=np.float32)
    labels = np.repeat([0, 1], 4)
    return edge_index, features, labels


def test_graph_from_edge_index_counts_both_directions_and_self_loops() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    assert graph.num_nodes == 8
    assert graph.num_edges == 2 * edge_index.shape[1] + 8
    assert graph.class_names == ["0", "1"]
    assert np.array_equal(graph.labels, labels)
    assert np.array_equal(graph.features, features)


def test_trains_predicts_embeds_and_evaluates() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    split = (np.array([0, 1, 2, 4, 5, 6]), np.array([3, 7]), np.array([], dtype=int))
    model = edgewise.NodeModel.train(graph, split, verbose=False, **FAST)
    probabilities = model.predict_proba(graph)
    assert probabilities.shape == (8, 2)
    assert probabilities.sum(axis=1) == pytest.approx(np.ones(8), abs=1e-5)
    assert model.embed(graph).shape == (8, 8)
    assert model.predict(graph) == [model.classes[i] for i in probabilities.argmax(axis=1)]
    assert model.evaluate(graph)["count"] == 8
    mask = np.arange(8) >= 4
    assert model.evaluate(graph, mask) == model.evaluate(graph, np.arange(4, 8))
    with pytest.raises(ValueError, match="nodes: index 8"):
        model.evaluate(graph, [8])


def test_sampled_mini_batches_train_and_refuse_a_fanout_per_layer_mismatch() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    split = (np.array([0, 1, 2, 4, 5, 6]), np.array([3, 7]), np.array([], dtype=int))
    sampled = edgewise.NodeModel.train(graph, split, verbose=False, batch_size=2, fanout=[3, 2], **FAST)
    assert sampled.predict_proba(graph).shape == (8, 2)
    again = edgewise.NodeModel.train(graph, split, verbose=False, batch_size=2, fanout=[3, 2], **FAST)
    assert np.array_equal(again.predict_proba(graph), sampled.predict_proba(graph))
    with pytest.raises(ValueError, match="3 fan-outs for a network of 2 layers"):
        edgewise.NodeModel.train(graph, split, verbose=False, fanout=[3, 2, 1], **FAST)


def test_sparse_features_masks_and_index_arrays_give_the_same_model() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    edge_index, features, labels = two_communities()
    dense_graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    sparse_graph = edgewise.NodeGraph.from_edge_index(edge_index, features=sparse.csr_matrix(features), labels=labels)
    indices = (np.array([0, 1, 4, 5]), np.array([2, 6]), np.array([3, 7]))
    masks = tuple(np.isin(np.arange(8), part) for part in indices)
    by_index = edgewise.NodeModel.train(dense_graph, indices, verbose=False, **FAST)
    by_mask = edgewise.NodeModel.train(sparse_graph, masks, verbose=False, **FAST)
    assert np.array_equal(by_index.predict_proba(dense_graph), by_mask.predict_proba(sparse_graph))


def test_features_of_any_numeric_dtype_and_layout_read_alike() -> None:
    edge_index, features, labels = two_communities()
    wide = np.hstack([features, features + 0.1]).astype(np.float64)
    expected = wide.astype(np.float32)
    unaligned = np.frombuffer(b"\0" + wide.tobytes(), dtype=np.float64, offset=1).reshape(wide.shape)
    for given in (wide, expected, np.asfortranarray(wide), np.hstack([wide, wide])[:, ::2], wide.astype(np.int64),
                  unaligned):
        graph = edgewise.NodeGraph.from_edge_index(edge_index, features=given, labels=labels)
        assert np.array_equal(graph.features, given.astype(np.float32))
    with pytest.raises(ValueError, match=r"entry \[3, 1\] is infinite"):
        edgewise.NodeGraph.from_edge_index(edge_index, features=np.where(wide == wide[3, 1], np.inf, wide))


def test_float32_features_are_read_in_place_and_kept_alive_by_the_graph() -> None:
    edge_index, features, labels = two_communities()
    references = sys.getrefcount(features)
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    assert np.shares_memory(graph.features, features) and not graph.features.flags.writeable
    assert sys.getrefcount(features) == references + 1  # the graph's one reference
    converted = edgewise.NodeGraph.from_edge_index(edge_index, features=features.astype(np.float64), labels=labels)
    assert not np.shares_memory(converted.features, features)
    unaligned = np.frombuffer(b"\0" + features.tobytes(), dtype=np.float32, offset=1).reshape(features.shape)
    assert not unaligned.flags.aligned  # floats at an odd address are copied, not read in place
    copied = edgewise.NodeGraph.from_edge_index(edge_index, features=unaligned, labels=labels)
    assert np.array_equal(copied.features, features) and not np.shares_memory(copied.features, unaligned)
    split = (np.arange(6), np.array([6]), np.array([7]))
    in_place = edgewise.NodeModel.train(graph, split, verbose=False, **FAST)
    owned = edgewise.NodeModel.train(converted, split, verbose=False, **FAST)
    assert np.array_equal(in_place.predict_proba(graph), owned.predict_proba(converted))

    view = graph.features
    del graph, in_place
    assert np.array_equal(view, features)  # the view keeps the graph, and so the rows, alive
    del view
    gc.collect()
    assert sys.getrefcount(features) == references


def test_predictions_hand_their_memory_to_numpy_without_a_copy() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    model = edgewise.NodeModel.train(graph, (np.arange(6), np.array([6]), np.array([7])), verbose=False, **FAST)
    probabilities, embeddings = model.predict_proba(graph), model.embed(graph)
    kept = probabilities.copy(), embeddings.copy()
    for result in (probabilities, embeddings):
        assert not result.flags.owndata and result.base is not None  # the model's matrix, kept alive by the array
        assert result.flags.c_contiguous and result.flags.writeable
    del model, graph
    assert np.array_equal(probabilities, kept[0]) and np.array_equal(embeddings, kept[1])


def test_labels_may_be_names_or_a_dict_with_unlabelled_nodes() -> None:
    edge_index, features, _ = two_communities()
    names = ["red"] * 4 + ["blue"] * 3 + [None]
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=names)
    assert graph.class_names == ["blue", "red"]
    assert graph.labels.tolist() == [1, 1, 1, 1, 0, 0, 0, -1]
    as_dict = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels={0: "red", 5: "blue"})
    assert as_dict.labels.tolist() == [1, -1, -1, -1, -1, 0, -1, -1]


def test_networkx_graphs_with_structural_features() -> None:
    networkx = pytest.importorskip("networkx")
    karate = networkx.karate_club_graph()
    graph = edgewise.NodeGraph.from_networkx(karate, labels="club")
    assert graph.num_nodes == 34 and sorted(graph.class_names) == ["Mr. Hi", "Officer"]
    assert graph.num_features == 33 + 16  # degree one-hot and random-walk return probabilities
    model = edgewise.NodeModel.train(graph, verbose=False, epochs=50)
    assert model.evaluate(graph)["accuracy"] > 0.5


def test_the_same_files_train_the_same_model_as_the_command_line(cli: str, tmp_path: pathlib.Path) -> None:
    edge_index, features, labels = two_communities()
    np.savetxt(tmp_path / "edges.txt", edge_index.T, fmt="%d")
    np.savetxt(tmp_path / "labels.txt", np.column_stack([np.arange(8), labels]), fmt="%d")
    np.savetxt(tmp_path / "features.txt", np.column_stack([np.arange(8), features]), fmt="%g")
    files = [str(tmp_path / name) for name in ("edges.txt", "labels.txt", "features.txt")]
    run_cli(cli, "train", "--task", "node", "--edges", files[0], "--labels", files[1], "--features", files[2],
            "--feature-format", "dense", "--epochs", "30", "--seed", "3", "--heads", "2", "--head-dim", "4",
            "--threads", "1", "--quiet", "--out", str(tmp_path / "cli.ew"))
    graph = edgewise.NodeGraph.read(*files, feature_format="dense")
    trained = edgewise.NodeModel.train(graph, verbose=False, threads=1, **FAST)
    loaded = edgewise.NodeModel.load(tmp_path / "cli.ew")
    assert np.array_equal(trained.embed(graph), loaded.embed(loaded.read_graph(*files)))

    output = run_cli(cli, "predict", "--model", str(tmp_path / "cli.ew"), "--edges", files[0], "--features", files[2],
                     "--threads", "1")
    rows = [line.split("\t") for line in output.strip().splitlines()[1:]]
    probabilities = loaded.predict_proba(loaded.read_graph(files[0], features=files[2]))
    assert [row[2:] for row in rows] == [[f"{p:.6g}" for p in probabilities[int(row[0])]] for row in rows]


def test_bad_graphs_raise_python_errors() -> None:
    edge_index, features, labels = two_communities()
    with pytest.raises(ValueError, match=r"shape \[2, E\]"):
        edgewise.NodeGraph.from_edge_index(edge_index.T, features=features)
    with pytest.raises(TypeError, match="integers"):
        edgewise.NodeGraph.from_edge_index(edge_index.astype(float), features=features)
    with pytest.raises(ValueError, match="NaN"):
        edgewise.NodeGraph.from_edge_index(edge_index, features=np.where(features > 3, np.nan, features))
    with pytest.raises(ValueError, match="rows"):
        edgewise.NodeGraph.from_edge_index(edge_index, 9, features=features)
    with pytest.raises(ValueError, match="one entry per node"):
        edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels[:-1])
    with pytest.raises(ValueError):
        edgewise.NodeGraph.from_edge_index(np.array([[0, 1], [1, 20]]), 8, features=features)
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    with pytest.raises(ValueError, match="outside"):
        edgewise.NodeModel.train(graph, (np.array([0, 99]), np.array([1]), np.array([2])), verbose=False)
    with pytest.raises(TypeError, match="unknown option 'epoch'"):
        edgewise.NodeModel.train(graph, epoch=3)
    with pytest.raises(FileNotFoundError):
        edgewise.NodeGraph.read("absent-edges.txt")


def test_cora_from_arrays_reaches_the_command_lines_accuracy_class(data_folder: pathlib.Path) -> None:
    cora = data_folder / "cora"
    if not cora.is_dir():
        pytest.skip(f"Cora is absent from {data_folder}")
    graph = edgewise.NodeGraph.read(cora / "edges.txt", cora / "labels.txt", cora / "features.txt")
    names = {name: i for i, name in enumerate(graph.node_names)}
    split = tuple(np.array([names[line.strip()] for line in (cora / f"{part}.txt").read_text().split()])
                  for part in ("train", "val", "test"))
    model = edgewise.NodeModel.train(graph, split, verbose=False, epochs=200)
    assert model.evaluate(graph, split[2])["accuracy"] > 0.75

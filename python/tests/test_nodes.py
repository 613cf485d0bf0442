"""NodeGraph and NodeModel from Python: graphs from arrays, SciPy and NetworkX, the same model as
the command-line tool on the same files, and the errors that guard them."""

from __future__ import annotations

import gc
import pathlib
import subprocess
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
    predicted = model.predict(graph)
    assert isinstance(predicted, np.ndarray) and predicted.shape == (8,)
    assert predicted.tolist() == [model.classes[i] for i in probabilities.argmax(axis=1)]
    metrics = model.evaluate(graph)
    assert metrics["count"] == 8
    assert all(type(value) in (int, float) for value in metrics.values())
    mask = np.arange(8) >= 4
    assert model.evaluate(graph, mask) == model.evaluate(graph, np.arange(4, 8))
    with pytest.raises(ValueError, match="nodes: index 8"):
        model.evaluate(graph, [8])
    assert model.temperature is not None  # calibrated on the two validation nodes
    with pytest.raises(ValueError, match="needs at least 9 calibration rows"):
        model.predict_sets(graph, coverage=0.9)
    assert model.predict_sets(graph, coverage=0.5).any(axis=1).all()


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


# Ids of up to 64 bits: float64 would round 2**63 + 1 to 2**63 and 2**64 - 1 to 2**64.
BIG_IDS = [2**64 - 1, 2**63, 2**63 + 1, 18_000_000_000_000_000_001, 7, 2**64 - 2, 9_223_372_036_854_775_809 + 100, 0]


def test_raw_64_bit_ids_name_the_rows_of_predictions_exactly() -> None:
    edge_index, features, labels = two_communities()
    ids = np.array(BIG_IDS, dtype=np.uint64)
    by_id = edgewise.NodeGraph.from_edges(ids[edge_index[0]], ids[edge_index[1]], nodes=ids, features=features,
                                          labels=labels)
    assert by_id.node_ids.dtype == np.uint64 and by_id.node_ids.tolist() == BIG_IDS
    assert by_id.node_names == [str(i) for i in BIG_IDS]
    by_row = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    split = (np.array([0, 1, 4, 5]), np.array([2, 6]), np.array([3, 7]))
    model = edgewise.NodeModel.train(by_id, split, verbose=False, **FAST)
    same = edgewise.NodeModel.train(by_row, split, verbose=False, **FAST)
    assert np.array_equal(model.predict_proba(by_id), same.predict_proba(by_row))  # rows follow nodes=
    predicted = dict(zip(by_id.node_ids.tolist(), model.predict(by_id)))
    assert predicted[2**64 - 1] == model.predict(by_id)[0] and set(predicted) == set(BIG_IDS)


def test_python_ints_beyond_int64_stay_exact_and_label_dicts_take_ids() -> None:
    edge_index, _, labels = two_communities()
    sources, targets = ([BIG_IDS[i] for i in row] for row in edge_index)
    graph = edgewise.NodeGraph.from_edges(sources, targets, labels={BIG_IDS[0]: "a", np.uint64(BIG_IDS[4]): "b"})
    assert graph.num_nodes == 8  # 2**63 and 2**63 + 1 are two nodes
    first_seen = list(dict.fromkeys(i for pair in zip(sources, targets) for i in pair))
    assert graph.node_ids.tolist() == first_seen
    row = {node: i for i, node in enumerate(first_seen)}
    assert graph.labels[row[BIG_IDS[0]]] == graph.class_names.index("a")
    assert graph.labels[row[BIG_IDS[4]]] == graph.class_names.index("b")
    assert (graph.labels >= 0).sum() == 2
    with pytest.raises(ValueError, match="outside 0 .. 2\\^64 - 1"):
        edgewise.NodeGraph.from_edges([2**64, 1], [1, 2])
    with pytest.raises(ValueError, match="node id -1 is outside"):
        edgewise.NodeGraph.from_edges([2**63, -1], [1, 2])
    with pytest.raises(ValueError, match="pass nodes="):
        edgewise.NodeGraph.from_edges(sources, targets, features=np.ones((8, 2)))
    with pytest.raises(ValueError, match="not in the graph"):
        edgewise.NodeGraph.from_edges(sources, targets, labels={3: "a"})
    with pytest.raises(TypeError, match="integers or strings as node ids, got float"):
        edgewise.NodeGraph.from_edges([2.0**64, 1.0], [1.0, 2.0])


def test_string_ids_are_kept_and_read_graph_reads_string_ids(tmp_path: pathlib.Path) -> None:
    edge_index, features, labels = two_communities()
    names = np.array([f"page_{i}" for i in range(8)])
    graph = edgewise.NodeGraph.from_edges(names[edge_index[0]], names[edge_index[1]], nodes=list(names),
                                          features=features, labels=labels)
    assert graph.node_ids.tolist() == list(names) and graph.node_names == list(names)
    model = edgewise.NodeModel.train(graph, (np.arange(6), np.array([6]), np.array([7])), verbose=False, **FAST)
    (tmp_path / "edges.tsv").write_text("".join(f"{names[s]}\t{names[t]}\n" for s, t in edge_index.T))
    (tmp_path / "features.tsv").write_text(
        "".join(f"{n}\t" + "\t".join(f"{v:g}" for v in row) + "\n" for n, row in zip(names, features)))
    read = model.read_graph(tmp_path / "edges.tsv", features=tmp_path / "features.tsv")
    assert read.node_names == list(names)
    assert model.predict(read).tolist() == model.predict(graph).tolist()
    with pytest.raises(ValueError, match="not in nodes"):
        edgewise.NodeGraph.from_edges(["a"], ["b"], nodes=["a"])
    with pytest.raises(TypeError, match="integers or strings, not both"):
        edgewise.NodeGraph.from_edges(["a", "b"], np.array([1, 2**63], dtype=np.uint64))


def test_a_header_above_string_ids_is_detected_with_a_warning_and_header_false_reads_it(
        cli: str, tmp_path: pathlib.Path) -> None:
    edge_index, _, labels = two_communities()
    names = [f"page_{i}" for i in range(8)]
    (tmp_path / "edges.csv").write_text(
        "node_1,node_2\n" + "".join(f"{names[s]},{names[t]}\n" for s, t in edge_index.T))
    (tmp_path / "labels.csv").write_text("id,target\n" + "".join(f"{n},{c}\n" for n, c in zip(names, labels)))
    files = (tmp_path / "edges.csv", tmp_path / "labels.csv")
    with pytest.warns(UserWarning, match="'node_1,node_2' read as a header"):
        graph = edgewise.NodeGraph.read(*files, node_ids="string")
    assert graph.node_names == names and graph.class_names == ["0", "1"]
    as_data = edgewise.NodeGraph.read(*files, node_ids="string", header=False)
    assert as_data.num_nodes == 11 and "target" in as_data.class_names  # node_1, node_2 and id
    result = subprocess.run([cli, "train", "--task", "node", "--edges", str(files[0]), "--labels", str(files[1]),
                             "--node-ids", "string", "--epochs", "2", "--threads", "1", "--quiet", "--out",
                             str(tmp_path / "m.ew")], capture_output=True, text=True, check=True)
    assert "'id,target' read as a header" in result.stderr and "--header no" in result.stderr


def test_a_python_graph_on_64_bit_ids_predicts_as_the_command_line_on_its_file(
        cli: str, tmp_path: pathlib.Path) -> None:
    edge_index, _, labels = two_communities()
    ids = np.array(BIG_IDS, dtype=np.uint64)
    graph = edgewise.NodeGraph.from_edges(ids[edge_index[0]], ids[edge_index[1]],
                                          labels=dict(zip(BIG_IDS, labels.tolist())))
    edges = tmp_path / "edges.txt"
    edges.write_text("".join(f"{ids[s]} {ids[t]}\n" for s, t in edge_index.T))
    assert edgewise.NodeGraph.read(edges).node_names == graph.node_names  # numbered alike
    model = edgewise.NodeModel.train(graph, verbose=False, threads=1, **FAST)
    model.save(tmp_path / "ids.ew")
    output = run_cli(cli, "predict", "--model", str(tmp_path / "ids.ew"), "--edges", str(edges), "--threads", "1")
    rows = [line.split("\t") for line in output.strip().splitlines()[1:]]
    assert {int(row[0]): row[1] for row in rows} == dict(zip(graph.node_ids.tolist(), model.predict(graph)))


PAGE_TYPES = ["tvshow", "government", "company", "politician"]


def facebook_files(folder: pathlib.Path, quoted: bool) -> tuple[pathlib.Path, pathlib.Path]:
    """Twenty pages of four types in the layout of MUSAE's facebook_target.csv (id, facebook_id,
    page_name, page_type), each type a clique, the cliques joined in a ring; quoted: some page
    names hold commas, quoted as the real file quotes them."""
    def name(page: int) -> str:
        return f'"Page {page}, ""Inc."""' if quoted and page % 3 == 0 else f"Page {page}"
    rows = [f"{page},{145647315578475 + 7919 * page},{name(page)},{PAGE_TYPES[page // 5]}" for page in range(20)]
    targets = folder / "facebook_target.csv"
    targets.write_text("id,facebook_id,page_name,page_type\n" + "\n".join(rows) + "\n")
    pairs = [(5 * c + i, 5 * c + j) for c in range(4) for i in range(5) for j in range(i + 1, 5)]
    pairs += [(5 * c, (5 * c + 5) % 20) for c in range(4)]
    edges = folder / "facebook_edges.csv"
    edges.write_text("id_1,id_2\n" + "".join(f"{u},{v}\n" for u, v in pairs))
    return edges, targets


def test_label_and_id_columns_choose_the_label_files_columns(cli: str, tmp_path: pathlib.Path) -> None:
    edges, targets = facebook_files(tmp_path, quoted=False)
    assert len(edgewise.NodeGraph.read(edges, targets).class_names) == 20  # facebook_id, one class a page
    by_name = edgewise.NodeGraph.read(edges, targets, label_column="page_type", id_column="id")
    by_index = edgewise.NodeGraph.read(edges, targets, label_column=3, id_column=0)
    assert by_name.class_names == PAGE_TYPES and by_index.class_names == PAGE_TYPES
    assert by_name.labels.tolist() == by_index.labels.tolist() == np.repeat(np.arange(4), 5).tolist()

    model = edgewise.NodeModel.train(by_name, verbose=False, threads=1, **FAST)
    again = model.read_graph(edges, targets, label_column="page_type")
    assert again.labels.tolist() == by_name.labels.tolist()
    run_cli(cli, "train", "--task", "node", "--edges", str(edges), "--labels", str(targets), "--label-column",
            "page_type", "--id-column", "id", "--epochs", "30", "--seed", "3", "--heads", "2", "--head-dim", "4",
            "--threads", "1", "--quiet", "--out", str(tmp_path / "cli.ew"))
    assert edgewise.NodeModel.load(tmp_path / "cli.ew").classes == model.classes
    with pytest.raises(ValueError, match="page_kind"):
        edgewise.NodeGraph.read(edges, targets, label_column="page_kind")
    with pytest.raises(TypeError, match="column index or a header name"):
        edgewise.NodeGraph.read(edges, targets, label_column=3.0)
    with pytest.raises(ValueError, match="count from 0"):
        edgewise.NodeGraph.read(edges, targets, label_column=-1)


def test_page_names_quoted_around_commas_leave_the_label_column_in_place(tmp_path: pathlib.Path) -> None:
    edges, targets = facebook_files(tmp_path, quoted=True)
    by_name = edgewise.NodeGraph.read(edges, targets, label_column="page_type")
    by_index = edgewise.NodeGraph.read(edges, targets, label_column=3)
    assert by_name.class_names == PAGE_TYPES and by_index.class_names == PAGE_TYPES
    assert by_name.labels.tolist() == np.repeat(np.arange(4), 5).tolist()


def test_cora_from_arrays_reaches_the_command_lines_accuracy_class(data_folder: pathlib.Path) -> None:
    cora = data_folder / "cora"
    if not cora.is_dir():
        pytest.skip(f"Cora is absent from {data_folder}")
    graph = edgewise.NodeGraph.read(cora / "edges.txt", cora / "labels.txt", cora / "features.txt")
    names = {name: i for i, name in enumerate(graph.node_names)}
    split = tuple(np.array([names[line.strip()] for line in (cora / f"{part}.txt").read_text().split()])
                  for part in ("train", "val", "test"))
    model = edgewise.NodeModel.train(graph, split, verbose=False, epochs=200)
    metrics = model.evaluate(graph, split[2], coverage=0.9)
    assert metrics["accuracy"] > 0.75
    # Calibrated on the 500 validation nodes: probabilities that fit the test labels, and 90 % sets
    # that hold about 90 % of them with fewer classes than all seven.
    assert model.temperature is not None
    assert metrics["ece"] < 0.08
    assert 0.85 <= metrics["set_coverage"] <= 0.95
    assert 1 <= metrics["mean_set_size"] < 3
    sets = model.predict_sets(graph, coverage=0.9)
    assert sets.shape == (graph.num_nodes, 7) and sets.dtype == bool
    assert sets[np.arange(graph.num_nodes), model.predict_proba(graph).argmax(axis=1)].all()
    labels = graph.labels[split[2]]
    assert sets[split[2], labels].mean() == pytest.approx(metrics["set_coverage"])


def test_a_split_may_be_given_as_the_command_line_writes_it() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    model = edgewise.NodeModel.train(graph, "per-class:2,1,1", verbose=False, **FAST)
    assert model.describe()["training"]["split"].startswith("per-class:2,1,1: 4 / 1 / 1")
    with pytest.raises(ValueError, match="split: 'halves' is not per-class:K, stratified:TRAIN,VAL,TEST or a folder"):
        edgewise.NodeModel.train(graph, "halves", verbose=False, **FAST)


def test_seeds_take_every_unsigned_64_bit_value_and_other_options_fit_an_int64() -> None:
    edge_index, features, labels = two_communities()
    graph = edgewise.NodeGraph.from_edge_index(edge_index, features=features, labels=labels)
    split = (np.array([0, 1, 2, 4, 5, 6]), np.array([3, 7]), np.array([], dtype=int))
    options = dict(FAST, seed=2**64 - 1)
    model = edgewise.NodeModel.train(graph, split, verbose=False, **options)
    again = edgewise.NodeModel.train(graph, split, verbose=False, **options)
    assert np.array_equal(model.predict_proba(graph), again.predict_proba(graph))
    with pytest.raises(ValueError, match="epochs: value 9223372036854775808 is above the maximum"):
        edgewise.NodeModel.train(graph, split, verbose=False, **dict(FAST, epochs=2**63))
    with pytest.raises(TypeError, match="seed"):
        edgewise.NodeModel.train(graph, split, verbose=False, **dict(FAST, seed=2**64))

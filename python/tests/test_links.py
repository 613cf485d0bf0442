"""LinkModel from Python: training on a NetworkX graph's links, scoring pairs, suggestions, the same
model file as the command-line tool, and the errors that guard them."""

from __future__ import annotations

import pathlib

import networkx as nx
import numpy as np
import pytest

import edgewise
from conftest import run_cli

FAST = dict(epochs=40, seed=1, heads=2, head_dim=8, embedding_dim=16)


def planted_partition() -> nx.Graph:
    """Four communities of 25 people, dense inside and sparse across."""
    return nx.planted_partition_graph(4, 25, 0.3, 0.01, seed=4)


def community_features(graph: nx.Graph) -> np.ndarray:
    return np.eye(4, dtype=np.float32)[[node // 25 for node in graph.nodes]]


def test_trains_on_a_networkx_graph_and_scores_held_out_links() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network, features=community_features(network))
    model = edgewise.LinkModel.train(graph, verbose=False, **FAST)
    assert model.embedding_dim == 16
    test = model.test_metrics
    assert set(test) == {"roc_auc", "average_precision", "hits@50", "mrr"}
    assert test["roc_auc"] > 0.8
    inside, across = model.predict_pairs(graph, [[0, 1], [0, 99]])
    assert inside > across  # the same community against another
    assert model.embed(graph).shape == (100, 16)


def test_the_dot_scorer_scores_the_embeddings_dot_product() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network, features=community_features(network))
    model = edgewise.LinkModel.train(graph, verbose=False, scorer="dot", **FAST)
    embeddings = model.embed(graph)
    assert np.isclose(model.predict_pairs(graph, [[0, 1]])[0], embeddings[0] @ embeddings[1], rtol=1e-5)


def test_recommends_partners_that_are_no_link_yet() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network, features=community_features(network))
    model = edgewise.LinkModel.train(graph, verbose=False, **FAST)
    suggestions = model.recommend(graph, [0, 50], k=5)
    assert len(suggestions) == 2
    for node, (partners, scores) in zip([0, 50], suggestions):
        assert len(partners) == 5
        assert all(scores[:-1] >= scores[1:])
        assert node not in partners
        assert not any(network.has_edge(node, int(partner)) for partner in partners)
        assert np.allclose(scores, model.predict_pairs(graph, [[node, p] for p in partners]), rtol=1e-5)


def test_evaluates_given_links_against_non_links() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network, features=community_features(network))
    model = edgewise.LinkModel.train(graph, verbose=False, **FAST)
    links = [[u, v] for u, v in list(network.edges)[:20]]
    non_links = [[0, 99], [1, 75], [2, 60], [30, 99]]
    metrics = model.evaluate(graph, links, non_links)
    assert 0.5 < metrics["roc_auc"] <= 1
    assert set(metrics) == {"roc_auc", "average_precision", "hits@50", "mrr"}


def test_the_command_line_tool_reads_a_model_python_saved(cli: str, tmp_path: pathlib.Path) -> None:
    network = planted_partition()
    edges = tmp_path / "edges.txt"
    edges.write_text("".join(f"{u} {v}\n" for u, v in network.edges))
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("0 1\n0 99\n")
    graph = edgewise.NodeGraph.read(edges)  # structural features
    model = edgewise.LinkModel.train(graph, verbose=False, **FAST)
    model.save(tmp_path / "links.ew")
    output = run_cli(cli, "predict", "--model", str(tmp_path / "links.ew"), "--edges", str(edges), "--pairs",
                     str(pairs), "--threads", "1")
    rows = [line.split("\t") for line in output.splitlines()[1:]]
    row = {name: i for i, name in enumerate(graph.node_names)}
    expected = model.predict_pairs(graph, [[row["0"], row["1"]], [row["0"], row["99"]]])
    assert np.allclose([float(r[2]) for r in rows], expected, rtol=1e-4)
    loaded = edgewise.LinkModel.load(tmp_path / "links.ew")
    assert np.array_equal(loaded.predict_pairs(graph, [[0, 1]]), model.predict_pairs(graph, [[0, 1]]))
    assert loaded.describe()["title"].startswith("link prediction model")


def test_refuses_what_it_cannot_score() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network, features=community_features(network))
    model = edgewise.LinkModel.train(graph, verbose=False, epochs=2)
    with pytest.raises(ValueError, match="outside the graph's 100 nodes"):
        model.predict_pairs(graph, [[0, 100]])
    with pytest.raises(ValueError, match="a node paired with itself"):
        model.predict_pairs(graph, [[3, 3]])
    for wrong in ([0, 1, 2], [[0, 1, 2], [3, 4, 5]]):
        with pytest.raises(ValueError, match=r"expected an \[M, 2\] array"):
            model.predict_pairs(graph, wrong)
    with pytest.raises(TypeError, match="unknown option 'readout'"):
        edgewise.LinkModel.train(graph, verbose=False, readout="sum")
    with pytest.raises(ValueError, match="split_sizes"):
        edgewise.LinkModel.train(graph, verbose=False, split_sizes="0.9,0.2")
    directed = edgewise.NodeGraph.from_networkx(nx.DiGraph(network), features=community_features(network))
    with pytest.raises(ValueError, match="undirected"):
        edgewise.LinkModel.train(directed, verbose=False, epochs=2)


def test_a_graph_without_features_gets_identity_features_for_its_own_nodes_only() -> None:
    network = planted_partition()
    graph = edgewise.NodeGraph.from_networkx(network)  # structural features
    model = edgewise.LinkModel.train(graph, verbose=False, **FAST)
    assert model.describe()["facts"]["identity features"].startswith("yes")
    assert model.test_metrics["roc_auc"] > 0.8
    smaller = edgewise.NodeGraph.from_networkx(nx.planted_partition_graph(4, 20, 0.3, 0.01, seed=4))
    with pytest.raises(ValueError, match="nodes of its training graph only"):
        model.predict_pairs(smaller, [[0, 1]])
    plain = edgewise.LinkModel.train(graph, verbose=False, identity_features=False, **FAST)
    assert plain.describe()["facts"]["identity features"] == "no"

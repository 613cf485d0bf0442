"""edgewise.tune: the command line's cross-validation from Python, with the same folds, scores and
choice as ``edgewise tune --task graph``, and the errors that guard it."""

from __future__ import annotations

import json
import pathlib

import pytest

import edgewise
from conftest import SMILES, TARGETS, TINY, run_cli

# TINY's options but the width, which the grids vary, and the seed (the command line's default, 0).
SHARED = {k: v for k, v in TINY.items() if k not in ("hidden", "seed")}


def test_tunes_as_the_command_line_does(cli: str, molecules_csv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    grid = [{"hidden": 8}, {"hidden": 16, "readout": "mean"}]
    result = edgewise.tune(data=molecules_csv, grid=grid, folds=2, threads=1, **SHARED)
    assert result["metric"] == "rmse"
    assert [c["options"] for c in result["candidates"]] == grid
    assert result["options"] == grid[result["chosen"]]
    assert all(len(c["folds"]) == 2 for c in result["candidates"])

    (tmp_path / "grid.json").write_text(json.dumps([{"hidden": 8}, {"hidden": 16, "readout": "mean"}]))
    run_cli(cli, "tune", "--task", "graph", "--data", str(molecules_csv), "--grid", str(tmp_path / "grid.json"),
            "--folds", "2", "--threads", "1", "--heads", "2", "--layers", "1", "--head-hidden", "8", "--epochs", "4",
            "--ensemble", "1", "--no-descriptors", "--no-atom-crippen", "--batch-size", "4",
            "--out", str(tmp_path / "best.json"))
    record = json.loads((tmp_path / "best.json").read_text())["cross_validation"]
    assert [c["folds"] for c in record["candidates"]] == [c["folds"] for c in result["candidates"]]
    assert record["chosen"] == result["chosen"]

    # The chosen options train a model as keywords.
    model = edgewise.MoleculeModel.train(SMILES, TARGETS, verbose=False, threads=1, **SHARED, **result["options"])
    assert len(model.predict(SMILES[:2])) == 2


def test_a_grid_object_and_a_preset_give_candidates() -> None:
    result = edgewise.tune(SMILES, TARGETS, grid={"head_dim": [4, 8], "readout": ["sum", "mean"]}, folds=2,
                           threads=1, **SHARED)
    assert len(result["candidates"]) == 4
    assert result["candidates"][0]["options"] == {"head_dim": 4, "readout": "sum"}
    assert result["split"].startswith("random")


def test_refuses_grids_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="give either grid or preset"):
        edgewise.tune(SMILES, TARGETS, folds=2)
    with pytest.raises(ValueError, match="grid: 'hiden' is not an option"):
        edgewise.tune(SMILES, TARGETS, grid=[{"hiden": 8}], folds=2)
    with pytest.raises(ValueError, match="grid: option 'hidden': value 0 is below the minimum of 1"):
        edgewise.tune(SMILES, TARGETS, grid=[{"hidden": 0}], folds=2)
    with pytest.raises(ValueError, match="hidden is given as a keyword and varied by the grid"):
        edgewise.tune(SMILES, TARGETS, grid=[{"hidden": 8}], folds=2, hidden=16)


def test_tunes_node_classifiers_as_the_command_line_does(cli: str, data_folder: pathlib.Path,
                                                          tmp_path: pathlib.Path) -> None:
    karate = data_folder / "karate"
    graph = edgewise.NodeGraph.read(karate / "edges.txt", karate / "labels.txt")
    result = edgewise.tune(graph=graph, preset="small", folds=2, epochs=5, threads=1)
    assert result["metric"] == "accuracy"
    assert result["candidates"][5]["options"] == {"head_dim": 16}

    run_cli(cli, "tune", "--task", "node", "--edges", str(karate / "edges.txt"), "--labels",
            str(karate / "labels.txt"), "--preset", "small", "--folds", "2", "--epochs", "5", "--threads", "1",
            "--out", str(tmp_path / "nodes.json"))
    record = json.loads((tmp_path / "nodes.json").read_text())["cross_validation"]
    assert [c["folds"] for c in record["candidates"]] == [c["folds"] for c in result["candidates"]]
    with pytest.raises(ValueError, match="give either graph, or smiles and targets"):
        edgewise.tune(SMILES, TARGETS, graph=graph, preset="small")


def test_tunes_link_predictors_as_the_command_line_does(cli: str, data_folder: pathlib.Path,
                                                         tmp_path: pathlib.Path) -> None:
    edges = data_folder / "karate" / "edges.txt"
    grid = [{"scorer": "dot"}, {"scorer": "mlp"}]
    result = edgewise.tune(graph=edgewise.NodeGraph.read(edges), task="link", grid=grid, folds=2, epochs=5, threads=1)
    assert result["metric"] == "roc_auc"
    assert [c["options"] for c in result["candidates"]] == grid

    (tmp_path / "grid.json").write_text(json.dumps(grid))
    run_cli(cli, "tune", "--task", "link", "--edges", str(edges), "--grid", str(tmp_path / "grid.json"), "--folds", "2",
            "--epochs", "5", "--threads", "1", "--out", str(tmp_path / "links.json"))
    record = json.loads((tmp_path / "links.json").read_text())["cross_validation"]
    assert [c["folds"] for c in record["candidates"]] == [c["folds"] for c in result["candidates"]]
    with pytest.raises(ValueError, match='expected "node" or "link"'):
        edgewise.tune(graph=edgewise.NodeGraph.read(edges), task="molecule", grid=grid)

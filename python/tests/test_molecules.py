"""MoleculeModel from Python: training, prediction and evaluation against the command-line tool and
hand-computed metrics, and the errors that guard them."""

from __future__ import annotations

import math
import os
import pathlib
import signal
import sys
import threading
import time
import tomllib
import tracemalloc

import numpy as np
import pytest

import edgewise
from conftest import REPOSITORY, SMILES, TARGETS, TINY, run_cli


@pytest.fixture(scope="module")
def model() -> edgewise.MoleculeModel:
    return edgewise.MoleculeModel.train(SMILES, TARGETS, task_names=["logS"], verbose=False, threads=1, **TINY)


def cli_training(cli: str, data: pathlib.Path, out: pathlib.Path) -> list[str]:
    return [cli, "train", "--task", "graph", "--data", str(data), "--hidden", "8", "--heads", "2", "--layers", "1",
            "--head-hidden", "8", "--epochs", "4", "--ensemble", "1", "--no-descriptors", "--no-atom-crippen",
            "--batch-size", "4", "--seed", "5", "--threads", "1", "--quiet", "--out", str(out)]


def test_version_is_the_projects_everywhere() -> None:
    cmake = (REPOSITORY / "CMakeLists.txt").read_text()
    assert f"project(edgewise VERSION {edgewise.__version__} " in cmake
    with open(REPOSITORY / "pyproject.toml", "rb") as f:
        assert tomllib.load(f)["project"]["version"] == edgewise.__version__


def test_trains_the_same_model_file_as_the_command_line(cli: str, molecules_csv: pathlib.Path,
                                                        tmp_path: pathlib.Path) -> None:
    run_cli(cli, *cli_training(cli, molecules_csv, tmp_path / "cli.ew")[1:])
    trained = edgewise.MoleculeModel.train(data=molecules_csv, verbose=False, threads=1, **TINY)
    trained.save(tmp_path / "python.ew")
    assert (tmp_path / "python.ew").read_bytes() == (tmp_path / "cli.ew").read_bytes()


def test_default_columns_are_the_command_lines(cli: str, tmp_path: pathlib.Path) -> None:
    data = tmp_path / "columns.csv"
    rows = ["size,SMILES,logS"] + [f"{len(s)},{s},{t:g}" for s, t in zip(SMILES, TARGETS)]
    data.write_text("\n".join(rows) + "\n")
    run_cli(cli, *cli_training(cli, data, tmp_path / "cli.ew")[1:])
    trained = edgewise.MoleculeModel.train(data=data, verbose=False, threads=1, **TINY)
    assert trained.tasks == ["size", "logS"]
    trained.save(tmp_path / "python.ew")
    assert (tmp_path / "python.ew").read_bytes() == (tmp_path / "cli.ew").read_bytes()


def test_a_loaded_file_saves_byte_for_byte_and_predicts_as_the_command_line(
        cli: str, molecules_csv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    run_cli(cli, *cli_training(cli, molecules_csv, tmp_path / "cli.ew")[1:])
    loaded = edgewise.MoleculeModel.load(tmp_path / "cli.ew")
    loaded.save(tmp_path / "again.ew")
    assert (tmp_path / "again.ew").read_bytes() == (tmp_path / "cli.ew").read_bytes()

    output = run_cli(cli, "predict", "--model", str(tmp_path / "cli.ew"), "--data", str(molecules_csv),
                     "--threads", "1")
    cli_values = [row.split(",")[1] for row in output.strip().splitlines()[1:]]
    python_values = loaded.predict(SMILES, threads=1)[:, 0]
    # The tool prints six significant digits of the same float.
    assert cli_values == [f"{v:.6g}" for v in python_values]
    assert np.array_equal(loaded.predict(data=molecules_csv, threads=1)[:, 0], python_values)


def test_predictions_do_not_depend_on_the_thread_count_or_a_reload(model: edgewise.MoleculeModel,
                                                                   tmp_path: pathlib.Path) -> None:
    one = model.predict(SMILES, threads=1)
    two = model.predict(SMILES, threads=2)
    model.save(tmp_path / "m.ew")
    reloaded = edgewise.MoleculeModel.load(tmp_path / "m.ew").predict(SMILES, threads=1)
    assert one.dtype == np.float32 and one.shape == (len(SMILES), 1)
    assert np.array_equal(one, two) and np.array_equal(one, reloaded)


def test_invalid_smiles_give_nan_rows_or_raise(model: edgewise.MoleculeModel) -> None:
    values, invalid = model.predict(["CCO", "not a smiles", "c1ccccc1"], return_invalid=True)
    assert np.isnan(values[1]).all() and np.isfinite(values[[0, 2]]).all()
    assert [(i, s) for i, s, _ in invalid] == [(1, "not a smiles")]
    assert invalid[0][2]  # RDKit's reason
    with pytest.raises(ValueError, match=r"smiles\[1\] \(SMILES list:2\): cannot read .not a smiles."):
        model.predict(["CCO", "not a smiles"], on_invalid="raise")


def test_evaluate_matches_metrics_computed_by_hand(model: edgewise.MoleculeModel) -> None:
    predicted = model.predict(SMILES)[:, 0].astype(np.float64)
    metrics = model.evaluate(SMILES, TARGETS)
    errors = predicted - TARGETS
    assert metrics["rmse"] == pytest.approx(math.sqrt(np.mean(errors ** 2)), rel=1e-5)
    assert metrics["mae"] == pytest.approx(np.mean(np.abs(errors)), rel=1e-5)
    r2 = 1 - np.sum(errors ** 2) / np.sum((TARGETS - TARGETS.mean()) ** 2)
    assert metrics["r2"] == pytest.approx(r2, rel=1e-4)
    assert metrics["logS count"] == len(SMILES) and metrics["logS rmse"] == metrics["rmse"]


def test_metrics_are_a_flat_dict_of_numbers_by_name() -> None:
    targets = np.column_stack([TARGETS, np.where(np.arange(len(SMILES)) % 4 == 0, np.nan, -TARGETS)])
    labels = np.where(np.isnan(targets), np.nan, targets > 0)
    val = np.array([1, 2, 5, 6])  # both classes of both tasks
    split = (np.setdiff1d(np.arange(len(SMILES)), val), val, np.array([], dtype=int))
    regression = edgewise.MoleculeModel.train(SMILES, targets, task_names=["a", "b"], split=split, verbose=False,
                                              **TINY)
    classification = edgewise.MoleculeModel.train(SMILES, labels, task_names=["a", "b"], split=split,
                                                  task_type="classification", verbose=False, **TINY)
    for model, values, names in ((regression, targets, ("rmse", "mae", "r2")),
                                 (classification, labels, ("roc_auc", "pr_auc", "accuracy", "brier", "ece"))):
        metrics = model.evaluate(SMILES, values)
        assert all(type(value) is float for name, value in metrics.items() if not name.endswith(" count"))
        assert metrics["a count"] == len(SMILES) and metrics["b count"] == len(SMILES) - 4
        assert set(metrics) == {*names, *(f"{task} {name}" for task in "ab" for name in ("count", *names))}


def test_targets_may_come_as_a_dataframe_with_missing_labels() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"a": TARGETS, "b": np.where(np.arange(len(SMILES)) % 3 == 0, np.nan, -TARGETS)})
    trained = edgewise.MoleculeModel.train(pandas.Series(SMILES), frame, verbose=False, **TINY)
    assert trained.tasks == ["a", "b"]
    assert trained.predict(SMILES).shape == (len(SMILES), 2)


def test_classification_gives_probabilities() -> None:
    labels = (TARGETS > TARGETS.mean()).astype(float)
    trained = edgewise.MoleculeModel.train(SMILES, labels, task_type="classification", verbose=False, **TINY)
    probabilities = trained.predict(SMILES)
    assert trained.task_type == "classification"
    assert ((probabilities >= 0) & (probabilities <= 1)).all()
    [calibration] = trained.probability_calibration  # fitted on the validation part
    if "isotonic" in calibration:
        knots = np.array(calibration["isotonic"])
        assert (np.diff(knots, axis=0) >= 0).all() and ((knots >= 0) & (knots <= 1)).all()
    else:
        assert calibration["slope"] > 0 and np.isfinite(calibration["intercept"])
    with pytest.raises(ValueError, match="must be 0 or 1"):
        edgewise.MoleculeModel.train(SMILES, TARGETS, task_type="classification", verbose=False, **TINY)


def test_splits_may_be_masks_or_index_arrays() -> None:
    n = len(SMILES)
    train, val, test = np.arange(0, 10), np.arange(10, 13), np.arange(13, n)
    by_index = edgewise.MoleculeModel.train(SMILES, TARGETS, split=(train, val, test), verbose=False, **TINY)
    masks = tuple(np.isin(np.arange(n), part) for part in (train, val, test))
    by_mask = edgewise.MoleculeModel.train(SMILES, TARGETS, split=masks, verbose=False, **TINY)
    assert np.array_equal(by_index.predict(SMILES), by_mask.predict(SMILES))
    with pytest.raises(ValueError, match="more than one part"):
        edgewise.MoleculeModel.train(SMILES, TARGETS, split=(train, train, test), verbose=False, **TINY)


def test_a_classification_scaffold_split_gives_every_part_both_classes(data_folder: pathlib.Path) -> None:
    path = data_folder / "bbbp" / "bbbp.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    trained = edgewise.MoleculeModel.train(data=str(path), smiles_column="smiles", target_columns=["p_np"],
                                           task_type="classification", split="scaffold", skip_invalid=True,
                                           verbose=False, **dict(TINY, epochs=1))
    assert "scaffold (class-balanced, seed 5)" in str(trained.describe()), trained.describe()


def test_a_validation_part_of_one_class_is_refused_before_training() -> None:
    labels = np.array([1.0 if "1" in s else 0.0 for s in SMILES])
    rings = np.flatnonzero(labels == 1)
    others = np.flatnonzero(labels == 0)
    split = (np.concatenate([others, rings[2:]]), rings[:2], np.array([], dtype=int))
    with pytest.raises(ValueError, match="validation part .* holds one class only"):
        edgewise.MoleculeModel.train(SMILES, labels, task_type="classification", split=split, verbose=False, **TINY)


def test_bad_inputs_raise_python_errors(tmp_path: pathlib.Path, model: edgewise.MoleculeModel) -> None:
    with pytest.raises(ValueError, match="SMILES list"):
        edgewise.MoleculeModel.train(SMILES[:-1] + ["C1CC"], TARGETS, verbose=False, **TINY)
    skipped = edgewise.MoleculeModel.train(SMILES[:-1] + ["C1CC"], TARGETS, skip_invalid=True, verbose=False, **TINY)
    assert skipped.predict(["CCO"]).shape == (1, 1)
    with pytest.raises(ValueError, match="infinite"):
        edgewise.MoleculeModel.train(SMILES, np.where(TARGETS > 0, np.inf, TARGETS), verbose=False, **TINY)
    with pytest.raises(ValueError):
        edgewise.MoleculeModel.train(SMILES, TARGETS[:-2], verbose=False, **TINY)
    with pytest.raises(ValueError, match="dimensions"):
        edgewise.MoleculeModel.train(SMILES, np.zeros((len(SMILES), 1, 1)), verbose=False, **TINY)
    with pytest.raises(TypeError, match="array of numbers"):
        edgewise.MoleculeModel.train(SMILES, ["high"] * len(SMILES), verbose=False, **TINY)
    with pytest.raises(TypeError, match=r"smiles\[0\]"):
        model.predict([42])
    with pytest.raises(TypeError, match="one string"):
        model.predict("CCO")
    with pytest.raises(TypeError, match="unknown option 'hiden'"):
        edgewise.MoleculeModel.train(SMILES, TARGETS, hiden=8, verbose=False)
    with pytest.raises(ValueError, match="not a multiple of heads"):
        edgewise.MoleculeModel.train(SMILES, TARGETS, verbose=False, **{**TINY, "hidden": 9})
    with pytest.raises(FileNotFoundError):
        edgewise.MoleculeModel.load(tmp_path / "absent.ew")
    (tmp_path / "garbage.ew").write_bytes(b"not a model file")
    with pytest.raises(ValueError, match="garbage.ew"):
        edgewise.MoleculeModel.load(tmp_path / "garbage.ew")
    model.save(tmp_path / "kept.ew")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        model.save(tmp_path / "kept.ew")
    model.save(tmp_path / "kept.ew", overwrite=True)


def test_sd_files_are_told_by_their_extension_as_the_command_line_tells_them(tmp_path: pathlib.Path) -> None:
    broken = (REPOSITORY / "tests" / "data" / "bad" / "sdf_valence.sdf").read_bytes()
    for name in ("valence.sdf", "valence.SDF", "valence.sd"):
        (tmp_path / name).write_bytes(broken)
        with pytest.raises(ValueError, match=rf"{name}:15: .*SD record 2 cannot be read"):
            edgewise.MoleculeModel.train(data=tmp_path / name, target_columns=["y"], verbose=False, **TINY)


TPSA_TABLE = pathlib.Path("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv")


@pytest.fixture()
def tpsa_csv(tmp_path: pathlib.Path) -> pathlib.Path:
    """Forty rows of RDKit's TPSA table: SMILES,TPSA without a header, comment lines starting with #."""
    if not TPSA_TABLE.is_file():
        pytest.skip(f"RDKit's TPSA table is absent at {TPSA_TABLE} (Debian: rdkit-data)")
    lines = TPSA_TABLE.read_text().splitlines()
    rows = [line for line in lines if line and not line.startswith("#")][:40]
    path = tmp_path / "tpsa.csv"
    path.write_text("\n".join([lines[0], *rows[:20], "# a comment between rows", *rows[20:]]) + "\n")
    return path


def test_a_table_without_header_and_with_comments_trains_as_the_command_line(
        cli: str, tpsa_csv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    run_cli(cli, *cli_training(cli, tpsa_csv, tmp_path / "cli.ew")[1:], "--no-header", "--comment", "#",
            "--targets", "1", "--target-names", "TPSA")
    trained = edgewise.MoleculeModel.train(data=tpsa_csv, header=False, comment="#", target_columns=[1],
                                           task_names=["TPSA"], verbose=False, threads=1, **TINY)
    assert trained.tasks == ["TPSA"] and trained.describe()["training"]["examples"] == 40
    trained.save(tmp_path / "python.ew")
    assert (tmp_path / "python.ew").read_bytes() == (tmp_path / "cli.ew").read_bytes()

    unnamed = edgewise.MoleculeModel.train(data=tpsa_csv, header=False, comment="#", target_columns=[1],
                                           verbose=False, **TINY)
    assert unnamed.tasks == ["column 1"]
    with pytest.raises(ValueError, match="tpsa.csv:2: expected 1 fields"):  # the comment line read as a row
        edgewise.MoleculeModel.train(data=tpsa_csv, header=False, target_columns=[1], verbose=False, **TINY)
    with pytest.raises(ValueError, match="without a header needs them"):
        edgewise.MoleculeModel.train(data=tpsa_csv, header=False, comment="#", verbose=False, **TINY)
    with pytest.raises(ValueError, match="without a header names no columns"):
        edgewise.MoleculeModel.train(data=tpsa_csv, header=False, comment="#", target_columns=["TPSA"],
                                     verbose=False, **TINY)


def test_predicting_a_table_without_header_gives_the_command_lines_values(
        cli: str, tpsa_csv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    run_cli(cli, *cli_training(cli, tpsa_csv, tmp_path / "cli.ew")[1:], "--no-header", "--comment", "#",
            "--targets", "1")
    model = edgewise.MoleculeModel.load(tmp_path / "cli.ew")
    values = model.predict(data=tpsa_csv, header=False, comment="#", smiles_column=0, threads=1)
    smiles = [line.split(",")[0] for line in tpsa_csv.read_text().splitlines() if not line.startswith("#")]
    assert np.array_equal(values, model.predict(smiles, threads=1))
    output = run_cli(cli, "predict", "--model", str(tmp_path / "cli.ew"), "--data", str(tpsa_csv), "--no-header",
                     "--comment", "#", "--threads", "1")
    assert [row.split(",")[1] for row in output.strip().splitlines()[1:]] == [f"{v:.6g}" for v in values[:, 0]]


def molblock(atoms: str, bonds: list[tuple[int, int, int]]) -> str:
    """A V2000 record of the given heavy atoms (one letter each) and (atom, atom, order) bonds."""
    lines = ["", "  edgewise", "", f"{len(atoms):3d}{len(bonds):3d}  0  0  0  0  0  0  0  0999 V2000"]
    lines += [f"    0.0000{i:>10.4f}    0.0000 {a}   0  0  0  0  0  0  0  0  0  0  0  0" for i, a in enumerate(atoms)]
    lines += [f"{u:3d}{v:3d}{order:3d}  0" for u, v, order in bonds]
    return "\n".join(lines + ["M  END", "$$$$", ""])


def test_predicts_the_records_of_an_sd_file(model: edgewise.MoleculeModel, tmp_path: pathlib.Path) -> None:
    ethanol = molblock("CCO", [(1, 2, 1), (2, 3, 1)])
    pentavalent = molblock("CCCCCC", [(1, k, 1) for k in range(2, 7)])
    acetic_acid = molblock("CCOO", [(1, 2, 1), (2, 3, 2), (2, 4, 1)])
    propane = molblock("CCC", [(1, 2, 1), (2, 3, 1)])
    sdf = tmp_path / "molecules.sdf"
    sdf.write_text(ethanol + pentavalent + acetic_acid + propane)
    values, invalid = model.predict(data=sdf, return_invalid=True)
    assert values.shape == (4, 1) and np.isnan(values[1]).all()
    expected = model.predict(["CCO", "CC(=O)O", "CCC"])
    assert values[[0, 2, 3]] == pytest.approx(expected, rel=1e-5)
    assert [(index, text) for index, text, _ in invalid] == [(1, "")] and invalid[0][2]
    with pytest.raises(ValueError, match=r"row 1 \(.*molecules.sdf:12\): cannot read the SD record: .*valence"):
        model.predict(data=sdf, on_invalid="raise")
    with pytest.raises(ValueError, match="either smiles or data"):
        model.predict(["CCO"], data=sdf)


def test_a_dataframe_given_as_smiles_names_the_column_to_pass(model: edgewise.MoleculeModel) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"name": [f"m{i}" for i in range(len(SMILES))], "SMILES": SMILES, "logS": TARGETS})
    message = r"smiles: expected a list of SMILES strings or a pandas Series, got a DataFrame; pass df\['SMILES'\]"
    with pytest.raises(TypeError, match=message):
        model.predict(frame)
    with pytest.raises(TypeError, match=message):
        model.evaluate(frame, TARGETS)
    with pytest.raises(TypeError, match=message):
        edgewise.MoleculeModel.train(frame, TARGETS, verbose=False, **TINY)
    with pytest.raises(TypeError, match=r"got a DataFrame; pass df\['name'\]"):
        model.predict(frame[["name"]])
    assert model.predict(frame["SMILES"]).shape == (len(SMILES), 1)


def test_a_target_column_without_any_label_is_refused() -> None:
    empty = np.column_stack([TARGETS, np.full(len(SMILES), np.nan)])
    with pytest.raises(ValueError, match="target 'y1' has no labels"):
        edgewise.MoleculeModel.train(SMILES, empty, verbose=False, **TINY)


def test_non_contiguous_and_integer_targets_are_read_as_numbers() -> None:
    wide = np.column_stack([TARGETS, np.zeros_like(TARGETS), TARGETS * 2])
    strided = edgewise.MoleculeModel.train(SMILES, wide[:, ::2], verbose=False, **TINY)
    copied = edgewise.MoleculeModel.train(SMILES, np.ascontiguousarray(wide[:, ::2]), verbose=False, **TINY)
    assert np.array_equal(strided.predict(SMILES), copied.predict(SMILES))
    integers = edgewise.MoleculeModel.train(SMILES, np.arange(len(SMILES)), verbose=False, **TINY)
    assert integers.predict(["CCO"]).shape == (1, 1)


def test_attention_weights_sum_to_one_over_each_atoms_in_edges(model: edgewise.MoleculeModel) -> None:
    attention = model.attention("c1ccncc1")
    edges, weights = attention["edge_index"], attention["weights"]
    assert edges.shape[0] == 2 and weights.shape == (edges.shape[1], 2)
    for atom in range(6):
        assert weights[edges[1] == atom].sum(axis=0) == pytest.approx(np.ones(2), abs=1e-5)
    assert attention["atoms"].shape == (6,)
    assert "<svg" in model.explain_svg("c1ccncc1")
    with pytest.raises(ValueError, match="cannot read SMILES"):
        model.attention("C1CC")


def test_two_threads_predict_at_once_with_the_gil_released(model: edgewise.MoleculeModel) -> None:
    many = SMILES * 2000
    expected = model.predict(many)
    results: list[np.ndarray] = [np.empty(0), np.empty(0)]

    def predict(slot: int) -> None:
        results[slot] = model.predict(many)

    threads = [threading.Thread(target=predict, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    spins = 0
    while any(thread.is_alive() for thread in threads):
        spins += 1  # runs only while the predicting threads let go of the GIL
        time.sleep(0.001)
    for thread in threads:
        thread.join()
    assert all(np.array_equal(r, expected) for r in results)
    assert spins > 10


def test_other_calls_wait_for_a_prediction_without_deadlock(model: edgewise.MoleculeModel) -> None:
    predicting = threading.Thread(target=model.predict, args=(SMILES * 5000,), daemon=True)
    others_done = threading.Event()

    def others() -> None:
        while predicting.is_alive():
            model.attention("c1ccncc1")
            model.explain_svg("CCO")
            model.evaluate(SMILES, TARGETS)
        others_done.set()

    predicting.start()
    threading.Thread(target=others, daemon=True).start()
    assert others_done.wait(timeout=120), "a call on the model waited for ever"


def interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_stops_training_and_prediction(tmp_path: pathlib.Path) -> None:
    # Python's own SIGINT handler, also where the test runner was started with SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        timer = interrupt_after(0.5)
        with pytest.raises(KeyboardInterrupt):
            edgewise.MoleculeModel.train(SMILES * 20, np.tile(TARGETS, 20), verbose=False,
                                         **{**TINY, "epochs": 3000, "patience": 3000})
        timer.join()
        assert time.monotonic() - start < 20

        model = edgewise.MoleculeModel.train(SMILES, TARGETS, verbose=False, **TINY)
        timer = interrupt_after(0.2)
        with pytest.raises(KeyboardInterrupt):
            model.predict(SMILES * 50000)
        timer.join()
        assert not list(tmp_path.iterdir())  # nothing half-written
    finally:
        signal.signal(signal.SIGINT, previous)


def test_repeated_calls_do_not_leak(model: edgewise.MoleculeModel) -> None:
    smiles = ["CCO", "c1ccccc1"]
    for _ in range(100):
        model.predict(smiles)
    references = (sys.getrefcount(smiles), sys.getrefcount(smiles[0]))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(10000):
        model.predict(smiles)
    growth = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert growth < 100_000
    assert (sys.getrefcount(smiles), sys.getrefcount(smiles[0])) == references


def test_describe_is_what_info_prints(model: edgewise.MoleculeModel) -> None:
    description = model.describe()
    assert description["title"].startswith("molecule property model")
    assert description["training"]["examples"] == len(SMILES)
    assert "parameters" in description["facts"]


def test_ctrl_c_stops_featurizing_before_training() -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        timer = interrupt_after(0.3)
        copies = 100_000 // len(SMILES)  # with RDKit's descriptors, 15 s of featurizing at 2 threads
        with pytest.raises(KeyboardInterrupt):
            edgewise.MoleculeModel.train(SMILES * copies, np.tile(TARGETS, copies), verbose=False,
                                         **{**TINY, "descriptors": True, "atom_crippen": True})
        timer.join()
        assert time.monotonic() - start < 10  # a window of 1,024 molecules: 0.3 s, some seconds under ASan
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_calibrated_spread_gives_std_and_intervals_as_the_command_line(
        cli: str, molecules_csv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # Half the molecules validate, so that intervals of 0.8 (which need 4 calibration rows) exist.
    calibrated = edgewise.MoleculeModel.train(SMILES, TARGETS, task_names=["logS"], verbose=False, threads=1,
                                              split_sizes=(0.5, 0.5, 0.0), uncertainty="ensemble",
                                              **{**TINY, "ensemble": 2})
    values, std = calibrated.predict(SMILES, return_std=True)
    assert np.array_equal(values, calibrated.predict(SMILES)) and (std > 0).all()
    lower, upper = calibrated.predict_interval(SMILES, coverage=0.8)
    assert np.allclose(values - lower, upper - values) and (upper > lower).all()
    calibrated.save(tmp_path / "u.ew")
    output = run_cli(cli, "predict", "--model", str(tmp_path / "u.ew"), "--data", str(molecules_csv),
                     "--coverage", "0.8", "--threads", "1")
    rows = [row.split(",") for row in output.strip().splitlines()[1:]]
    assert [row[2] for row in rows] == [f"{v:.6g}" for v in std[:, 0]]
    assert [row[3] for row in rows] == [f"{v:.6g}" for v in lower[:, 0]]
    # The SD-file path and an unreadable molecule: NaN rows stay NaN.
    sdf = tmp_path / "two.sdf"
    sdf.write_text(molblock("CCO", [(1, 2, 1), (2, 3, 1)]) + molblock("CCCCCC", [(1, k, 1) for k in range(2, 7)]))
    sd_values, sd_std = calibrated.predict(data=sdf, return_std=True)
    assert sd_std[0] == pytest.approx(std[0], rel=1e-5) and np.isnan(sd_std[1]).all()
    with pytest.raises(ValueError, match="coverage 0.95 needs at least 19 calibration rows"):
        calibrated.predict_interval(SMILES, coverage=0.95)
    with pytest.raises(ValueError, match='no calibrated spread; train it with uncertainty="ensemble", "mve", "evidential" or "dropout"'):
        edgewise.MoleculeModel.train(SMILES, TARGETS, verbose=False, threads=1, uncertainty="none",
                                     **TINY).predict(SMILES, return_std=True)

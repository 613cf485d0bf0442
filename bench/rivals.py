#!/usr/bin/python3
"""The rivals' side of a benchmark row, run on this machine in the same sitting as edgewise's: PyTorch
Geometric 2.6.1 and Chemprop 1.7.1 as ../shared/peers/setup.sh installs them (in /opt/edgewise-peers),
timed by ../shared/peers' own scripts where it has them. Each command prints one JSON line.

Usage: bench/rivals.py COMMAND [ARGS] [--threads T] [--work DIR]
  available                    exit 0 if both rivals are installed, else 1 and the reason
  pyg-attention N E LAYER      one PyG layer (gat: GATConv, transformer: TransformerConv) on the uniform
                               random workload of N nodes and E edges, 64 -> 4 heads x 16: forward and
                               forward + backward ms (medians of 5 after 2 warm-ups) and peak memory
  pyg-cora                     PyG's GAT recipe on Cora: the median training step, ms (3 seeds x 200 epochs)
  chemprop-esol-epoch          Chemprop's defaults on ESOL's split seed 0: seconds an epoch,
                               (t3 - t1) / 2 of whole processes, median of 3 pairs after a warm-up
  chemprop-hiv-epoch           the same on HIV (HIV_active, classification, random 80/10/10),
                               t2 - t1 of one pair
  chemprop-predict             the first 5,000 HIV SMILES predicted with a Chemprop ESOL model (1 epoch):
                               molecules a second for the whole process, and for the prediction itself
                               ((5,000 - 500) / (t5000 - t500), start-up and model loading left out)

PyG runs with glibc told to keep freed memory (MALLOC_MMAP_MAX_=0, a huge MALLOC_TRIM_THRESHOLD_), its
best case on a machine where each freshly touched page costs about 11 µs; the peak memory is that of
the same process. Data: $EDGEWISE_DATA, else ../shared/datasets. Work files go to --work (default
bench/rivals-logs/, not for committing).
"""
import argparse
import csv
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
PEERS = pathlib.Path("/opt/edgewise-peers")
PEER_SCRIPTS = SHARED / "peers"
DATA = pathlib.Path(os.environ.get("EDGEWISE_DATA", SHARED / "datasets"))
ESOL_TARGET = "measured log solubility in mols per litre"
CHEMPROP_PATH = ("chemprop", "tap", "docstring_parser", "stubs")
KEEP_FREED_MEMORY = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "68719476736"}


def missing():
    """Why the rivals cannot run here, or None."""
    for path in (PEERS / "pyg" / "torch_geometric", PEERS / "chemprop" / "chemprop", PEER_SCRIPTS / "pyg"):
        if not path.exists():
            return f"{path} not found (run ../shared/peers/setup.sh)"
    return None


def pyg_env(threads):
    return dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONPATH=str(PEERS / "pyg"), **KEEP_FREED_MEMORY)


def pyg_attention(nodes, edges, layer, threads):
    output = subprocess.run(["/usr/bin/python3", str(PEER_SCRIPTS / "pyg" / "scale_gat.py"), "--one", str(nodes),
                             str(edges), layer, "--threads", str(threads)], check=True, capture_output=True,
                            text=True, env=pyg_env(threads)).stdout
    result = json.loads(next(line for line in output.splitlines() if line.startswith("RESULT "))[len("RESULT "):])
    return {"fwd_ms": result["fwd"]["median_ms"], "fwd_bwd_ms": result["fwd_bwd"]["median_ms"],
            "peak_mb": result["peak_rss_fwd_bwd_mb"], "edges_sha256": result["edges_sha256"]}


def pyg_cora(threads, work):
    # Planetoid writes its processed tensors beside the raw files: the raw files are linked into the
    # work folder, so that nothing is written into ../shared.
    root = work / "pyg-data"
    (root / "Cora").mkdir(parents=True, exist_ok=True)
    if not (root / "Cora" / "raw").exists():
        (root / "Cora" / "raw").symlink_to(PEER_SCRIPTS / "data" / "Cora" / "raw")
    summary = work / "pyg-cora.json"
    subprocess.run(["/usr/bin/python3", str(PEER_SCRIPTS / "pyg" / "cora_gat.py"), "--root", str(root), "--models",
                    "gat", "--seeds", "3", "--patience", "200", "--threads", str(threads), "--retries", "0",
                    "--no-wait-idle", "--json", str(summary)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=pyg_env(threads))
    with open(summary) as f:
        gat = json.load(f)["results"]["gat"]
    return {"epoch_ms": gat["train_epoch_median_ms"]}


def chemprop(entry, args, threads, log=subprocess.DEVNULL):
    """Seconds the Chemprop command `entry` (chemprop_train, chemprop_predict) took; its output goes to `log`."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONPATH=":".join(str(PEERS / p) for p in CHEMPROP_PATH))
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-c", f"from chemprop.train import {entry}; {entry}()", *args], check=True,
                   env=env, stdout=log, stderr=subprocess.STDOUT)
    return time.perf_counter() - start


def read_rows(path):
    with open(path, newline="") as f:
        return [row for row in csv.reader(f) if row]  # hiv.csv follows every line with an empty one


def write_rows(path, rows):
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


def write_split_parts(data, target_name, split, work, prefix=""):
    """The parts of `split` (0-based data-row indices, one a line, in train.txt, val.txt and test.txt) as
    Chemprop's CSV files work/<prefix><part>.csv, columns smiles and logS; returns the options that read them."""
    header, *body = read_rows(data)
    smiles, target = header.index("smiles"), header.index(target_name)
    paths = {part: work / f"{prefix}{part}.csv" for part in ("train", "val", "test")}
    for part, path in paths.items():
        indices = [int(line) for line in open(split / f"{part}.txt") if line.strip()]
        write_rows(path, [["smiles", "logS"], *([body[i][smiles], body[i][target]] for i in indices)])
    return ["--data_path", str(paths["train"]), "--separate_val_path", str(paths["val"]), "--separate_test_path",
            str(paths["test"])]


def esol_parts(work):
    """Chemprop's ESOL split seed 0 as its three CSV files, and the options of a regression on them."""
    return [*write_split_parts(DATA / "esol" / "esol.csv", ESOL_TARGET, PEER_SCRIPTS / "chemprop" / "esol_split_seed0",
                               work, "esol-"), "--dataset_type", "regression"]


def train(data_args, name, epochs, threads, work):
    return chemprop("chemprop_train", [*data_args, "--save_dir", str(work / f"{name}-{epochs}"), "--quiet", "--seed",
                                       "0", "--epochs", str(epochs)], threads)


def chemprop_esol_epoch(threads, work):
    data_args = esol_parts(work)
    train(data_args, "esol", 1, threads, work)  # brings Python's modules into the page cache
    pairs = [(train(data_args, "esol", 3, threads, work) - train(data_args, "esol", 1, threads, work)) / 2
             for _ in range(3)]
    return {"epoch_s": statistics.median(pairs), "pairs_s": pairs}


def chemprop_hiv_epoch(threads, work):
    header, *body = read_rows(DATA / "hiv" / "hiv.csv")
    smiles, target = header.index("smiles"), header.index("HIV_active")
    write_rows(work / "hiv.csv", [["smiles", "HIV_active"], *([row[smiles], row[target]] for row in body)])
    data_args = ["--data_path", str(work / "hiv.csv"), "--dataset_type", "classification", "--split_sizes", "0.8",
                 "0.1", "0.1"]
    one, two = train(data_args, "hiv", 1, threads, work), train(data_args, "hiv", 2, threads, work)
    return {"epoch_s": two - one, "one_epoch_process_s": one}


def chemprop_predict(threads, work):
    if not (work / "esol-1").is_dir():
        train(esol_parts(work), "esol", 1, threads, work)
    header, *body = read_rows(DATA / "hiv" / "hiv.csv")
    column = header.index("smiles")
    seconds = {}
    for count in (500, 5000):
        write_rows(work / f"hiv-{count}.csv", [["smiles"], *([row[column]] for row in body[:count])])
        seconds[count] = chemprop("chemprop_predict", ["--test_path", str(work / f"hiv-{count}.csv"),
                                                       "--checkpoint_dir", str(work / "esol-1"), "--preds_path",
                                                       str(work / "predictions.csv")], threads)
    return {"process_molecules_per_s": 5000 / seconds[5000],
            "call_molecules_per_s": 4500 / (seconds[5000] - seconds[500])}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("available", "pyg-attention", "pyg-cora", "chemprop-esol-epoch",
                                            "chemprop-hiv-epoch", "chemprop-predict"))
    parser.add_argument("workload", nargs="*", help="N E LAYER for pyg-attention")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", type=pathlib.Path, default=ROOT / "bench" / "rivals-logs")
    args = parser.parse_args()
    reason = missing()
    if args.command == "available" or reason:
        if reason:
            print(f"bench/rivals.py: {reason}", file=sys.stderr)
        sys.exit(1 if reason else 0)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.command == "pyg-attention":
        if len(args.workload) != 3 or args.workload[2] not in ("gat", "transformer"):
            parser.error("pyg-attention needs N E gat|transformer")
        result = pyg_attention(int(args.workload[0]), int(args.workload[1]), args.workload[2], args.threads)
    else:
        run = {"pyg-cora": pyg_cora, "chemprop-esol-epoch": chemprop_esol_epoch,
               "chemprop-hiv-epoch": chemprop_hiv_epoch, "chemprop-predict": chemprop_predict}[args.command]
        result = run(args.threads, args.work)
    print(json.dumps({"rival": args.command, "threads": args.threads, "workload": args.workload, **result}))


if __name__ == "__main__":
    main()

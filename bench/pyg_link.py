"""Link prediction with PyG's GCN graph auto-encoder on a fixed edge split
written by edgewise (train/val/test links, fixed val/test negatives).

Recipe (follows PyG's examples/link_pred.py):
  * features row-normalised (T.NormalizeFeatures); without --features the
    input is a sparse one-hot of the node ids
  * encoder GCNConv(in, 128) -> ReLU -> GCNConv(128, 64) over the train links
    only (both directions), in training and evaluation; dot-product decoder
  * BCE-with-logits on the train links and as many fresh uniform negatives
    per epoch (negative_sampling on the train edge_index, method 'sparse')
  * Adam lr 0.01, full-batch, 100 epochs, no dropout, no weight decay
  * reported = test figures at the (first) epoch with the best val ROC-AUC
Metrics, from the logits of the test links (1) vs the test negatives (0):
ROC-AUC and average precision (sklearn), Hits@50 (OGB: fraction of links
above the 50th-highest negative), MRR (mean of 1 / (1 + #negatives higher +
0.5 * #ties)).

Timing: wall time (perf_counter) of each training step (zero_grad, forward,
negative sampling, loss, backward, optimizer step); median over all epochs.
Peak RSS from getrusage. One JSON line on stdout, a summary on stderr.

Usage: PYTHONPATH=$PYG_SRC python3 pyg_link.py SPLIT_DIR --features FILE
"""
import os

os.environ.setdefault('OMP_NUM_THREADS', '2')

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa

import torch_geometric.transforms as T  # noqa: E402
from torch_geometric.data import Data  # noqa: E402
from torch_geometric.nn import GCNConv  # noqa: E402
from torch_geometric.utils import negative_sampling  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels=128, out_channels=64):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden_channels)
        self.conv2 = GCNConv(hidden_channels, out_channels)

    def encode(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)

    def decode(self, z, pairs):  # one logit per column of pairs
        return (z[pairs[0]] * z[pairs[1]]).sum(dim=-1)


def read_pairs(path):
    with open(path) as f:
        rows = [[int(v) for v in line.split()] for line in f if line.strip()]
    return torch.tensor(rows, dtype=torch.long).view(-1, 2).t()


def read_features(path, n):
    with open(path) as f:
        rows = [(int(node), [int(c) for c in cols.split()]) for node, _, cols
                in (line.partition('\t') for line in f if line.strip())]
    n = max([n] + [node + 1 for node, _ in rows])
    x = torch.zeros(n, 1 + max(c for _, cs in rows for c in cs))
    for node, cols in rows:
        x[node, cols] = 1.0
    return T.NormalizeFeatures()(Data(x=x)).x


def ranking_metrics(pos, neg):
    """Hits@50 (OGB definition) and MRR of the positives among all negatives"""
    s = np.sort(neg)
    hits50 = float((pos > (s[-50] if len(s) >= 50 else -np.inf)).mean())
    lo, hi = np.searchsorted(s, pos, 'left'), np.searchsorted(s, pos, 'right')
    rank = 1.0 + (len(s) - hi) + 0.5 * (hi - lo)
    return hits50, float((1.0 / rank).mean())


def labelled(pos, neg):
    """(labels, scores): positives labelled 1, negatives 0"""
    return np.r_[np.ones(len(pos)), np.zeros(len(neg))], np.r_[pos, neg]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('split', help='folder with train/val/test(_negatives).txt')
    ap.add_argument('--features', help='node<TAB>indices of the ones per line')
    ap.add_argument('--nodes', type=int, default=0)
    ap.add_argument('--epochs', type=int, default=100)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--seed', type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    random.seed(a.seed)  # negative_sampling draws with Python's random
    torch.manual_seed(a.seed)

    t_start = time.perf_counter()
    sp = {k: read_pairs(os.path.join(a.split, k + '.txt')) for k in
          ('train', 'val', 'test', 'val_negatives', 'test_negatives')}
    n = max([a.nodes] + [int(p.max()) + 1 for p in sp.values() if p.numel()])
    if a.features:
        x = read_features(a.features, n)
        n = x.size(0)
    else:
        ids = torch.arange(n).repeat(2, 1)
        x = torch.sparse_coo_tensor(ids, torch.ones(n), (n, n))
    train = sp['train']
    edge_index = torch.cat([train, train.flip(0)], dim=1)
    model = Net(x.size(1))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = torch.nn.BCEWithLogitsLoss()
    ones = torch.ones(train.size(1))

    def scores(z, key):
        return model.decode(z, sp[key]).numpy()

    best_auc, best_epoch, best, times = -1.0, 0, None, []
    for epoch in range(1, a.epochs + 1):
        model.train()
        t0 = time.perf_counter()
        opt.zero_grad()
        z = model.encode(x, edge_index)
        neg = negative_sampling(edge_index, num_nodes=n,
                                num_neg_samples=train.size(1), method='sparse')
        out = model.decode(z, torch.cat([train, neg], dim=1))
        loss = criterion(out, torch.cat([ones, ones.new_zeros(neg.size(1))]))
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)

        model.eval()
        with torch.no_grad():
            z = model.encode(x, edge_index)
            val_auc = roc_auc_score(*labelled(scores(z, 'val'),
                                              scores(z, 'val_negatives')))
            if val_auc > best_auc:
                best_auc, best_epoch = val_auc, epoch
                best = scores(z, 'test'), scores(z, 'test_negatives')

    hits50, mrr = ranking_metrics(*best)
    r = dict(roc_auc=roc_auc_score(*labelled(*best)),
             average_precision=average_precision_score(*labelled(*best)),
             hits50=hits50, mrr=mrr, best_epoch=best_epoch, epochs=a.epochs,
             val_roc_auc=best_auc,
             median_epoch_ms=1e3 * statistics.median(times),
             peak_rss_mb=resource.getrusage(
                 resource.RUSAGE_SELF).ru_maxrss / 1024, split=a.split)
    print(json.dumps(r))
    print(f'pyg gcn-gae {a.split}: test AUC {r["roc_auc"]:.4f} AP '
          f'{r["average_precision"]:.4f} Hits@50 {hits50:.4f} MRR {mrr:.4f} '
          f'(val AUC {best_auc:.4f} @ epoch {best_epoch}/{a.epochs}); median '
          f'epoch {r["median_epoch_ms"]:.2f} ms, peak RSS '
          f'{r["peak_rss_mb"]:.0f} MB, {time.perf_counter() - t_start:.1f} s',
          file=sys.stderr)


if __name__ == '__main__':
    main()

/// \file
/// Node classification on graphs too large to run whole: mini-batch training on sampled neighbourhoods
/// (graph/sampling.hpp), and exact inference layer by layer.
///
/// Training: each epoch shuffles the training nodes and takes them batch_size at a time as seeds. A
/// batch samples its blocks, gathers the features of their nodes (as sparse rows where they are bags
/// of words, NodeSource::gather_sparse_features), runs the network over the blocks
/// (NodeClassifier::forward_blocks) and takes one Adam step on the seeds' mean cross-entropy. A
/// background thread samples and gathers the next batch while the network runs on this one. The
/// validation nodes are scored after every epoch in inference mode, on sampled blocks with the same
/// draws every epoch, or exactly (layer by layer, SamplingOptions::exact_validation);
/// early stopping, checkpoints and logs are full-batch training's (models/node_training.hpp). The
/// training accuracy reported is that of the epoch's batches, with dropout, which costs no extra pass.
/// Every draw comes from seeds derived from options.seed, the epoch and the batch, so the same seed,
/// data and thread count give the same weights, resumed or not.
///
/// Inference runs one layer at a time over all nodes, in batches of nodes whose in-edges add up to
/// about inference_edges: each batch gathers its nodes' in-neighbours' rows of the previous layer's
/// output (or of the features) and runs the layer on exactly those edges. It gives the full-batch
/// forward's outputs up to the order of float sums, holding two [N, width] matrices and one batch
/// instead of every layer's activations.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "edgewise/core/tensor.hpp"
#include "edgewise/splits/splits.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/models/node_classifier.hpp"
#include "edgewise/models/node_training.hpp"

namespace edgewise {

/// The graph mini-batches read: its in-edges, and node features by rows, from memory or a
/// memory-mapped store. gather_features fills [nodes.size(), feature_dim] row-major; both gathers may
/// be called from a background thread.
struct NodeSource {
  InEdges in_edges;       ///< the graph attention runs on
  Index feature_dim = 0;  ///< width of a feature row
  std::function<void(std::span<const NodeId> nodes, float* out)> gather_features;  ///< rows of `nodes`
  /// Set where the features are mostly zeros (bags of words): the rows of `nodes` as a sparse matrix,
  /// which batches then use, so that their first layer's dropout and projection cost in proportion
  /// to the non-zeros instead of to feature_dim.
  std::function<void(std::span<const NodeId> nodes, SparseMatrix<float>& out)> gather_sparse_features = {};
  bool self_loops = true;  ///< whether the graph gives every node a self-loop (NeighborSampler)
};

/// A NodeSource viewing `graph` and `features` [N, feature_dim], whose rows must outlive it; features
/// mostly of zeros are also copied as sparse rows, which batches gather.
NodeSource node_source(const Graph& graph, const ConstRowsRef<float>& features, bool self_loops = true);
/// The same over CSR viewed elsewhere (a LinkGraph, a graph store).
NodeSource node_source(InEdges in_edges, const ConstRowsRef<float>& features, bool self_loops = true);

/// Settings of sampled training and layer-wise inference.
struct SamplingOptions {
  Index batch_size = 1024;          ///< seed nodes a training step
  std::vector<Index> fanouts = {};  ///< one per layer, seeds first (NeighborSampler); empty: default_fanouts
  Index inference_edges = Index{1} << 20;  ///< in-edges per batch of layer-wise inference
  /// Score the validation nodes exactly, by layer-wise inference over all nodes, instead of on sampled
  /// blocks: worth its cost where a whole-graph pass is cheap beside an epoch of batches.
  bool exact_validation = false;
};

/// 15 neighbours of each seed and 10 at every further hop, as PyTorch Geometric's examples sample.
std::vector<Index> default_fanouts(Index layers);

/// Trains `model` as train_node_classifier does (same options, callbacks, checkpoints and result), on
/// sampled mini-batches of `graph`. labels: [N]. Throws ArgumentError on inconsistent inputs or
/// sampling options (a fan-out list whose length is not the number of layers, a batch size below 1),
/// and DivergenceError as train_node_classifier does.
///
/// Given the collectives of several processes, every process must call it alike: the graph is cut
/// into one part a process by METIS (rank 0's cut), and each process samples and runs the seeds of
/// every batch that its part owns, its loss weighted by their share of the batch; the gradients are
/// summed before every step. A node's neighbours are drawn as one process draws them where it is
/// reached at the same hop (always, with fan-outs of every neighbour, which then give the one-process
/// model up to the order of float sums).
NodeTrainingResult train_node_classifier_sampled(NodeClassifier<float>& model, Parameters<float>& params,
                                                 const NodeSource& graph, std::span<const Index> labels,
                                                 const Split& split, const NodeTrainingOptions& options = {},
                                                 const SamplingOptions& sampling = {},
                                                 const std::function<void(const NodeEpochReport&)>& on_epoch = {},
                                                 const TrainingCheckpoints& checkpoints = {},
                                                 const Collectives& processes = single_process());

/// The logits of every node, [N, classes], layer by layer (see the file comment).
Matrix<float> layerwise_logits(NodeClassifier<float>& model, const NodeSource& graph,
                               const SamplingOptions& sampling = {});

/// The hidden representation of every node (NodeClassifier::hidden), [N, hidden_dim()], layer by layer.
Matrix<float> layerwise_hidden(NodeClassifier<float>& model, const NodeSource& graph,
                               const SamplingOptions& sampling = {});

}  // namespace edgewise

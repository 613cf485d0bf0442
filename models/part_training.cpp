// Full-batch node training across the processes of a run: every process holds one part of a METIS cut
// (graph/partition.hpp), either taken from rank 0's cut of the graph's in-edges, which it views, or
// from a part store; it reads the features of its own nodes and its halo only, and runs the network
// on them. After each hidden layer the processes exchange the halo
// rows of its output, and before its backward the halo rows of the gradient, so that every own node
// gets the one-process value of every layer. The loss is the mean over all training nodes: each
// process's mean is weighted by its share of them, the parameter gradients are summed, and every
// process takes the same Adam step. The dropout masks are drawn by node id (Mode::node_ids), so each
// part drops what the whole graph drops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/graph/partition.hpp"
#include "node_common.hpp"

namespace edgewise::detail {

namespace {

void log_cut_sizes(const Logger& log, Index cut, Index edges, const std::vector<Index>& own,
                   const std::vector<Index>& halo, const std::vector<Index>& training) {
  log.normal("graph cut into " + std::to_string(own.size()) + " parts by METIS, one a process: " + std::to_string(cut) +
             " of " + std::to_string(edges) + " edges cross parts; own nodes " + join(own, " ") + ", halo nodes " +
             join(halo, " ") + ", training nodes " + join(training, " "));
}

// Each process's `value`, in rank order.
std::vector<Index> per_process(Index value, const Collectives& processes) {
  std::vector<Index> values;
  for (int rank = 0; rank < processes.size(); ++rank)
    values.push_back(static_cast<Index>(
        processes.sum(rank == processes.rank() ? static_cast<std::uint64_t>(value) : std::uint64_t{0})));
  return values;
}

}  // namespace

void log_cut(const Logger& log, const InEdges& in_edges, std::span<const std::int32_t> owner,
             std::span<const Index> training_nodes, int parts) {
  std::vector<Index> own, halo, training(static_cast<std::size_t>(parts), 0);
  for (const PartSizes& sizes : part_sizes(in_edges, owner, parts)) {
    own.push_back(sizes.nodes);
    halo.push_back(sizes.halo);
  }
  for (const Index node : training_nodes) ++training[static_cast<std::size_t>(owner[static_cast<std::size_t>(node)])];
  log_cut_sizes(log, cut_edges(in_edges, owner), in_edges.num_edges(), own, halo, training);
}

std::vector<std::int32_t> shared_partition(const InEdges& in_edges, const Collectives& processes) {
  std::string bytes;
  if (processes.rank() == 0) {
    const std::vector<std::int32_t> owner = partition_graph(in_edges, processes.size());
    bytes.assign(reinterpret_cast<const char*>(owner.data()), owner.size() * sizeof(std::int32_t));
  }
  processes.from_rank_0(bytes);
  std::vector<std::int32_t> owner(static_cast<std::size_t>(in_edges.num_nodes()));
  if (bytes.size() != owner.size() * sizeof(std::int32_t))
    throw Error("node training: rank 0's partition has " + std::to_string(bytes.size()) + " bytes for " +
                std::to_string(in_edges.num_nodes()) + " nodes");
  std::memcpy(owner.data(), bytes.data(), bytes.size());
  return owner;
}

namespace {

// The halo rows of a part, exchanged with the processes that own them (Collectives::exchange), for
// the model's layers while it lives.
class HaloExchange final : public HaloRows<float> {
 public:
  HaloExchange(NodeClassifier<float>& model, const GraphPart& part, const Collectives& processes)
      : model_(model), part_(part), processes_(processes) {
    model_.set_halo(this);
  }
  ~HaloExchange() override { model_.set_halo(nullptr); }
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  void fill(Matrix<float>& rows) override {
    const Index width = rows.cols();
    sent_.resize(static_cast<std::size_t>(sent_row_count() * width));
    float* next = sent_.data();
    for (const auto& part_rows : part_.sent_rows)
      for (const Index r : part_rows) next = std::copy_n(rows.row(r).data(), width, next);
    processes_.exchange(sent_, counts(sent_counts(), width), halo_of(rows), counts(part_.halo_counts, width));
  }

  void return_gradients(Matrix<float>& gradient) override {
    const Index width = gradient.cols();
    sent_.resize(static_cast<std::size_t>(sent_row_count() * width));
    processes_.exchange(halo_of(gradient), counts(part_.halo_counts, width), sent_, counts(sent_counts(), width));
    gradient.bottomRows(part_.rows() - part_.owned).setZero();
    const float* next = sent_.data();
    for (const auto& part_rows : part_.sent_rows)
      for (const Index r : part_rows) {
        gradient.row(r) += ConstRowVectorMap(next, width);
        next += width;
      }
  }

 private:
  using ConstRowVectorMap = Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>;

  std::span<float> halo_of(Matrix<float>& rows) const {
    return {rows.data() + part_.owned * rows.cols(), static_cast<std::size_t>((part_.rows() - part_.owned) * rows.cols())};
  }
  Index sent_row_count() const {
    Index total = 0;
    for (const auto& rows : part_.sent_rows) total += static_cast<Index>(rows.size());
    return total;
  }
  std::vector<Index> sent_counts() const {
    std::vector<Index> result;
    for (const auto& rows : part_.sent_rows) result.push_back(static_cast<Index>(rows.size()));
    return result;
  }
  // Row counts as value counts of rows `width` wide.
  std::vector<std::size_t> counts(const std::vector<Index>& rows, Index width) const {
    std::vector<std::size_t> result;
    for (const Index count : rows) result.push_back(static_cast<std::size_t>(count * width));
    return result;
  }

  NodeClassifier<float>& model_;
  const GraphPart& part_;
  const Collectives& processes_;
  std::vector<float> sent_;
};

// Each own row's entry of `whole` ([N], by node), then -1 for every halo row.
std::vector<Index> rows_of(const GraphPart& part, const std::vector<Index>& whole) {
  std::vector<Index> result(static_cast<std::size_t>(part.rows()), -1);
  for (Index r = 0; r < part.owned; ++r) result[static_cast<std::size_t>(r)] = whole[static_cast<std::size_t>(part.nodes[r])];
  return result;
}

// Features [part rows, in_dim].
void check_part_features(const NodeClassifier<float>& model, const GraphPart& part, const Matrix<float>& features) {
  if (features.rows() != part.rows() || features.cols() != model.options().in_dim)
    throw ArgumentError("node classification on a part: features [" + std::to_string(features.rows()) + ", " +
                        std::to_string(features.cols()) + "] for a part of " + std::to_string(part.rows()) +
                        " rows and a model taking " + std::to_string(model.options().in_dim) + " features");
}

// Features as above, and targets [part rows] of the model's classes.
void check_part_rows(const NodeClassifier<float>& model, const GraphPart& part, const PartRows& rows) {
  check_part_features(model, part, rows.features);
  for (const auto* targets : {&rows.train_targets, &rows.val_targets}) {
    if (static_cast<Index>(targets->size()) != part.rows())
      throw ArgumentError("node training on a part: " + std::to_string(targets->size()) + " targets for " +
                          std::to_string(part.rows()) + " rows");
    for (const Index target : *targets)
      if (target >= model.options().classes)
        throw ArgumentError("node training on a part: class " + std::to_string(target) + " of a model of " +
                            std::to_string(model.options().classes) + " classes");
  }
}

// Logs the cut as log_cut does, from every process's part.
void log_part(const Logger& log, const GraphPart& part, std::span<const Index> train_targets,
              const Collectives& processes) {
  Index cut = 0;
  const InEdges edges = part.graph.in_edges();
  for (const NodeId source : edges.sources) cut += source >= part.owned;
  log_cut_sizes(log, static_cast<Index>(processes.sum(static_cast<std::uint64_t>(cut))),
                static_cast<Index>(processes.sum(static_cast<std::uint64_t>(edges.num_edges()))),
                per_process(part.owned, processes), per_process(part.rows() - part.owned, processes),
                per_process(count_targets(train_targets), processes));
}

}  // namespace
}  // namespace edgewise::detail

namespace edgewise {

NodeTrainingResult train_node_classifier_on_part(NodeClassifier<float>& model, Parameters<float>& params,
                                                 const GraphPart& part, PartRows rows, const Split& split,
                                                 const NodeTrainingOptions& options,
                                                 const std::function<void(const NodeEpochReport&)>& on_epoch,
                                                 const TrainingCheckpoints& checkpoints, const Collectives& processes) {
  using namespace detail;
  check_node_training_options(options);
  check_part_rows(model, part, rows);
  if (split.train.empty()) throw ArgumentError("node training: the training split is empty");
  const Logger log(options.log);
  log_part(log, part, rows.train_targets, processes);
  const HaloExchange halo(model, part, processes);
  FullBatchTrainer trainer(model, params, part.graph, rows.features, std::move(rows.train_targets),
                           std::move(rows.val_targets), options, processes, part.nodes);
  NodeTrainingResult result = run_node_epochs(trainer, params, split, options, on_epoch, checkpoints);
  log.verbose("peak memory of each process (MB): " + join(per_process(std::lround(peak_rss_mb()), processes), " "));
  return result;
}

NodeTrainingResult train_node_classifier_on_parts(NodeClassifier<float>& model, Parameters<float>& params,
                                                  const InEdges& graph, const FeatureRows& features,
                                                  std::span<const Index> labels, const Split& split,
                                                  const NodeTrainingOptions& options,
                                                  const std::function<void(const NodeEpochReport&)>& on_epoch,
                                                  const TrainingCheckpoints& checkpoints,
                                                  const Collectives& processes) {
  using namespace detail;
  check_node_training_options(options);
  if (static_cast<Index>(labels.size()) != graph.num_nodes())
    throw ArgumentError("node classification: " + std::to_string(labels.size()) + " labels for " +
                        std::to_string(graph.num_nodes()) + " nodes");
  const Index classes = model.options().classes;
  const GraphPart part = graph_part(graph, shared_partition(graph, processes), processes.rank(), processes.size());
  PartRows rows{.features = Matrix<float>(part.rows(), model.options().in_dim),
                .train_targets = rows_of(part, part_targets(labels, split.train, classes, "training")),
                .val_targets = rows_of(part, part_targets(labels, split.val, classes, "validation"))};
  features(part.nodes, rows.features.data());
  return train_node_classifier_on_part(model, params, part, std::move(rows), split, options, on_epoch, checkpoints,
                                       processes);
}

Matrix<float> part_logits(NodeClassifier<float>& model, const GraphPart& part, const Matrix<float>& features,
                          const Collectives& processes) {
  detail::check_part_features(model, part, features);
  const detail::HaloExchange halo(model, part, processes);
  const std::optional<SparseMatrix<float>> sparse = detail::sparse_copy_if_sparse(features);
  const Matrix<float>& logits = sparse ? model.forward(part.graph, *sparse, Mode::inference())
                                       : model.forward(part.graph, features, Mode::inference());
  return logits.topRows(part.owned);
}

}  // namespace edgewise

/// \file
/// Link prediction on one graph: a node encoder (a NodeClassifier whose output rows are the nodes'
/// embeddings) and a scorer that turns a pair of embeddings into the logit of the pair being linked
/// (their dot product, an MLP on their element-wise product, or the two summed), trained by binary
/// cross-entropy on the training links against as many pairs that are no link, drawn afresh every
/// epoch (the graph auto-encoder of Kipf and Welling 2016, with attention layers as the encoder).
/// The encoder sees only the training links (splits/link_split.hpp).
///
///   NodeClassifier<float> encoder(params, {.in_dim = F, .classes = 64, ...});  // 64-wide embeddings
///   LinkScorer scorer(params, PairScorer::dot, 64);
///   encoder.reset_parameters(rng);
///   scorer.reset_parameters(rng);
///   Graph seen = Graph::from_pairs(N, split.train, {.symmetrize = true, .add_self_loops = true});
///   const EncoderInput input(features);  // or EncoderInput(features, true): a learned vector per node too
///   train_link_predictor(encoder, scorer, params, seen, input, split, {});
///   const Matrix<float> z = node_embeddings(encoder, seen, input);
///   LinkMetrics test = link_metrics(scorer.scores(z, split.test), scorer.scores(z, split.test_negatives));
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/log.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/models/layers.hpp"
#include "edgewise/models/node_classifier.hpp"
#include "edgewise/models/training_state.hpp"
#include "edgewise/splits/link_split.hpp"

namespace edgewise {

/// The dot products of the pairs' embeddings [N, D]: one score a pair, the logit of a link.
std::vector<float> link_scores(const Matrix<float>& embeddings, std::span<const NodePair> pairs);

/// How a pair of embeddings becomes the logit of a link.
enum class PairScorer {
  dot,  ///< their dot product
  mlp,  ///< w2ᵀ relu(W1 (z_a ⊙ z_b) + b1) + b2, an MLP on their element-wise product, as wide as an embedding
  dot_mlp,  ///< the two summed: the dot product, and the MLP learning what it leaves out
};

/// The names of the pair scorers, as options and model files write them.
inline constexpr std::pair<PairScorer, std::string_view> kPairScorerNames[] = {
    {PairScorer::dot, "dot"}, {PairScorer::mlp, "mlp"}, {PairScorer::dot_mlp, "dot_mlp"}};

/// Scores pairs of node embeddings [N, D] as `kind` says. The MLP's weights are registered in the
/// parameters given (which must outlive the scorer) and train with the encoder's; the dot product
/// has none. Keeps the last scores' inputs for backward. Not thread-safe.
class LinkScorer {
 public:
  /// Throws ArgumentError for an embedding width below 1.
  LinkScorer(Parameters<float>& params, PairScorer kind, Index embedding_dim);
  /// The MLP's weights Glorot-uniform from rng, its biases 0; nothing for the dot product.
  void reset_parameters(SplitMix64& rng);
  /// The kind of scorer.
  PairScorer kind() const { return kind_; }

  /// One logit a pair. Throws ArgumentError for a pair naming a node outside the embeddings or
  /// embeddings of another width.
  std::vector<float> scores(const Matrix<float>& embeddings, std::span<const NodePair> pairs);
  /// Given the gradient of a loss by each of the last scores(), adds its gradient by the embeddings
  /// to dembeddings ([N, D], set by the caller) and by the MLP's weights to the parameters' gradients.
  void backward(std::span<const float> dscores, Matrix<float>& dembeddings);

 private:
  PairScorer kind_;
  Index dim_;
  std::unique_ptr<Linear<float>> hidden_, output_;  // the MLP's layers; null for the dot product
  const Matrix<float>* embeddings_ = nullptr;       // of the last scores()
  std::vector<NodePair> pairs_;
  Matrix<float> products_, activations_, dactivations_, dscores_;
};

/// Mean binary cross-entropy of the scores of `links` (label 1) and `non_links` (label 0) together;
/// sets dembeddings [N, D] to its gradient by the embeddings, and adds its gradient by the scorer's
/// weights to their gradients. Throws ArgumentError when both are empty.
double link_loss(LinkScorer& scorer, Matrix<float>& dembeddings, const Matrix<float>& embeddings,
                 std::span<const NodePair> links, std::span<const NodePair> non_links);

/// How well scores tell links from non-links.
struct LinkMetrics {
  double roc_auc = 0;            ///< the chance a link outscores a non-link, ties counting one half
  double average_precision = 0;  ///< scikit-learn's average_precision_score, links the positives
  Index hits_k = 0;              ///< the K of hits
  /// Hits at K as OGB reports it: the fraction of links that score above the K-th highest non-link
  /// score; NaN with fewer than K non-links, where every link would count as a hit.
  double hits = 0;
  /// Mean over links of 1 / rank, the rank among the non-links 1 + those scoring higher + half those
  /// scoring the same (OGB's mean reciprocal rank, against one shared set of non-links).
  double mrr = 0;
};

/// The scores of links against those of non-links. Throws ArgumentError when either is empty.
LinkMetrics link_metrics(std::span<const float> link_scores, std::span<const float> non_link_scores,
                         Index hits_k = 50);

/// A node and its link score with another.
struct ScoredNode {
  Index node = 0;  ///< the node suggested
  float score = 0;  ///< the logit of a link (link_scores)
};

/// The `k` nodes whose link with `node` `scorer` scores highest (embeddings [N, D]), best first (ties:
/// the smaller node), leaving out `node` itself and its `partners`, the nodes it is linked to already
/// (its in-neighbours in an undirected graph's CSR): suggestions of new partners. Fewer when fewer
/// nodes are left. Throws ArgumentError for a node outside [0, N) or a negative k.
std::vector<ScoredNode> recommend_links(LinkScorer& scorer, const Matrix<float>& embeddings, Index node, Index k,
                                        std::span<const NodeId> partners);

/// What the encoder reads for each node: its feature row and, with identity features, its one-hot
/// id, a column per node, through which every node learns a vector of its own (the first layer's
/// weights in that column), as PyTorch Geometric's link example gives a graph without features. A
/// model with identity features knows only the nodes it was trained on, by their ids. The rows are
/// read as a sparse matrix when mostly zeros, as node training reads them; with identity features
/// always. Refers to `features`, which must outlive it.
class EncoderInput {
 public:
  /// `features` [N, F], with `identity` followed by the N columns of the node ids.
  explicit EncoderInput(const ConstRowsRef<float>& features, bool identity = false);
  /// The nodes, one row each.
  Index rows() const { return features_.rows(); }
  /// The encoder's input width: the features', and one per node with identity features.
  Index cols() const { return identity_ ? features_.cols() + features_.rows() : features_.cols(); }
  /// Whether the node ids follow the features.
  bool identity() const { return identity_; }
  /// The encoder's output on `graph` for these rows.
  const Matrix<float>& forward(NodeClassifier<float>& encoder, const Graph& graph, Mode mode) const;

 private:
  ConstRowsRef<float> features_;
  bool identity_;
  std::optional<SparseMatrix<float>> sparse_;  // the rows again when mostly zeros, ids appended
};

/// Every node's embedding: the encoder's output rows in inference mode, [N, encoder's classes].
Matrix<float> node_embeddings(NodeClassifier<float>& encoder, const Graph& graph, const EncoderInput& input);

/// How training draws its non-links.
enum class NonLinkSampling {
  uniform,  ///< pairs of nodes drawn uniformly (draw_non_links)
  degree,   ///< nodes drawn in proportion to their training links (draw_degree_weighted_non_links)
};

/// The names of the ways of drawing non-links, as options and model files write them.
inline constexpr std::pair<NonLinkSampling, std::string_view> kNonLinkSamplingNames[] = {
    {NonLinkSampling::uniform, "uniform"}, {NonLinkSampling::degree, "degree"}};

/// A figure of LinkMetrics, as validation judges epochs by it.
enum class LinkMetric {
  roc_auc,            ///< LinkMetrics::roc_auc
  average_precision,  ///< LinkMetrics::average_precision
  hits,               ///< LinkMetrics::hits, at K = 50
  mrr,                ///< LinkMetrics::mrr
};

/// The names of the link metrics, as options, logs and model files write them.
inline constexpr std::pair<LinkMetric, std::string_view> kLinkMetricNames[] = {
    {LinkMetric::roc_auc, "roc_auc"}, {LinkMetric::average_precision, "average_precision"},
    {LinkMetric::hits, "hits@50"}, {LinkMetric::mrr, "mrr"}};

/// The figure of `metrics` that `metric` names.
double link_metric_value(const LinkMetrics& metrics, LinkMetric metric);

/// The short name an epoch line gives `metric`'s validation figure: "val auc", "val ap", "val hits@50", "val mrr".
std::string_view validation_label(LinkMetric metric);

/// `metric` as messages name it: "ROC-AUC", "average precision", "Hits@50", "MRR".
std::string_view link_metric_title(LinkMetric metric);

/// Throws ArgumentError when `metric` cannot judge epochs on `non_links` validation non-links:
/// Hits@50 with 1 to 49 of them.
void check_validation_metric(LinkMetric metric, std::size_t non_links);

/// The validation figure that judges epochs where none is given: Hits@50 for an encoder with identity
/// features, when there are at least 50 validation non-links to rank; else ROC-AUC. A learned vector
/// for each node goes on sharpening the top of the ranking after the ROC-AUC, a figure of the whole
/// ranking, has peaked, and a suggestion is the top of a ranking (docs/defaults.md has the runs).
LinkMetric default_link_metric(bool identity_features, std::size_t validation_non_links);

/// How train_link_predictor trains.
struct LinkTrainingOptions {
  Index epochs = 300;            ///< full-batch steps at most
  double learning_rate = 0.01;   ///< Adam's
  double weight_decay = 0;       ///< Adam's L2 term
  Index patience = 50;           ///< epochs without a better validation figure before stopping
  /// The validation figure that chooses the epoch kept; unset: default_link_metric. Hits@50 needs at
  /// least 50 validation non-links.
  std::optional<LinkMetric> metric = std::nullopt;
  NonLinkSampling non_links = NonLinkSampling::uniform;  ///< how each epoch's non-links are drawn
  std::uint64_t seed = 0;        ///< of the training non-links and the dropout masks
  LogSettings log = {};          ///< normal: a line an epoch; verbose: also why training stopped
};

/// What one epoch of link training gave.
struct LinkEpochReport {
  Index epoch = 0;          ///< 1-based
  double train_loss = 0;    ///< of the step, with dropout, against that epoch's non-links
  double val_score = 0;     ///< the validation figure LinkTrainingResult::metric names; NaN without validation links
  double seconds = 0;       ///< since training started
  bool improved = false;    ///< whether this epoch's weights are kept for now
};

/// One line of the epoch log: "epoch   12  loss 0.5123  val auc 0.912 *  0.4 s", the figure named by
/// `label` (validation_label).
std::string link_epoch_line(const LinkEpochReport& report, std::string_view label = "val auc");

/// The outcome of train_link_predictor.
struct LinkTrainingResult {
  std::vector<LinkEpochReport> history;  ///< one report an epoch run
  Index epochs_run = 0;  ///< epochs trained, the last included
  Index best_epoch = 0;  ///< whose weights the encoder keeps
  double best_val_score = std::numeric_limits<double>::quiet_NaN();  ///< of metric; NaN without validation links
  LinkMetric metric = LinkMetric::roc_auc;  ///< the validation figure that chose the epoch: given, or the default
};

/// Trains `encoder` and `scorer` (their parameters in params) on split.train's links: each epoch one
/// Adam step on link_loss against as many non-links of the training links, drawn as options say
/// from a stream of (seed, epoch), then the validation links scored against split.val_negatives;
/// keeps the weights of the epoch of the best validation figure of options.metric, or of
/// default_link_metric (the last without validation links). graph: the graph the encoder sees, built
/// from split.train alone; input: a row per node of the graph, in_dim wide. Throws ArgumentError
/// without training links or on inputs that do not fit, DivergenceError when a step's loss or
/// gradient is not finite.
LinkTrainingResult train_link_predictor(NodeClassifier<float>& encoder, LinkScorer& scorer, Parameters<float>& params,
                                        const Graph& graph, const EncoderInput& input, const LinkSplit& split,
                                        const LinkTrainingOptions& options,
                                        const std::function<void(const LinkEpochReport&)>& on_epoch = {});

}  // namespace edgewise

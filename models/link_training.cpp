#include "edgewise/models/link_training.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/metrics.hpp"
#include "node_common.hpp"

namespace edgewise {
namespace {

using detail::kNaN;
using detail::ValidationScores;
using detail::sparse_copy_if_sparse;

void check_pairs(const Matrix<float>& embeddings, std::span<const NodePair> pairs) {
  for (const auto& [a, b] : pairs)
    if (a < 0 || b < 0 || a >= embeddings.rows() || b >= embeddings.rows())
      throw ArgumentError("link scores: pair (" + std::to_string(a) + ", " + std::to_string(b) +
                          ") names a node beyond the " + std::to_string(embeddings.rows()) + " embedded");
}

// [features | I]: each row's nonzero features, then a 1 in its own id's column.
SparseMatrix<float> with_identity_columns(const ConstRowsRef<float>& features) {
  const Index rows = features.rows(), cols = features.cols();
  SparseMatrix<float> input(rows, cols + rows);
  Eigen::VectorX<Index> row_nonzeros = (features.array() != 0.0f).rowwise().count().cast<Index>();
  input.reserve((row_nonzeros.array() + 1).matrix());
  for (Index row = 0; row < rows; ++row) {
    for (Index col = 0; col < cols; ++col)
      if (features(row, col) != 0.0f) input.insert(row, col) = features(row, col);
    input.insert(row, cols + row) = 1.0f;
  }
  input.makeCompressed();
  return input;
}

// The non-links of epoch `epoch`, as many as the training links: a stream of their own for each
// epoch, so that a resumed run draws the same ones without keeping a generator's state.
std::vector<NodePair> epoch_non_links(const LinkSplit& split, Index nodes, LinkSet& known, NonLinkSampling sampling,
                                      std::uint64_t seed, Index epoch) {
  SplitMix64 rng(seed ^ (0xA24BAED4963EE407ULL * static_cast<std::uint64_t>(epoch)));
  const auto count = static_cast<Index>(split.train.size());
  std::vector<NodePair> drawn = sampling == NonLinkSampling::degree
                                    ? draw_degree_weighted_non_links(count, split.train, known, rng)
                                    : draw_non_links(count, nodes, known, rng);
  known.forget_inserted();
  return drawn;
}

// One Adam step a full-batch epoch on the training links, then the validation links' `metric`; the
// trainer run_epochs drives.
class LinkTrainer {
 public:
  LinkTrainer(NodeClassifier<float>& encoder, LinkScorer& scorer, Parameters<float>& params, const Graph& graph,
              const EncoderInput& input, const LinkSplit& split, const LinkTrainingOptions& options, LinkMetric metric)
      : encoder_(encoder),
        scorer_(scorer),
        params_(params),
        graph_(graph),
        input_(input),
        split_(split),
        train_links_(split.train),
        sampling_(options.non_links),
        metric_(metric),
        seed_(options.seed),
        steps_(params, options) {}

  double step(Index epoch) {
    params_.zero_grad();
    const Matrix<float>& embeddings = input_.forward(encoder_, graph_, Mode::train(steps_.dropout_rng));
    const std::vector<NodePair> non_links =
        epoch_non_links(split_, graph_.num_nodes(), train_links_, sampling_, seed_, epoch);
    const double loss = link_loss(scorer_, dembeddings_, embeddings, split_.train, non_links);
    encoder_.backward(dembeddings_);
    check_finite_step(params_, loss, epoch, 1);
    steps_.optimizer.step();
    return loss;
  }

  ValidationScores score(LinkEpochReport& report) {
    report.val_score = kNaN;
    if (split_.val.empty()) return {};
    const Matrix<float>& embeddings = input_.forward(encoder_, graph_, Mode::inference());
    const std::vector<float> links = scorer_.scores(embeddings, split_.val);
    report.val_score = link_metric_value(link_metrics(links, scorer_.scores(embeddings, split_.val_negatives)), metric_);
    return {.measured = true, .value = report.val_score, .loss = kNaN};
  }

  void save(TrainingState& state) const { steps_.save(state); }
  void restore(const TrainingState& state) { steps_.restore(state); }

 private:
  NodeClassifier<float>& encoder_;
  LinkScorer& scorer_;
  Parameters<float>& params_;
  const Graph& graph_;
  const EncoderInput& input_;
  const LinkSplit& split_;
  LinkSet train_links_;  // what training non-links must not be
  NonLinkSampling sampling_;
  LinkMetric metric_;
  std::uint64_t seed_;
  detail::StepState steps_;
  Matrix<float> dembeddings_;
};

}  // namespace

std::vector<float> link_scores(const Matrix<float>& embeddings, std::span<const NodePair> pairs) {
  check_pairs(embeddings, pairs);
  std::vector<float> scores(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p)
    scores[p] = embeddings.row(pairs[p].first).dot(embeddings.row(pairs[p].second));
  return scores;
}

LinkScorer::LinkScorer(Parameters<float>& params, PairScorer kind, Index embedding_dim)
    : kind_(kind), dim_(embedding_dim) {
  if (embedding_dim < 1) throw ArgumentError("link scorer: embeddings of width " + std::to_string(embedding_dim));
  if (kind == PairScorer::dot) return;
  hidden_ = std::make_unique<Linear<float>>(params, "scorer.hidden", embedding_dim, embedding_dim);
  output_ = std::make_unique<Linear<float>>(params, "scorer.output", embedding_dim, 1);
}

void LinkScorer::reset_parameters(SplitMix64& rng) {
  if (kind_ == PairScorer::dot) return;
  hidden_->reset_parameters(rng);
  output_->reset_parameters(rng);
}

std::vector<float> LinkScorer::scores(const Matrix<float>& embeddings, std::span<const NodePair> pairs) {
  check_pairs(embeddings, pairs);
  if (embeddings.cols() != dim_)
    throw ArgumentError("link scorer: embeddings " + std::to_string(embeddings.cols()) + " wide, expected " +
                        std::to_string(dim_));
  embeddings_ = &embeddings;
  pairs_.assign(pairs.begin(), pairs.end());
  if (kind_ == PairScorer::dot) return link_scores(embeddings, pairs);
  products_.resize(static_cast<Index>(pairs.size()), dim_);
  for (std::size_t p = 0; p < pairs.size(); ++p)
    products_.row(static_cast<Index>(p)) =
        embeddings.row(pairs[p].first).cwiseProduct(embeddings.row(pairs[p].second));
  activations_ = hidden_->forward(products_).cwiseMax(0.0f);
  const Matrix<float>& logits = output_->forward(activations_);
  std::vector<float> scores(logits.data(), logits.data() + logits.size());
  if (kind_ == PairScorer::dot_mlp)
    for (std::size_t p = 0; p < pairs.size(); ++p) scores[p] += products_.row(static_cast<Index>(p)).sum();
  return scores;
}

void LinkScorer::backward(std::span<const float> dscores, Matrix<float>& dembeddings) {
  const Matrix<float>& z = *embeddings_;
  if (kind_ == PairScorer::dot) {
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      const auto [a, b] = pairs_[p];
      dembeddings.row(a) += dscores[p] * z.row(b);
      dembeddings.row(b) += dscores[p] * z.row(a);
    }
    return;
  }
  dscores_ = Eigen::Map<const Matrix<float>>(dscores.data(), static_cast<Index>(dscores.size()), 1);
  dactivations_ = output_->backward(dscores_);
  dactivations_ = (activations_.array() > 0).select(dactivations_, 0.0f);
  const Matrix<float>& dproducts = hidden_->backward(dactivations_);
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const auto [a, b] = pairs_[p];
    // dot_mlp: the dot product is the products' sum, whose gradient by each of them is the score's.
    const float dsum = kind_ == PairScorer::dot_mlp ? dscores[p] : 0.0f;
    const auto dproduct = (dproducts.row(static_cast<Index>(p)).array() + dsum).matrix();
    dembeddings.row(a) += dproduct.cwiseProduct(z.row(b));
    dembeddings.row(b) += dproduct.cwiseProduct(z.row(a));
  }
}

double link_loss(LinkScorer& scorer, Matrix<float>& dembeddings, const Matrix<float>& embeddings,
                 std::span<const NodePair> links, std::span<const NodePair> non_links) {
  const std::size_t count = links.size() + non_links.size();
  if (count == 0) throw ArgumentError("link loss: no pairs to score");
  std::vector<NodePair> pairs(links.begin(), links.end());
  pairs.insert(pairs.end(), non_links.begin(), non_links.end());
  const std::vector<float> scores = scorer.scores(embeddings, pairs);
  std::vector<float> dscores(count);
  double sum = 0;
  for (std::size_t p = 0; p < count; ++p) {
    const double label = p < links.size() ? 1.0 : 0.0, score = scores[p];
    sum += softplus(score) - label * score;
    const double probability = std::exp(score - softplus(score));  // the logistic function of the score
    dscores[p] = static_cast<float>((probability - label) / static_cast<double>(count));
  }
  dembeddings.setZero(embeddings.rows(), embeddings.cols());
  scorer.backward(dscores, dembeddings);
  return sum / static_cast<double>(count);
}

LinkMetrics link_metrics(std::span<const float> link_scores, std::span<const float> non_link_scores, Index hits_k) {
  if (link_scores.empty() || non_link_scores.empty())
    throw ArgumentError("link metrics need links and non-links to score, got " + std::to_string(link_scores.size()) +
                        " and " + std::to_string(non_link_scores.size()));
  const auto links = static_cast<Index>(link_scores.size()), non_links = static_cast<Index>(non_link_scores.size());
  Matrix<float> scores(links + non_links, 1), labels(links + non_links, 1);
  for (Index i = 0; i < links; ++i) scores(i, 0) = link_scores[static_cast<std::size_t>(i)], labels(i, 0) = 1;
  for (Index i = 0; i < non_links; ++i)
    scores(links + i, 0) = non_link_scores[static_cast<std::size_t>(i)], labels(links + i, 0) = 0;
  const ClassificationMetrics ranked = classification_metrics(scores, labels);
  LinkMetrics metrics{
      .roc_auc = ranked.roc_auc, .average_precision = ranked.pr_auc, .hits_k = hits_k, .hits = kNaN, .mrr = 0};
  std::vector<float> descending(non_link_scores.begin(), non_link_scores.end());
  std::ranges::sort(descending, std::greater<>());
  if (hits_k <= non_links) {
    const float kth = descending[static_cast<std::size_t>(hits_k - 1)];
    metrics.hits = static_cast<double>(std::ranges::count_if(link_scores, [&](float s) { return s > kth; })) /
                   static_cast<double>(links);
  }
  double reciprocal_ranks = 0;
  for (const float score : link_scores) {
    // Non-links scoring above, and at least as high: descending's first elements.
    const auto above = std::ranges::lower_bound(descending, score, std::greater<>()) - descending.begin();
    const auto at_least = std::ranges::upper_bound(descending, score, std::greater<>()) - descending.begin();
    reciprocal_ranks += 1.0 / (1.0 + 0.5 * static_cast<double>(above + at_least));
  }
  metrics.mrr = reciprocal_ranks / static_cast<double>(links);
  return metrics;
}

std::vector<ScoredNode> recommend_links(LinkScorer& scorer, const Matrix<float>& embeddings, Index node, Index k,
                                        std::span<const NodeId> partners) {
  if (node < 0 || node >= embeddings.rows() || k < 0)
    throw ArgumentError("recommend: node " + std::to_string(node) + " of " + std::to_string(embeddings.rows()) +
                        " embedded, and k " + std::to_string(k) + " (at least 0)");
  // Candidates are scored a chunk at a time, keeping the best k so far, so that the memory a node's
  // suggestions take does not grow with the graph (the MLP scorer's products are a row a pair).
  constexpr Index kChunk = Index{1} << 16;
  const auto better = [](const ScoredNode& a, const ScoredNode& b) {
    return a.score != b.score ? a.score > b.score : a.node < b.node;
  };
  std::vector<NodeId> linked(partners.begin(), partners.end());
  std::ranges::sort(linked);
  std::vector<ScoredNode> best;
  std::vector<NodePair> pairs;
  for (Index start = 0; start < embeddings.rows(); start += kChunk) {
    pairs.clear();
    for (Index other = start; other < std::min(start + kChunk, embeddings.rows()); ++other)
      if (other != node && !std::ranges::binary_search(linked, static_cast<NodeId>(other))) pairs.emplace_back(node, other);
    if (pairs.empty()) continue;
    const std::vector<float> scores = scorer.scores(embeddings, pairs);
    for (std::size_t p = 0; p < pairs.size(); ++p) best.push_back({pairs[p].second, scores[p]});
    const auto kept = best.begin() + std::min(k, static_cast<Index>(best.size()));
    std::partial_sort(best.begin(), kept, best.end(), better);
    best.erase(kept, best.end());
  }
  return best;
}

EncoderInput::EncoderInput(const ConstRowsRef<float>& features, bool identity)
    : features_(features),
      identity_(identity),
      sparse_(identity ? std::optional(with_identity_columns(features)) : sparse_copy_if_sparse(features)) {}

const Matrix<float>& EncoderInput::forward(NodeClassifier<float>& encoder, const Graph& graph, Mode mode) const {
  return sparse_ ? encoder.forward(graph, *sparse_, mode) : encoder.forward(graph, features_, mode);
}

Matrix<float> node_embeddings(NodeClassifier<float>& encoder, const Graph& graph, const EncoderInput& input) {
  return input.forward(encoder, graph, Mode::inference());
}

double link_metric_value(const LinkMetrics& metrics, LinkMetric metric) {
  switch (metric) {
    case LinkMetric::average_precision: return metrics.average_precision;
    case LinkMetric::hits: return metrics.hits;
    case LinkMetric::mrr: return metrics.mrr;
    case LinkMetric::roc_auc: break;
  }
  return metrics.roc_auc;
}

std::string_view validation_label(LinkMetric metric) {
  switch (metric) {
    case LinkMetric::average_precision: return "val ap";
    case LinkMetric::hits: return "val hits@50";
    case LinkMetric::mrr: return "val mrr";
    case LinkMetric::roc_auc: break;
  }
  return "val auc";
}

std::string_view link_metric_title(LinkMetric metric) {
  switch (metric) {
    case LinkMetric::average_precision: return "average precision";
    case LinkMetric::hits: return "Hits@50";
    case LinkMetric::mrr: return "MRR";
    case LinkMetric::roc_auc: break;
  }
  return "ROC-AUC";
}

std::string link_epoch_line(const LinkEpochReport& report, std::string_view label) {
  char line[128];
  std::snprintf(line, sizeof line, "epoch %4lld  loss %.4f  %.*s %s%s  %.1f s", static_cast<long long>(report.epoch),
                report.train_loss, static_cast<int>(label.size()), label.data(), score_text(report.val_score, 4).c_str(),
                report.improved ? " *" : "  ", report.seconds);
  return line;
}

// The K of LinkMetric::hits: Hits@50 ranks against the 50th best non-link, so it needs 50 of them.
constexpr std::size_t kValidationHitsK = 50;

LinkMetric default_link_metric(bool identity_features, std::size_t validation_non_links) {
  return identity_features && validation_non_links >= kValidationHitsK ? LinkMetric::hits : LinkMetric::roc_auc;
}

void check_validation_metric(LinkMetric metric, std::size_t non_links) {
  if (metric == LinkMetric::hits && non_links > 0 && non_links < kValidationHitsK)
    throw ArgumentError("link training: hits@50 judges epochs by the 50th best of the validation non-links, and there "
                        "are " + std::to_string(non_links) + "; choose another metric or more validation links");
}

LinkTrainingResult train_link_predictor(NodeClassifier<float>& encoder, LinkScorer& scorer, Parameters<float>& params,
                                        const Graph& graph, const EncoderInput& input, const LinkSplit& split,
                                        const LinkTrainingOptions& options,
                                        const std::function<void(const LinkEpochReport&)>& on_epoch) {
  if (split.train.empty()) throw ArgumentError("link training: the split leaves no training links");
  if (options.epochs < 1 || options.patience < 1)
    throw ArgumentError("link training needs at least 1 epoch and a patience of at least 1");
  if (input.rows() != graph.num_nodes() || input.cols() != encoder.options().in_dim)
    throw ArgumentError("link training: the input is [" + std::to_string(input.rows()) + ", " +
                        std::to_string(input.cols()) + "] for a graph of " + std::to_string(graph.num_nodes()) +
                        " nodes and an encoder of " + std::to_string(encoder.options().in_dim) + " inputs");
  const LinkMetric metric = options.metric.value_or(default_link_metric(input.identity(), split.val_negatives.size()));
  check_validation_metric(metric, split.val_negatives.size());
  LinkTrainer trainer(encoder, scorer, params, graph, input, split, options, metric);
  const detail::EpochSettings settings{
      .epochs = options.epochs,
      .stopping = {.larger_better = true, .with_loss = false, .ties_count = false, .patience = options.patience},
      .log = options.log,
      .setup = "link training: " + std::to_string(split.train.size()) + " training links, as many non-links an epoch",
      .metric = validation_label(metric),
      .judged_by = "in validation " + std::string(link_metric_title(metric))};
  LinkTrainingResult result;
  result.best_val_score = detail::run_epochs(trainer, params, settings, {}, result, on_epoch).value;
  result.metric = metric;
  return result;
}

}  // namespace edgewise

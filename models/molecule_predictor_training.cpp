#include "edgewise/models/molecule_predictor_training.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>
#include <numeric>
#include <utility>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/models/optimizers.hpp"
#include "edgewise/models/training_state.hpp"
#include "epochs.hpp"

namespace edgewise {

TaskType parse_task_type(const std::string& name) { return value_named(kTaskTypeNames, name, "task type"); }

std::string to_string(TaskType type) { return name_of(kTaskTypeNames, type); }

void to_json(nlohmann::json& j, const TrainingOptions& options) {
  j = nlohmann::json{{"task_type", to_string(options.task_type)},
                     {"epochs", options.epochs},
                     {"batch_size", options.batch_size},
                     {"learning_rate", options.learning_rate},
                     {"warmup_epochs", options.warmup_epochs},
                     {"final_lr_ratio", options.final_lr_ratio},
                     {"weight_decay", options.weight_decay},
                     {"clip_norm", options.clip_norm},
                     {"patience", options.patience},
                     {"metric", options.metric},
                     {"seed", options.seed}};
  // Absent for point outputs, as in checkpoints written before the other distributions.
  if (options.distribution == OutputDistribution::gaussian) j["mean_variance"] = true;
  if (options.distribution == OutputDistribution::evidential) j["evidential"] = true;
}

std::string early_stopping_metric(const TrainingOptions& training, TaskType type) {
  if (!training.metric.empty()) return training.metric;
  return type == TaskType::regression ? "rmse" : "roc_auc";
}

namespace {

// The weight of evidential regression's error-times-evidence term: the value Soleimany et al. (2021)
// recommend for molecules.
constexpr double kEvidentialRegularization = 0.2;

// Mean-variance networks weight each molecule's likelihood by its variance to this power (beta-NLL):
// with the plain likelihood (0) the means learn little from molecules given a large variance, and
// cross-validated on ESOL, Lipophilicity and TPSA they predicted 3 % less well than networks trained
// by the squared error; at 0.5, as Seitzer et al. (2022) recommend, they predict as well and still
// rank their errors.
constexpr double kMeanVarianceBeta = 0.5;

// The named metric of predictions in the targets' units (probabilities for classification).
double evaluate(const std::string& metric, TaskType type, const Matrix<float>& predictions,
                const Matrix<float>& targets) {
  if (type == TaskType::regression) return main_metric(regression_metrics(predictions, targets), metric).value;
  return main_metric(classification_metrics(predictions, targets), metric).value;
}

// Linear warm-up from lr / 10 over warmup_epochs, then cosine decay to lr * final_lr_ratio at the
// end of the last epoch. progress counts epochs, fractional within one.
double scheduled_learning_rate(const TrainingOptions& options, double progress) {
  const double lr = options.learning_rate;
  const double warmup = std::min(options.warmup_epochs, static_cast<double>(options.epochs));
  if (progress < warmup) return lr * (0.1 + 0.9 * progress / warmup);
  const double decay_epochs = static_cast<double>(options.epochs) - warmup;
  const double t = decay_epochs > 0 ? std::min(1.0, (progress - warmup) / decay_epochs) : 1.0;
  const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * t));
  return lr * (options.final_lr_ratio + (1.0 - options.final_lr_ratio) * cosine);
}

void check_options(const TrainingOptions& options) {
  if (options.epochs < 1) throw ArgumentError("training: epochs must be at least 1");
  if (options.batch_size < 1) throw ArgumentError("training: batch size must be at least 1");
  if (!(options.learning_rate > 0)) throw ArgumentError("training: learning rate must be positive");
  if (!(options.final_lr_ratio >= 0 && options.final_lr_ratio <= 1))
    throw ArgumentError("training: final learning-rate ratio must lie in [0, 1]");
  if (options.warmup_epochs < 0) throw ArgumentError("training: warm-up epochs must not be negative");
  if (options.patience < 1) throw ArgumentError("training: patience must be at least 1");
  if (options.clip_norm < 0) throw ArgumentError("training: clip norm must not be negative");
  (void)larger_is_better(early_stopping_metric(options, options.task_type));  // rejects an unknown metric name
}

void check_set(const GraphSet& set, const MoleculePredictorOptions& network, const TrainingOptions& options,
               const char* name) {
  const Index tasks = network.tasks / outputs_per_target(options.distribution);
  if (set.targets.rows() != static_cast<Index>(set.graphs.size()) || set.targets.cols() != tasks) {
    throw ArgumentError(std::string("training: the ") + name + " targets must be [" +
                        std::to_string(set.graphs.size()) + ", " + std::to_string(tasks) + "], got [" +
                        std::to_string(set.targets.rows()) + ", " + std::to_string(set.targets.cols()) + "]");
  }
}

// The epochs of train_molecule_predictor (detail::run_epochs): one pass over the training set in shuffled
// minibatches, then the validation metric. Keeps its batch and gradient buffers between epochs, so that
// steady-state training does not allocate.
class MoleculeTrainer {
 public:
  MoleculeTrainer(MoleculePredictor<float>& model, Parameters<float>& params, const GraphSet& train,
               const GraphSet& validation, const TrainingOptions& options, const std::string& metric,
               const TargetScaling& scaling, const Collectives& processes)
      : model_(model),
        params_(params),
        train_(train),
        validation_(validation),
        options_(options),
        processes_(processes),
        metric_(metric),
        scaling_(scaling),
        targets_(scaling.to_scaled(train.targets)),
        optimizer_(params, AdamOptions{.lr = options.learning_rate, .weight_decay = options.weight_decay}),
        order_(train.graphs.size()),
        shuffle_rng_(options.seed ^ 0x5EEDBA7C4ULL),
        dropout_rng_(options.seed ^ 0xD50FULL) {
    std::iota(order_.begin(), order_.end(), std::size_t{0});
  }

  // Returns the mean batch loss. Throws DivergenceError (check_finite_step) when the loss or a gradient
  // stops being finite.
  double step(Index epoch) {
    shuffle();
    const std::size_t n = order_.size(), batch_size = static_cast<std::size_t>(options_.batch_size);
    const std::size_t batches = (n + batch_size - 1) / batch_size;
    double loss_sum = 0;
    for (std::size_t b = 0; b < batches; ++b) {
      const double progress = static_cast<double>(epoch - 1) + static_cast<double>(b + 1) / static_cast<double>(batches);
      optimizer_.set_learning_rate(scheduled_learning_rate(options_, progress));
      const std::size_t begin = b * batch_size, end = std::min(n, begin + batch_size);
      loss_sum += batch_step(begin, end, epoch, static_cast<Index>(b + 1));
    }
    return batches > 0 ? loss_sum / static_cast<double>(batches) : 0.0;
  }

  // Fills the optimizer's, the generators' and the order's part of `state`.
  void save(TrainingState& state) const {
    state.optimizer = optimizer_.state();
    state.shuffle_rng = shuffle_rng_.state();
    state.dropout_rng = dropout_rng_.state();
    state.order.assign(order_.begin(), order_.end());
  }

  void restore(const TrainingState& state) {
    if (state.order.size() != order_.size())
      throw ArgumentError("resume: the training state orders " + std::to_string(state.order.size()) +
                          " graphs, the training set has " + std::to_string(order_.size()));
    std::vector<bool> seen(order_.size(), false);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint64_t graph = state.order[i];
      if (graph >= order_.size() || seen[graph])
        throw ArgumentError("resume: the training state's graph order is not a permutation");
      seen[graph] = true;
      order_[i] = static_cast<std::size_t>(graph);
    }
    optimizer_.restore(state.optimizer);
    shuffle_rng_ = SplitMix64(state.shuffle_rng);
    dropout_rng_ = SplitMix64(state.dropout_rng);
  }

  // The learning rate of the epoch's last step, and the validation metric.
  detail::ValidationScores score(EpochReport& report) {
    report.learning_rate = optimizer_.learning_rate();
    const bool validating = !validation_.graphs.empty();
    report.validation =
        validating ? evaluate(metric_, options_.task_type,
                              predict(model_, validation_.graphs, options_.task_type, scaling_), validation_.targets)
                   : detail::kNaN;
    return {.measured = validating, .value = report.validation};
  }

 private:
  void shuffle() {
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[shuffle_rng_.below(i)]);
  }

  // The step on the batch order_[begin, end). With several processes (mpirun), each runs a slice
  // of the batch and the processes sum their gradients, so that together they take the one-process
  // step, up to the order of float sums.
  double batch_step(std::size_t begin, std::size_t end, Index epoch, Index batch) {
    params_.zero_grad();
    const double loss =
        processes_.size() > 1 ? slice_gradients(begin, end) : gradients(begin, end, Mode::train(dropout_rng_));
    // Float gradients' norm, summed in double, is finite exactly when every gradient is, so clipping's
    // pass over them is also the check; clip_grad_norm leaves them as they are when it is not finite.
    const bool clipped_finite = options_.clip_norm > 0 && std::isfinite(loss) &&
                                std::isfinite(clip_grad_norm(params_, options_.clip_norm));
    if (!clipped_finite) check_finite_step(params_, loss, epoch, batch);
    optimizer_.step();
    return loss;
  }

  // The batch's mean loss, its gradient by the outputs in doutputs_.
  double loss(const Matrix<float>& outputs, const MaskedTargets<float>& masked) {
    if (options_.task_type == TaskType::classification)
      return bce_with_logits_loss(doutputs_, outputs, masked.target, &masked.mask);
    switch (options_.distribution) {
      case OutputDistribution::point: return mse_loss(doutputs_, outputs, masked.target, &masked.mask);
      case OutputDistribution::gaussian:
        return gaussian_nll_loss(doutputs_, outputs, masked.target, &masked.mask, kMeanVarianceBeta);
      case OutputDistribution::evidential:
        return evidential_loss(doutputs_, outputs, masked.target, &masked.mask, kEvidentialRegularization);
    }
    throw ArgumentError("training: unknown output distribution");
  }

  // Accumulates the gradients of the mean loss over the batch order_[begin, end), times
  // output_scale, and returns that loss.
  double gradients(std::size_t begin, std::size_t end, Mode mode, std::span<const std::int32_t> graph_ids = {},
                   float output_scale = 1.0f) {
    batch_graphs_.clear();
    batch_targets_.resize(static_cast<Index>(end - begin), targets_.cols());
    for (std::size_t i = begin; i < end; ++i) {
      batch_graphs_.push_back(train_.graphs[order_[i]]);
      batch_targets_.row(static_cast<Index>(i - begin)) = targets_.row(static_cast<Index>(order_[i]));
    }
    batch_.assemble(batch_graphs_);
    const MaskedTargets<float> masked = mask_from_nan(batch_targets_);

    const Matrix<float>& outputs = model_.forward(batch_, mode, graph_ids);
    const double loss = this->loss(outputs, masked);
    if (output_scale != 1.0f) doutputs_ *= output_scale;
    model_.backward(doutputs_);
    return loss;
  }

  // This process's part of the step on order_[begin, end): a slice of the batch, the lower ranks
  // taking one more graph where it does not divide. Its atoms and graphs keep their rows in the whole
  // batch for dropout, and its mean loss is weighted by its share of the batch's observed targets.
  double slice_gradients(std::size_t begin, std::size_t end) {
    const auto processes = static_cast<std::size_t>(processes_.size());
    const auto rank = static_cast<std::size_t>(processes_.rank());
    const std::size_t length = end - begin, base = length / processes, extra = length % processes;
    const std::size_t first = begin + rank * base + std::min(rank, extra);
    const std::size_t last = first + base + (rank < extra ? 1 : 0);
    std::int32_t atom = 0;
    for (std::size_t i = begin; i < first; ++i) atom += static_cast<std::int32_t>(graph_at(i).graph.num_nodes());
    atom_ids_.clear();
    graph_ids_.clear();
    std::uint64_t observed = 0;
    for (std::size_t i = first; i < last; ++i) {
      graph_ids_.push_back(static_cast<std::int32_t>(i - begin));
      for (Index n = 0; n < graph_at(i).graph.num_nodes(); ++n) atom_ids_.push_back(atom++);
      const auto row = targets_.row(static_cast<Index>(order_[i]));
      observed += static_cast<std::uint64_t>(row.size() - row.array().isNaN().count());  // NaN: missing
    }
    const Collectives& all = processes_;
    const std::uint64_t all_observed = all.sum(observed);
    const double share = all_observed == 0 ? 0.0 : static_cast<double>(observed) / static_cast<double>(all_observed);
    double weighted_loss = 0;
    if (first < last)
      weighted_loss = share * gradients(first, last, Mode::train(dropout_rng_, atom_ids_), graph_ids_,
                                        static_cast<float>(share));
    // A process without a graph drew no dropout keys: every process takes rank 0's generator.
    dropout_rng_ = SplitMix64(all.from_rank_0(dropout_rng_.state()));
    all.sum_gradients(params_);
    return all.sum(weighted_loss);
  }

  const FeaturedGraph& graph_at(std::size_t position) const { return *train_.graphs[order_[position]]; }

  MoleculePredictor<float>& model_;
  Parameters<float>& params_;
  const GraphSet& train_;
  const GraphSet& validation_;
  const TrainingOptions& options_;
  const Collectives& processes_;
  const std::string& metric_;
  const TargetScaling& scaling_;
  Matrix<float> targets_;  // scaled
  AdamW<float> optimizer_;
  std::vector<std::size_t> order_;
  SplitMix64 shuffle_rng_;
  SplitMix64 dropout_rng_;
  std::vector<const FeaturedGraph*> batch_graphs_;
  std::vector<std::int32_t> atom_ids_, graph_ids_;  // a process's slice of the batch: rows in the whole batch
  FeaturedBatch batch_;
  Matrix<float> batch_targets_;
  Matrix<float> doutputs_;
};

}  // namespace

std::string epoch_line(const EpochReport& report, Index epochs, const std::string& metric) {
  char line[200];
  std::snprintf(line, sizeof line, "epoch %4lld/%lld  train loss %.4f  val %s %.4f%s  lr %.2e  %.1f s",
                static_cast<long long>(report.epoch), static_cast<long long>(epochs), report.train_loss,
                metric.c_str(), report.validation, report.improved ? " *" : "  ", report.learning_rate,
                report.seconds);
  return line;
}

TrainingResult train_molecule_predictor(MoleculePredictor<float>& model, Parameters<float>& params, const GraphSet& train,
                                     const GraphSet& validation, const TrainingOptions& options,
                                     const std::function<void(const EpochReport&)>& on_epoch,
                                     const TrainingCheckpoints& checkpoints, const Collectives& processes) {
  check_options(options);
  const Index outputs = outputs_per_target(options.distribution);
  if (outputs > 1 && (options.task_type != TaskType::regression || model.options().tasks % outputs != 0))
    throw ArgumentError("training: gaussian and evidential outputs need regression and " + std::to_string(outputs) +
                        " outputs a target");
  check_set(train, model.options(), options, "training");
  if (!validation.graphs.empty()) check_set(validation, model.options(), options, "validation");
  if (train.graphs.empty()) throw ArgumentError("training: the training set is empty");

  TrainingResult result;
  result.scaling = options.task_type == TaskType::regression ? TargetScaling::standardize(train.targets)
                                                             : TargetScaling::identity(train.targets.cols());
  const std::string metric = early_stopping_metric(options, options.task_type);
  const auto batches = (static_cast<Index>(train.graphs.size()) + options.batch_size - 1) / options.batch_size;
  const detail::EpochSettings settings{
      .epochs = options.epochs,
      .stopping = {.larger_better = larger_is_better(metric), .patience = options.patience},
      .log = options.log,
      .setup = "training on " + std::to_string(train.graphs.size()) + " graphs in " + std::to_string(batches) +
               " batches of up to " + std::to_string(options.batch_size) + ", validating on " +
               std::to_string(validation.graphs.size()) + " by " + metric + "; at most " +
               std::to_string(options.epochs) + " epochs, patience " + std::to_string(options.patience),
      .metric = metric,
      .judged_by = "of validation " + metric};
  MoleculeTrainer trainer(model, params, train, validation, options, metric, result.scaling, processes);
  result.best_validation = detail::run_epochs(trainer, params, settings, checkpoints, result, on_epoch).value;
  if (!validation.graphs.empty() && result.best_epoch == 0)
    throw ArgumentError("training: the validation " + metric + " was undefined (nan) in each of the " +
                        std::to_string(result.epochs_run) + " epochs, so no epoch could be kept as the best" +
                        (options.task_type == TaskType::classification
                             ? "; ROC-AUC needs both classes of a task among the validation molecules"
                             : ""));
  return result;
}

bool overfits(const TrainingResult& result, Index epoch_limit, bool larger_better) {
  const std::vector<EpochReport>& history = result.history;
  const auto best = std::ranges::find_if(history, [&](const EpochReport& r) { return r.epoch == result.best_epoch; });
  constexpr std::ptrdiff_t kWindow = 5;
  if (best == history.end() || result.best_epoch > std::max<Index>(kWindow, epoch_limit / 10) ||
      history.end() - best <= 2 * kWindow)
    return false;
  // Errors, lower is better, so that both directions of metric read alike.
  const auto error = [&](double value) { return larger_better ? 1.0 - value : value; };
  const auto mean_error = [&](auto first) {
    double sum = 0;
    for (auto r = first; r != first + kWindow; ++r) sum += error(r->validation);
    return sum / kWindow;
  };
  const double best_error = error(best->validation);
  const double after_best = mean_error(best + 1), last = mean_error(history.end() - kWindow);
  return last > after_best && last - best_error >= 0.1 * std::abs(best_error);
}

namespace {

// Rows [M, columns] of `graphs` in batches of batch_size, each batch's from rows_of(batch).
template <typename RowsOf>
Matrix<float> in_batches(std::span<const FeaturedGraph* const> graphs, Index batch_size, Index columns,
                         RowsOf rows_of) {
  EDGEWISE_CHECK(batch_size > 0);
  const auto n = static_cast<Index>(graphs.size());
  Matrix<float> rows(n, columns);
  FeaturedBatch batch;
  for (Index begin = 0; begin < n; begin += batch_size) {
    const Index count = std::min(batch_size, n - begin);
    batch.assemble(graphs.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(count)));
    rows.middleRows(begin, count) = rows_of(batch);
  }
  return rows;
}

// Dropout ids for a batch's atoms and molecules: each molecule's from a hash of its atom and bond
// features (its atoms' ids follow on from its own), kept in int32 as Mode::node_ids are.
void content_ids(const FeaturedBatch& batch, std::vector<std::int32_t>& atom_ids,
                 std::vector<std::int32_t>& graph_ids) {
  const std::span<const Index> nodes = batch.batch.node_offsets(), edges = batch.batch.edge_offsets();
  const auto rows_hash = [](const Matrix<float>& m, Index first, Index end, std::uint64_t seed) {
    const auto bytes = static_cast<std::size_t>((end - first) * m.cols()) * sizeof(float);
    return xxh3_64(m.data() + first * m.cols(), bytes, seed);
  };
  atom_ids.resize(static_cast<std::size_t>(batch.batch.num_nodes()));
  graph_ids.resize(static_cast<std::size_t>(batch.batch.num_graphs()));
  for (std::size_t g = 0; g < graph_ids.size(); ++g) {
    const std::uint64_t atoms = rows_hash(batch.node_features, nodes[g], nodes[g + 1], 0);
    const std::uint64_t key = rows_hash(batch.edge_features, edges[g], edges[g + 1], atoms);
    graph_ids[g] = static_cast<std::int32_t>(key & 0x7fffffff);
    for (Index atom = nodes[g]; atom < nodes[g + 1]; ++atom) {
      const std::uint64_t id = key + static_cast<std::uint64_t>(atom - nodes[g]);
      atom_ids[static_cast<std::size_t>(atom)] = static_cast<std::int32_t>(id & 0x7fffffff);
    }
  }
}

}  // namespace

Matrix<float> predict_raw(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs,
                          Index batch_size) {
  return in_batches(graphs, batch_size, model.options().tasks,
                    [&](const FeaturedBatch& batch) -> const Matrix<float>& { return model.forward(batch); });
}

Matrix<float> dropout_variances(MoleculePredictor<float>& model, const FeaturedBatch& batch,
                                const TargetScaling& scaling, Index samples) {
  EDGEWISE_CHECK(samples >= 2);
  std::vector<std::int32_t> atom_ids, graph_ids;
  content_ids(batch, atom_ids, graph_ids);
  const Index graphs = batch.batch.num_graphs(), tasks = scaling.columns();
  Matrix<double> sum = Matrix<double>::Zero(graphs, tasks), squares = Matrix<double>::Zero(graphs, tasks);
  for (Index sample = 0; sample < samples; ++sample) {
    // The same generator state for every batch: each layer's mask key depends on the sample alone.
    SplitMix64 rng(static_cast<std::uint64_t>(sample));
    const Matrix<float>& raw = model.forward(batch, Mode::train(rng, atom_ids), graph_ids);
    const Matrix<double> values = scaling.to_original(raw.leftCols(tasks)).cast<double>();
    sum += values;
    squares += values.cwiseProduct(values);
  }
  const double n = static_cast<double>(samples);
  return ((squares - sum.cwiseProduct(sum) / n) / (n - 1)).cwiseMax(0.0).cast<float>();
}

Matrix<float> dropout_variances(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs,
                                const TargetScaling& scaling, Index samples, Index batch_size) {
  return in_batches(graphs, batch_size, scaling.columns(),
                    [&](const FeaturedBatch& batch) { return dropout_variances(model, batch, scaling, samples); });
}

Matrix<float> predict(MoleculePredictor<float>& model, std::span<const FeaturedGraph* const> graphs, TaskType task_type,
                      const TargetScaling& scaling, Index batch_size) {
  return to_predictions(predict_raw(model, graphs, batch_size), task_type, scaling);
}

Matrix<float> to_predictions(const Matrix<float>& raw, TaskType task_type, const TargetScaling& scaling) {
  if (task_type == TaskType::regression) return scaling.to_original(raw.leftCols(scaling.columns()));
  return (1.0f / (1.0f + (-raw.array()).exp())).matrix();
}

Matrix<float> to_variances(const Matrix<float>& raw, const TargetScaling& scaling, OutputDistribution distribution) {
  const Index tasks = scaling.columns();
  EDGEWISE_CHECK(distribution != OutputDistribution::point && raw.cols() == outputs_per_target(distribution) * tasks);
  Matrix<float> variances(raw.rows(), tasks);
  for (Index m = 0; m < raw.rows(); ++m)
    for (Index t = 0; t < tasks; ++t) {
      const double scale = scaling.scale[static_cast<std::size_t>(t)];
      const double variance = distribution == OutputDistribution::gaussian
                                  ? variance_of_output(raw(m, tasks + t))
                                  : evidential_variance(raw(m, tasks + t), raw(m, 2 * tasks + t), raw(m, 3 * tasks + t));
      variances(m, t) = static_cast<float>(variance * scale * scale);
    }
  return variances;
}

}  // namespace edgewise

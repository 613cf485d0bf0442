#include "edgewise/tasks/molecule/molecule_model.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <cmath>
#include <limits>
#include <optional>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/chem/molecule_stream.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"
#include "edgewise/core/ordered_pipeline.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/distributed/processes.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise {
namespace {

// Forward passes with dropout on that give a network's variance under --uncertainty dropout, as many
// as Chemprop's default.
constexpr Index kDropoutSamples = 10;

// What the networks of a model with this spread predict for each target.
OutputDistribution output_distribution(SpreadMethod spread) {
  if (spread == SpreadMethod::mve) return OutputDistribution::gaussian;
  return spread == SpreadMethod::evidential ? OutputDistribution::evidential : OutputDistribution::point;
}

nlohmann::json config_json(const MoleculeModelConfig& config) {
  nlohmann::json j{{"kind", kMoleculeModelKind},
                   {"featurizer", config.featurizer},
                   {"network", config.network},
                   {"task_type", to_string(config.task_type)},
                   {"tasks", config.tasks},
                   {"scaling", config.scaling},
                   {"ensemble", config.ensemble}};
  // Written only with a spread, so that models without one keep their files as they were.
  if (config.spread != SpreadMethod::none)
    j["uncertainty"] = {{"spread", name_of(kSpreadMethodNames, config.spread)},
                        {"fit", name_of(kSpreadFitNames, config.spread_fit)},
                        {"calibration", config.calibration}};
  if (!config.probability_calibration.empty()) j["probability_calibration"] = config.probability_calibration;
  return j;
}

// The spread and its calibration, absent from files of models without one (and from every file
// written before uncertainty existed). Files written before the fit was a choice were fitted by NLL.
void read_uncertainty(const nlohmann::json& j, MoleculeModelConfig& config) {
  if (!j.contains("uncertainty")) return;
  const nlohmann::json& uncertainty = j.at("uncertainty");
  config.spread = value_named(kSpreadMethodNames, uncertainty.at("spread").get<std::string>(), "spread method");
  config.spread_fit = value_named(kSpreadFitNames, uncertainty.value("fit", std::string("nll")), "spread fit");
  uncertainty.at("calibration").get_to(config.calibration);
}

// Column c of m as a vector.
std::vector<float> column(const Matrix<float>& m, Index c) { return {m.col(c).begin(), m.col(c).end()}; }

// Calibrated probabilities, in place: the members' mean, [M, T], through each task's calibration.
void calibrate_in_place(const MoleculeModelConfig& config, Matrix<float>& probabilities) {
  const std::vector<BinaryCalibration>& tasks = config.probability_calibration;
  if (tasks.empty()) return;
  for (Index t = 0; t < probabilities.cols(); ++t) {
    const BinaryCalibration& task = tasks[static_cast<std::size_t>(t)];
    if (task.is_identity()) continue;
    for (Index m = 0; m < probabilities.rows(); ++m) probabilities(m, t) = task.apply(probabilities(m, t));
  }
}

MoleculeModelConfig config_from_json(const nlohmann::json& j, const std::string& path) {
  if (model_kind(j) != kMoleculeModelKind)
    throw ModelFormatError(path + ": not a molecule property model (kind '" + model_kind(j) + "')");
  MoleculeModelConfig config;
  try {
    j.at("featurizer").get_to(config.featurizer);
    j.at("network").get_to(config.network);
    config.task_type = parse_task_type(j.at("task_type").get<std::string>());
    j.at("tasks").get_to(config.tasks);
    j.at("scaling").get_to(config.scaling);
    get_integer_to(j.at("ensemble"), config.ensemble);
    read_uncertainty(j, config);
    if (j.contains("probability_calibration")) j.at("probability_calibration").get_to(config.probability_calibration);
  } catch (const std::exception& e) {
    throw ModelFormatError(path + ": invalid model configuration: " + e.what());
  }
  if (config.featurizer.version != FeaturizerSpec{}.version) {
    throw ModelFormatError(path + ": written with featurizer version " + std::to_string(config.featurizer.version) +
                           ", this build reads version " + std::to_string(FeaturizerSpec{}.version));
  }
  if (config.scaling.shift.size() != config.tasks.size())
    throw ModelFormatError(path + ": target scaling does not match the number of tasks");
  if (!config.calibration.empty() && config.calibration.size() != config.tasks.size())
    throw ModelFormatError(path + ": the spread calibration does not match the number of tasks");
  if (!config.probability_calibration.empty() && (config.probability_calibration.size() != config.tasks.size() ||
                                                  config.task_type != TaskType::classification))
    throw ModelFormatError(path + ": the probability calibration does not match the tasks");
  const Index scaled_descriptors = config.network.graph_feature_scaling.columns();
  if (scaled_descriptors != 0 && scaled_descriptors != config.featurizer.graph_dim())
    throw ModelFormatError(path + ": the descriptor scaling has " + std::to_string(scaled_descriptors) +
                           " columns for " + std::to_string(config.featurizer.graph_dim()) + " descriptors");
  return config;
}

// The network's input widths and outputs follow from the featurizer and the task list.
MoleculeModelConfig completed(MoleculeModelConfig config) {
  if (config.tasks.empty()) throw ArgumentError("a molecule model needs at least one task");
  if (config.ensemble < 1) throw ArgumentError("a molecule model needs at least one ensemble member");
  if (config.spread == SpreadMethod::ensemble && (config.ensemble < 2 || config.task_type != TaskType::regression))
    throw ArgumentError("an ensemble's spread needs regression and an ensemble of 2 or more networks (the ensemble "
                        "has " + std::to_string(config.ensemble) + ")");
  const bool own_variance = output_distribution(config.spread) != OutputDistribution::point;
  if (config.task_type != TaskType::regression && (own_variance || config.spread == SpreadMethod::dropout))
    throw ArgumentError("--uncertainty " + name_of(kSpreadMethodNames, config.spread) + " needs regression targets");
  if (config.spread == SpreadMethod::dropout && !(config.network.dropout > 0))
    throw ArgumentError("--uncertainty dropout samples the networks' dropout, and --dropout is 0");
  config.network.node_dim = config.featurizer.atom_dim();
  config.network.edge_dim = config.featurizer.bond_dim();
  config.network.graph_dim = config.featurizer.graph_dim();
  check_descriptors(config.featurizer.descriptors);
  // A network with several outputs a target gives the means first, then each other block of them.
  config.network.tasks = static_cast<Index>(config.tasks.size()) * outputs_per_target(output_distribution(config.spread));
  if (config.scaling.shift.size() != config.tasks.size())
    config.scaling = TargetScaling::identity(static_cast<Index>(config.tasks.size()));
  return config;
}

std::vector<const FeaturedGraph*> as_featured(std::span<const MoleculeGraph* const> molecules) {
  return {molecules.begin(), molecules.end()};
}

GraphSet graph_set(const MoleculeSet& set) { return {as_featured(set.molecules), set.targets}; }

// The members' predictions in the targets' units, each from its raw outputs, and for networks that
// predict a variance (mve, evidential) or sample one (dropout) their variances.
struct MemberPredictions {
  std::vector<Matrix<float>> means, variances;  // variances: empty for point outputs

  void add(const Matrix<float>& raw, const MoleculeModelConfig& config) {
    means.push_back(to_predictions(raw, config.task_type, config.scaling));
    const OutputDistribution distribution = output_distribution(config.spread);
    if (distribution != OutputDistribution::point) variances.push_back(to_variances(raw, config.scaling, distribution));
  }

  // The members' mean, summed in member order as predict() sums it, and the total standard
  // deviation about it: the root of the members' mean variance plus the variance of their means.
  SpreadPredictions spread() const {
    const auto members = static_cast<float>(means.size());
    Matrix<float> sum = Matrix<float>::Zero(means.front().rows(), means.front().cols());
    for (const Matrix<float>& member : means) sum += member;
    SpreadPredictions result{sum / members, Matrix<float>::Zero(sum.rows(), sum.cols())};
    for (const Matrix<float>& member : means) result.raw_spread.array() += (member - result.values).array().square();
    for (const Matrix<float>& variance : variances) result.raw_spread += variance;
    result.raw_spread = (result.raw_spread / members).array().sqrt();
    return result;
  }
};

// Weight names in the model file: the network's own for a single model, "member<k>." before them in
// an ensemble.
std::string member_prefix(Index member, Index members) {
  return members == 1 ? "" : "member" + std::to_string(member) + ".";
}

}  // namespace

MoleculeModelConfig default_molecule_config() {
  MoleculeModelConfig config;
  config.featurizer.descriptors = available_descriptors();
  config.featurizer.crippen_contributions = true;
  config.network.hidden = 64;
  config.network.layers = 3;
  config.network.heads = 4;
  config.network.score = ScoreFunction::scaled_dot;
  config.network.readout = ReadoutKind::mean_sum;
  return config;
}

TrainingBudget default_training_budget(Index training_molecules) {
  // Five networks cross-validate better than two or three over the pool (docs/defaults.md) and still
  // train faster than Chemprop's defaults: ESOL in 70 % of its time, HIV in under a third.
  constexpr Index kEnsemble = 5, kEpochs = 150, kMinEpochs = 30;
  constexpr Index kFullEpochsUpTo = 10'000;  // training molecules
  if (training_molecules <= kFullEpochsUpTo) return {kEnsemble, kEpochs};
  return {kEnsemble, std::max(kMinEpochs, kEpochs * kFullEpochsUpTo / training_molecules)};
}

MoleculeSet molecule_set(const MoleculeDataset& data, std::span<const Index> rows) {
  MoleculeSet set;
  set.targets.resize(static_cast<Index>(rows.size()), data.targets.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= data.size())
      throw ArgumentError("molecule_set: row " + std::to_string(rows[i]) + " is outside the dataset's " +
                          std::to_string(data.size()) + " molecules");
    set.molecules.push_back(&data.molecules[static_cast<std::size_t>(rows[i])]);
    set.targets.row(static_cast<Index>(i)) = data.targets.row(rows[i]);
  }
  return set;
}

MoleculeSet molecule_set(const MoleculeDataset& data) {
  std::vector<Index> rows(static_cast<std::size_t>(data.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<Index>(i);
  return molecule_set(data, rows);
}

struct MoleculeModel::Member {
  explicit Member(const MoleculePredictorOptions& options) : network(params, options) {}

  Parameters<float> params;
  MoleculePredictor<float> network;
};

MoleculeModel::MoleculeModel(MoleculeModelConfig config) : config_(completed(std::move(config))) {
  for (Index k = 0; k < config_.ensemble; ++k) members_.push_back(std::make_unique<Member>(config_.network));
}

MoleculeModel::MoleculeModel(MoleculeModel&&) noexcept = default;
MoleculeModel& MoleculeModel::operator=(MoleculeModel&&) noexcept = default;
MoleculeModel::~MoleculeModel() = default;

MoleculeModel MoleculeModel::load(const std::string& path) { return load(load_model(path), path); }

MoleculeModel MoleculeModel::load(const ModelFile& file, const std::string& path) {
  MoleculeModel model(config_from_json(file.config, path));
  const auto members = static_cast<Index>(model.members_.size());
  for (Index k = 0; k < members; ++k)
    restore_parameters(model.members_[static_cast<std::size_t>(k)]->params, file.parameters, path,
                       member_prefix(k, members));
  model.training_ = file.training;
  return model;
}

Parameters<float> MoleculeModel::all_parameters() const {
  Parameters<float> all;
  const auto members = static_cast<Index>(members_.size());
  for (Index k = 0; k < members; ++k) {
    const Parameters<float>& params = members_[static_cast<std::size_t>(k)]->params;
    for (const ParameterSlot& slot : params.slots()) {
      const ParameterHandle copy = all.add(member_prefix(k, members) + slot.name, slot.rows, slot.cols);
      all.value(copy) = params.value(params.find(slot.name));
    }
  }
  return all;
}

void MoleculeModel::save(const std::string& path, Overwrite overwrite) const {
  save_model(path, config_json(config_), all_parameters(), overwrite, training_metadata(training_));
}

void MoleculeModel::initialize(std::uint64_t seed) {
  SplitMix64 seeds(seed);
  for (const auto& member : members_) {
    SplitMix64 rng(seeds.next());
    member->network.reset_parameters(rng);
  }
}

namespace {

// What a checkpoint must match to be continued: the training options and a digest of the data.
nlohmann::json run_identity(const MoleculeSet& train, const MoleculeSet& validation, const TrainingOptions& options) {
  Sha256 digest;
  for (const MoleculeSet* set : {&train, &validation}) {
    fingerprint(digest, set->targets);
    for (const MoleculeGraph* molecule : set->molecules) {
      fingerprint(digest, molecule->graph);
      fingerprint(digest, molecule->node_features);
      fingerprint(digest, molecule->edge_features);
      fingerprint(digest, molecule->graph_features);
    }
  }
  return {{"training", options}, {"data_sha256", digest.hex_digest()}};
}

// A checkpoint's run entry: the identity, the member in training and the finished members' results.
nlohmann::json run_progress(const nlohmann::json& identity, const std::vector<TrainingResult>& finished) {
  nlohmann::json results = nlohmann::json::array();
  for (const TrainingResult& result : finished) {
    const double best = result.best_validation;
    results.push_back({{"epochs_run", result.epochs_run}, {"best_epoch", result.best_epoch}, {"best_validation", std::isnan(best) ? nlohmann::json() : nlohmann::json(best)}});
  }
  return {{"identity", identity}, {"member", finished.size()}, {"finished", results}};
}

TargetScaling scaling_of(const MoleculeSet& train, TaskType task_type) {
  return task_type == TaskType::regression ? TargetScaling::standardize(train.targets)
                                           : TargetScaling::identity(train.targets.cols());
}

}  // namespace

Checkpoint MoleculeModel::resume(const std::string& path, const nlohmann::json& identity, const MoleculeSet& train,
                                 std::vector<TrainingResult>& results) {
  Checkpoint checkpoint = load_checkpoint(path);
  const nlohmann::json saved_identity =
      checkpoint.run.is_object() ? checkpoint.run.value("identity", nlohmann::json()) : nlohmann::json();
  check_same_run(path, {{"model", checkpoint.config}, {"run", saved_identity}},
                 {{"model", config_json(config_)}, {"run", identity}});
  check_same_precision(path, checkpoint);
  const auto members = static_cast<Index>(members_.size());
  for (Index k = 0; k < members; ++k)
    restore_parameters(members_[static_cast<std::size_t>(k)]->params, checkpoint.weights, path,
                       member_prefix(k, members));
  try {
    for (const nlohmann::json& finished : checkpoint.run.at("finished")) {
      TrainingResult& result = results.emplace_back();
      get_integer_to(finished.at("epochs_run"), result.epochs_run);
      get_integer_to(finished.at("best_epoch"), result.best_epoch);
      const nlohmann::json& best = finished.at("best_validation");
      result.best_validation = best.is_null() ? std::numeric_limits<double>::quiet_NaN() : best.get<double>();
      result.scaling = scaling_of(train, config_.task_type);
    }
    if (checkpoint.run.at("member").get<std::size_t>() != results.size() || results.size() >= members_.size())
      throw ModelFormatError(path + ": the checkpoint's ensemble member does not fit the model");
  } catch (const nlohmann::json::exception& e) {
    throw ModelFormatError(path + ": malformed ensemble progress: " + e.what());
  }
  return checkpoint;
}

std::vector<TrainingResult> MoleculeModel::fit(
    const MoleculeSet& train, const MoleculeSet& validation, const TrainingOptions& options,
    const std::function<void(Index member, const EpochReport&)>& on_epoch, const CheckpointOptions& checkpoints) {
  const nlohmann::json identity = run_identity(train, validation, options);
  standardize_descriptors(train);
  std::vector<TrainingResult> results;
  std::optional<Checkpoint> resumed;
  if (!checkpoints.resume.empty()) resumed = resume(checkpoints.resume, identity, train, results);
  const Logger log(options.log);
  const GraphSet train_set = graph_set(train), validation_set = graph_set(validation);
  const auto fitting = [&](std::size_t k) {
    TrainingOptions member_options = options;
    member_options.task_type = config_.task_type;
    member_options.seed = options.seed + k;
    member_options.distribution = output_distribution(config_.spread);
    return member_options;
  };
  // Where there are at least as many members as threads, they train side by side, one thread each:
  // each trains as it would alone (no result depends on the thread count), and no core waits for
  // another at the end of each short parallel loop. Checkpoints hold one member in training, and
  // MPI's exchanges one thread, so those runs take the members in turn.
  const auto threads = static_cast<std::size_t>(num_threads());
  const bool side_by_side = threads > 1 && checkpoints.every == 0 && !resumed && !distributed::active();
  std::size_t k = results.size();
  if (side_by_side && members_.size() - k >= threads) {
    train_side_by_side(k, members_.size() - k, threads, train_set, validation_set, fitting, on_epoch, log, results);
    k = members_.size();
  }
  for (const std::size_t first_in_turn = k; k < members_.size(); ++k) {
    if (members_.size() > 1)
      log.normal("ensemble member " + std::to_string(k + 1) + " of " + std::to_string(members_.size()));
    const auto report = [&](const EpochReport& epoch) {
      if (on_epoch) on_epoch(static_cast<Index>(k), epoch);
    };
    TrainingCheckpoints hooks{.every = checkpoints.every};
    if (checkpoints.every > 0) {
      hooks.save = [&](const TrainingState& state) {
        save_checkpoint(checkpoints.path, {config_json(config_), all_parameters(), state, run_progress(identity, results)});
      };
    }
    if (resumed && k == first_in_turn) hooks.resume = &resumed->state;
    Member& member = *members_[k];
    results.push_back(
        train_molecule_predictor(member.network, member.params, train_set, validation_set, fitting(k), report, hooks,
                                 distributed::run_collectives()));
  }
  config_.scaling = results.front().scaling;
  return results;
}

namespace {

// Thrown in a member's epoch report to stop it when a member beside it failed.
struct StoppedBeside {};

// A member's log messages, kept to be sent on once the members beside it are done.
class HeldLog {
 public:
  LogSettings settings(const LogSettings& given) {
    return {.level = given.level, .sink = [this](const LogMessage& message) { hold(message); }};
  }

  void send_to(const Logger& log) const {
    for (const Held& message : held_) {
      if (message.level == LogLevel::verbose) {
        log.verbose(message.text);
      } else {
        log.normal(message.text, message.progress ? &*message.progress : nullptr);
      }
    }
  }

 private:
  struct Held {
    LogLevel level;
    std::string text;
    std::string metric;  // what progress->metric views
    std::optional<EpochProgress> progress;
  };

  void hold(const LogMessage& message) {
    Held& held = held_.emplace_back(Held{message.level, std::string(message.text), {}, std::nullopt});
    if (message.progress) {
      held.metric = message.progress->metric;
      held.progress = *message.progress;
      held.progress->metric = held.metric;  // the trainer's string is gone when the message is sent on
    }
  }

  std::deque<Held> held_;  // a deque: growing it leaves the held metrics where progress views them
};

}  // namespace

void MoleculeModel::train_side_by_side(std::size_t first, std::size_t count, std::size_t threads,
                                       const GraphSet& train, const GraphSet& validation,
                                       const std::function<TrainingOptions(std::size_t)>& fitting,
                                       const std::function<void(Index, const EpochReport&)>& on_epoch,
                                       const Logger& log, std::vector<TrainingResult>& results) {
  std::vector<std::optional<TrainingResult>> trained(count);
  std::vector<std::exception_ptr> errors(count);
  std::vector<HeldLog> held(count);
  std::atomic<bool> stopping = false;
  std::atomic<std::size_t> running = count;
  std::mutex reporting;
  // With more members than threads, the members take turns of an epoch, so that all of them finish
  // together: a member left to train alone gains little from a second thread on a small batch.
  Turns turns(threads);
  const auto train_member = [&](std::size_t i) {
    // One thread a member, until the members beside it are done (they stop early at different
    // epochs): the last one left runs its loops on every thread.
    std::optional<SerialLoopsOnThisThread> serial(std::in_place);
    const std::size_t k = first + i;
    TrainingOptions options = fitting(k);
    if (i > 0) options.log = held[i].settings(options.log);
    const auto report = [&](const EpochReport& epoch) {
      turns.pass();
      if (stopping) throw StoppedBeside{};
      if (running == 1) serial.reset();
      if (!on_epoch) return;
      const std::lock_guard lock(reporting);
      on_epoch(static_cast<Index>(k), epoch);
    };
    turns.take();
    try {
      Member& member = *members_[k];
      trained[i] = train_molecule_predictor(member.network, member.params, train, validation, options, report, {});
    } catch (const StoppedBeside&) {  // the error of the member that failed is passed on
    } catch (...) {
      errors[i] = std::current_exception();
      stopping = true;
    }
    turns.give_back();
    --running;
  };
  log.verbose("ensemble members " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
              " train side by side, " + std::to_string(threads) +
              " at a time in turns of an epoch; the others' messages follow the first's");
  log.normal("ensemble member " + std::to_string(first + 1) + " of " + std::to_string(members_.size()));
  std::vector<std::thread> beside;
  for (std::size_t i = 1; i < count; ++i) beside.emplace_back(train_member, i);
  train_member(0);
  for (std::thread& thread : beside) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) {
      log.normal("ensemble member " + std::to_string(first + i + 1) + " of " + std::to_string(members_.size()));
      held[i].send_to(log);
    }
    results.push_back(std::move(*trained[i]));
  }
}

void MoleculeModel::standardize_descriptors(const MoleculeSet& train) {
  const Index graph_dim = config_.network.graph_dim;
  if (graph_dim == 0) return;
  Matrix<float> descriptors(static_cast<Index>(train.molecules.size()), graph_dim);
  for (Index m = 0; m < descriptors.rows(); ++m) {
    const Matrix<float>& features = train.molecules[static_cast<std::size_t>(m)]->graph_features;
    if (features.rows() != 1 || features.cols() != graph_dim)
      throw ArgumentError("MoleculeModel::fit: training molecule " + std::to_string(m) + " has [" +
                          std::to_string(features.rows()) + ", " + std::to_string(features.cols()) +
                          "] graph features, the featurizer writes [1, " + std::to_string(graph_dim) + "]");
    descriptors.row(m) = features.row(0);
  }
  config_.network.graph_feature_scaling = ColumnScaling::standardize(descriptors);
  for (const auto& member : members_) member->network.set_graph_feature_scaling(config_.network.graph_feature_scaling);
}

ModelDescription MoleculeModel::describe() const {
  const nlohmann::json config = config_json(config_);
  ModelDescription description{
      .title = "molecule property model (train --task molecule)",
      .facts = {{"task type", config.at("task_type")},
                {"targets", config.at("tasks")},
                {"ensemble", std::to_string(config_.ensemble) + " network(s)"},
                {"parameters", num_parameters()}},
      .sections = {{"architecture", config.at("network")},
                   {"featurizer", config.at("featurizer")},
                   {"target scaling (original = scaled * scale + shift)", config.at("scaling")}},
      .examples = "molecules"};
  if (!config_.probability_calibration.empty()) {
    nlohmann::json scalings;
    for (std::size_t t = 0; t < config_.tasks.size(); ++t) scalings[config_.tasks[t]] = config_.probability_calibration[t];
    description.sections.emplace_back(
        "probability calibration (Platt: sigmoid(slope * logit(p) + intercept); isotonic: knots [p, calibrated p])",
        scalings);
  }
  if (config_.calibration.empty()) return description;
  const std::string spread = config_.spread == SpreadMethod::ensemble
                                 ? "the members' spread"
                                 : name_of(kSpreadMethodNames, config_.spread) + " (the members' total spread)";
  description.facts.emplace_back("uncertainty", spread + ", calibrated on held-out molecules by " +
                                                    name_of(kSpreadFitNames, config_.spread_fit));
  nlohmann::json calibration;
  for (std::size_t t = 0; t < config_.tasks.size(); ++t) {
    const SpreadCalibration& task = config_.calibration[t];
    calibration[config_.tasks[t]] = {{"offset", task.offset}, {"scale", task.scale}, {"molecules", task.scores.size()}};
  }
  description.sections.emplace_back("spread calibration (std = scale * (spread + offset))", calibration);
  return description;
}

Index MoleculeModel::num_parameters() const {
  Index total = 0;
  for (const auto& member : members_) total += member->params.size();
  return total;
}

MoleculeGraph MoleculeModel::featurize(const RDKit::ROMol& molecule) const {
  return edgewise::featurize(molecule, config_.featurizer);
}

Matrix<float> MoleculeModel::predict(std::span<const MoleculeGraph* const> molecules) const {
  const std::vector<const FeaturedGraph*> graphs = as_featured(molecules);
  Matrix<float> sum = Matrix<float>::Zero(static_cast<Index>(graphs.size()), static_cast<Index>(config_.tasks.size()));
  for (const auto& member : members_)
    sum += edgewise::predict(member->network, graphs, config_.task_type, config_.scaling);
  sum /= static_cast<float>(members_.size());
  calibrate_in_place(config_, sum);
  return sum;
}

SpreadPredictions MoleculeModel::predict_with_spread(std::span<const MoleculeGraph* const> molecules) const {
  if (config_.spread == SpreadMethod::none)
    throw ArgumentError("this model was trained without a spread (--uncertainty none): its predictions have none");
  const std::vector<const FeaturedGraph*> graphs = as_featured(molecules);
  MemberPredictions members;
  for (const auto& member : members_) {
    members.add(predict_raw(member->network, graphs), config_);
    if (config_.spread == SpreadMethod::dropout)
      members.variances.push_back(dropout_variances(member->network, graphs, config_.scaling, kDropoutSamples));
  }
  return members.spread();
}

void MoleculeModel::calibrate(const MoleculeSet& held_out) {
  const SpreadPredictions predicted = predict_with_spread(held_out.molecules);
  std::vector<SpreadCalibration> calibration;
  for (Index t = 0; t < predicted.values.cols(); ++t) {
    try {
      calibration.push_back(fit_spread_calibration(column(held_out.targets, t), column(predicted.values, t),
                                                   column(predicted.raw_spread, t), config_.spread_fit));
    } catch (const ArgumentError& e) {
      throw ArgumentError("task '" + config_.tasks[static_cast<std::size_t>(t)] + "': " + e.what() +
                          " in the validation part");
    }
  }
  config_.calibration = std::move(calibration);
}

void MoleculeModel::calibrate_probabilities(const MoleculeSet& held_out) {
  if (config_.task_type != TaskType::classification)
    throw ArgumentError("probability calibration applies to classification models");
  config_.probability_calibration.clear();
  const Matrix<float> probabilities = predict(held_out.molecules);
  std::vector<BinaryCalibration> calibration;
  for (Index t = 0; t < probabilities.cols(); ++t) {
    calibration.push_back(fit_binary_calibration(column(held_out.targets, t), column(probabilities, t)));
  }
  config_.probability_calibration = std::move(calibration);
}

// What one thread needs to run batches: one network, into which each member's weights are copied in
// turn (a forward pass keeps state in the network, so threads cannot share one), and buffers reused
// from batch to batch. One network rather than one a member keeps a batch's activations in the same
// memory for every member: a fifth of the memory, and still in cache when the next member runs.
struct MoleculeModel::Worker {
  explicit Worker(const MoleculeModel& owner)
      : model(owner),
        config(owner.config_),
        network(std::make_unique<Member>(owner.config_.network)),
        batcher(owner.config_.featurizer) {}

  // The batch's predictions, [count, T], averaged as predict() averages: the members' predictions
  // summed in member order. A calibrated model's raw spreads follow, [count, 2T] in all.
  Matrix<float> predict(std::span<SmilesRow* const> rows) {
    molecules.clear();
    descriptor_rows.clear();
    for (const SmilesRow* row : rows) {
      molecules.push_back(&row->rows);
      descriptor_rows.push_back(row->descriptors.data());
    }
    batcher.assemble(molecules, descriptor_rows, batch);
    if (config.calibration.empty()) {
      Matrix<float> sum = Matrix<float>::Zero(static_cast<Index>(rows.size()), static_cast<Index>(config.tasks.size()));
      for (const auto& member : model.members_)
        sum += to_predictions(forward(*member), config.task_type, config.scaling);
      sum /= static_cast<float>(model.members_.size());
      calibrate_in_place(config, sum);
      return sum;
    }
    MemberPredictions members;
    for (const auto& member : model.members_) {
      members.add(forward(*member), config);
      if (config.spread == SpreadMethod::dropout)
        members.variances.push_back(dropout_variances(network->network, batch, config.scaling, kDropoutSamples));
    }
    const SpreadPredictions predicted = members.spread();
    Matrix<float> both(predicted.values.rows(), 2 * predicted.values.cols());
    both << predicted.values, predicted.raw_spread;
    return both;
  }

  const Matrix<float>& forward(const Member& member) {
    network->params.values() = member.params.values();
    return network->network.forward(batch);
  }

  const MoleculeModel& model;
  const MoleculeModelConfig& config;
  std::unique_ptr<Member> network;
  MoleculeBatcher batcher;
  FeaturedBatch batch;
  std::vector<const MoleculeRows*> molecules;
  std::vector<const float*> descriptor_rows;
};

void MoleculeModel::predict_smiles(const std::function<bool(std::string& smiles)>& next,
                                   const std::function<void(const PredictedRow& row)>& sink, Index max_atoms) const {
  const SmilesFeaturizer featurizer(config_.featurizer, max_atoms);
  std::vector<Worker> workers;
  workers.reserve(static_cast<std::size_t>(num_threads()));
  for (int t = 0; t < num_threads(); ++t) workers.emplace_back(*this);
  const std::size_t tasks = config_.tasks.size();
  std::vector<float> values(config_.calibration.empty() ? tasks : 2 * tasks);
  // Batches of predict()'s size, so that a window's values are predict()'s on its molecules, bit for bit.
  run_ordered_pipeline<SmilesRow>(
      {.window = kPredictionWindowRows, .chunk = 16, .batch = static_cast<std::size_t>(kPredictionBatchSize)},
      [&](SmilesRow& row) { return next(row.smiles); },
      [&](SmilesRow& row) { return featurizer.featurize(row); },
      [&](std::span<SmilesRow* const> rows) { return workers[static_cast<std::size_t>(thread_index())].predict(rows); },
      [&](std::size_t index, const SmilesRow& row, const Matrix<float>* predictions, std::size_t position) {
        if (!predictions) return sink({index, {}, row.error});
        for (std::size_t t = 0; t < values.size(); ++t)
          values[t] = (*predictions)(static_cast<Index>(position), static_cast<Index>(t));
        const std::span<const float> all(values);
        sink({index, all.first(tasks), {}, values.size() > tasks ? all.subspan(tasks) : std::span<const float>()});
      });
}

SmilesPredictions MoleculeModel::predict_smiles(const std::vector<std::string>& smiles, Index max_atoms) const {
  SmilesPredictions result;
  std::vector<float> values, spreads;  // [valid, T] row after row
  std::size_t next_row = 0;
  predict_smiles(
      [&](std::string& text) {
        if (next_row == smiles.size()) return false;
        text = smiles[next_row++];
        return true;
      },
      [&](const PredictedRow& row) {
        if (row.values.empty()) {
          result.invalid.emplace_back(row.index, std::string(row.error));
          return;
        }
        result.valid.push_back(row.index);
        values.insert(values.end(), row.values.begin(), row.values.end());
        spreads.insert(spreads.end(), row.raw_spread.begin(), row.raw_spread.end());
      },
      max_atoms);
  const auto valid = static_cast<Index>(result.valid.size());
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto tasks = static_cast<Index>(config_.tasks.size());
  result.values = Eigen::Map<const RowMajor>(values.data(), valid, tasks);
  if (!config_.calibration.empty())
    result.raw_spread = Eigen::Map<const RowMajor>(spreads.data(), valid, tasks);
  return result;
}

Matrix<float> MoleculeModel::attention(const MoleculeGraph& molecule) const {
  // The network keeps a pointer to the graph of its last forward, so the batch must still be alive
  // when the weights are read: predict() would destroy its own batch before returning.
  const FeaturedGraph* graphs[] = {&molecule};
  FeaturedBatch batch;
  batch.assemble(graphs);
  MoleculePredictor<float>& network = members_.front()->network;
  network.forward(batch);
  return network.last_attention_weights();
}

}  // namespace edgewise

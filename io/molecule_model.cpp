#include "edgewise/io/molecule_model.hpp"

#include <GraphMol/ROMol.h>

#include <nlohmann/json.hpp>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise {
namespace {

constexpr const char* kModelKind = "molecule-property";

nlohmann::json config_json(const MoleculeModelConfig& config) {
  return nlohmann::json{{"kind", kModelKind},
                        {"featurizer", config.featurizer},
                        {"network", config.network},
                        {"task_type", to_string(config.task_type)},
                        {"tasks", config.tasks},
                        {"scaling", config.scaling},
                        {"ensemble", config.ensemble}};
}

MoleculeModelConfig config_from_json(const nlohmann::json& j, const std::string& path) {
  if (j.value("kind", "") != kModelKind)
    throw ModelFormatError(path + ": not a molecule property model (kind '" + j.value("kind", "") + "')");
  MoleculeModelConfig config;
  try {
    j.at("featurizer").get_to(config.featurizer);
    j.at("network").get_to(config.network);
    config.task_type = parse_task_type(j.at("task_type").get<std::string>());
    j.at("tasks").get_to(config.tasks);
    j.at("scaling").get_to(config.scaling);
    j.at("ensemble").get_to(config.ensemble);
  } catch (const std::exception& e) {
    throw ModelFormatError(path + ": invalid model configuration: " + e.what());
  }
  if (config.featurizer.version != FeaturizerSpec{}.version) {
    throw ModelFormatError(path + ": written with featurizer version " + std::to_string(config.featurizer.version) +
                           ", this build reads version " + std::to_string(FeaturizerSpec{}.version));
  }
  if (config.scaling.shift.size() != config.tasks.size())
    throw ModelFormatError(path + ": target scaling does not match the number of tasks");
  return config;
}

// The network's input widths and outputs follow from the featurizer and the task list.
MoleculeModelConfig completed(MoleculeModelConfig config) {
  if (config.tasks.empty()) throw ArgumentError("a molecule model needs at least one task");
  if (config.ensemble < 1) throw ArgumentError("a molecule model needs at least one ensemble member");
  config.network.node_dim = config.featurizer.atom_dim();
  config.network.edge_dim = config.featurizer.bond_dim();
  config.network.graph_dim = config.featurizer.graph_dim();
  check_descriptors(config.featurizer.descriptors);
  config.network.tasks = static_cast<Index>(config.tasks.size());
  if (config.scaling.shift.size() != config.tasks.size())
    config.scaling = TargetScaling::identity(static_cast<Index>(config.tasks.size()));
  return config;
}

std::vector<const FeaturedGraph*> as_featured(std::span<const MoleculeGraph* const> molecules) {
  return {molecules.begin(), molecules.end()};
}

GraphSet graph_set(const MoleculeSet& set) { return {as_featured(set.molecules), set.targets}; }

// Weight names in the model file: the network's own for a single model, "member<k>." before them in
// an ensemble.
std::string member_prefix(Index member, Index members) {
  return members == 1 ? "" : "member" + std::to_string(member) + ".";
}

}  // namespace

struct MoleculeModel::Member {
  explicit Member(const GraphPredictorOptions& options) : network(params, options) {}

  Parameters<float> params;
  GraphPredictor<float> network;
};

MoleculeModel::MoleculeModel(MoleculeModelConfig config) : config_(completed(std::move(config))) {
  for (Index k = 0; k < config_.ensemble; ++k) members_.push_back(std::make_unique<Member>(config_.network));
}

MoleculeModel::MoleculeModel(MoleculeModel&&) noexcept = default;
MoleculeModel& MoleculeModel::operator=(MoleculeModel&&) noexcept = default;
MoleculeModel::~MoleculeModel() = default;

MoleculeModel MoleculeModel::load(const std::string& path) {
  const ModelFile file = load_model(path);
  MoleculeModel model(config_from_json(file.config, path));
  const auto members = static_cast<Index>(model.members_.size());
  for (Index k = 0; k < members; ++k)
    restore_parameters(model.members_[static_cast<std::size_t>(k)]->params, file.parameters, path,
                       member_prefix(k, members));
  return model;
}

void MoleculeModel::save(const std::string& path) const {
  Parameters<float> all;
  const auto members = static_cast<Index>(members_.size());
  for (Index k = 0; k < members; ++k) {
    const Parameters<float>& params = members_[static_cast<std::size_t>(k)]->params;
    for (const ParameterSlot& slot : params.slots()) {
      const ParameterHandle copy = all.add(member_prefix(k, members) + slot.name, slot.rows, slot.cols);
      all.value(copy) = params.value(params.find(slot.name));
    }
  }
  save_model(path, config_json(config_), all);
}

void MoleculeModel::initialize(std::uint64_t seed) {
  SplitMix64 seeds(seed);
  for (const auto& member : members_) {
    SplitMix64 rng(seeds.next());
    member->network.reset_parameters(rng);
  }
}

std::vector<TrainingResult> MoleculeModel::fit(
    const MoleculeSet& train, const MoleculeSet& validation, const TrainingOptions& options,
    const std::function<void(Index member, const EpochReport&)>& on_epoch) {
  std::vector<TrainingResult> results;
  for (std::size_t k = 0; k < members_.size(); ++k) {
    TrainingOptions fitting = options;
    fitting.task_type = config_.task_type;
    fitting.seed = options.seed + k;
    const auto report = [&](const EpochReport& epoch) {
      if (on_epoch) on_epoch(static_cast<Index>(k), epoch);
    };
    Member& member = *members_[k];
    results.push_back(train_graph_predictor(member.network, member.params, graph_set(train), graph_set(validation),
                                            fitting, report));
  }
  config_.scaling = results.front().scaling;
  return results;
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
  Matrix<float> sum = Matrix<float>::Zero(static_cast<Index>(graphs.size()), config_.network.tasks);
  for (const auto& member : members_)
    sum += edgewise::predict(member->network, graphs, config_.task_type, config_.scaling);
  return sum / static_cast<float>(members_.size());
}

SmilesPredictions MoleculeModel::predict_smiles(const std::vector<std::string>& smiles) const {
  std::vector<MoleculeGraph> graphs(smiles.size());
  std::vector<std::string> errors(smiles.size());
  parallel_for(static_cast<Index>(smiles.size()), [&](Index i) {
    const auto row = static_cast<std::size_t>(i);
    const SmilesResult parsed = parse_smiles(smiles[row]);
    if (parsed.molecule) {
      graphs[row] = featurize(*parsed.molecule);
    } else {
      errors[row] = parsed.error.empty() ? "unreadable SMILES" : parsed.error;
    }
  });

  SmilesPredictions result;
  std::vector<const MoleculeGraph*> valid_graphs;
  for (std::size_t row = 0; row < smiles.size(); ++row) {
    if (!errors[row].empty()) {
      result.invalid.emplace_back(row, std::move(errors[row]));
      continue;
    }
    result.valid.push_back(row);
    valid_graphs.push_back(&graphs[row]);
  }
  result.values = predict(valid_graphs);
  return result;
}

Matrix<float> MoleculeModel::attention(const MoleculeGraph& molecule) const {
  const MoleculeGraph* molecules[] = {&molecule};
  GraphPredictor<float>& network = members_.front()->network;
  edgewise::predict(network, as_featured(molecules), config_.task_type, config_.scaling);
  return network.last_attention_weights();
}

}  // namespace edgewise

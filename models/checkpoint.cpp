#include "edgewise/models/checkpoint.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "edgewise/core/error.hpp"
#include "edgewise/core/json_integers.hpp"

namespace edgewise {
namespace {

constexpr const char* kStateKey = "checkpoint";  // the metadata entry, and the prefix of the state's tensors
const std::string kAdamM = "checkpoint.adam_m";
const std::string kAdamV = "checkpoint.adam_v";
const std::string kBestWeights = "checkpoint.best_weights";

// JSON has no NaN: "no best epoch yet" is stored as null.
nlohmann::json number_or_null(double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); }

double number_from(const nlohmann::json& value) {
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

void add_vector(Parameters<float>& tensors, const std::string& name, const Vector<float>& values) {
  tensors.value(tensors.add(name, values.size(), 1)) = values;
}

Vector<float> vector_of(const Parameters<float>& tensors, const std::string& name, const std::string& path) {
  const ParameterHandle handle = tensors.find(name);
  if (handle.slot < 0) throw ModelFormatError(path + ": the checkpoint has no tensor " + name);
  return tensors.value(handle).reshaped();
}

// The state's JSON. It names the products' precision where it is not float32, so that float32
// checkpoints stay as they were.
nlohmann::json state_json(const TrainingState& state, const nlohmann::json& run) {
  nlohmann::json j = {{"checkpoint_version", kCheckpointVersion},
                      {"epoch", state.epoch},
                      {"steps", state.optimizer.steps},
                      {"best_epoch", state.best_epoch},
                      {"best_validation", number_or_null(state.best_validation)},
                      {"best_loss", number_or_null(state.best_loss)},
                      {"progress_accuracy", number_or_null(state.progress_accuracy)},
                      {"progress_loss", number_or_null(state.progress_loss)},
                      {"last_progress", state.last_progress},
                      {"shuffle_rng", state.shuffle_rng},
                      {"dropout_rng", state.dropout_rng},
                      {"order", state.order},
                      {"run", run}};
  if (precision() != Precision::float32) j["precision"] = precision_name(precision());
  return j;
}

void read_state(const nlohmann::json& j, Checkpoint& checkpoint) {
  TrainingState& state = checkpoint.state;
  get_integer_to(j.at("epoch"), state.epoch);
  get_integer_to(j.at("steps"), state.optimizer.steps);
  get_integer_to(j.at("best_epoch"), state.best_epoch);
  state.best_validation = number_from(j.at("best_validation"));
  state.best_loss = number_from(j.at("best_loss"));
  state.progress_accuracy = number_from(j.at("progress_accuracy"));
  state.progress_loss = number_from(j.at("progress_loss"));
  j.at("last_progress").get_to(state.last_progress);
  get_integer_to(j.at("shuffle_rng"), state.shuffle_rng);
  get_integer_to(j.at("dropout_rng"), state.dropout_rng);
  get_integer_to(j.at("order"), state.order);
  checkpoint.run = j.at("run");
  if (j.contains("precision")) checkpoint.precision = parse_precision(j.at("precision").get<std::string>());
}

std::string joined(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

[[noreturn]] void differs(const std::string& path, const std::string& key, const std::string& saved,
                          const std::string& current) {
  throw ArgumentError(path + ": the checkpoint was written by another run: " + key + " is " + saved +
                      " in the checkpoint and " + current + " in this run (resume with the data and options it was "
                      "written with)");
}

void compare(const std::string& path, const std::string& key, const nlohmann::json& saved,
             const nlohmann::json& current) {
  if (saved == current) return;
  if (!saved.is_object() || !current.is_object()) differs(path, key, saved.dump(), current.dump());
  // Another kind of model explains every other difference, so it is named first.
  const auto saved_kind = saved.find("kind"), current_kind = current.find("kind");
  if (saved_kind != saved.end() && current_kind != current.end() && *saved_kind != *current_kind)
    differs(path, joined(key, "kind"), saved_kind->dump(), current_kind->dump());
  for (const auto& [name, value] : saved.items()) {
    const auto found = current.find(name);
    if (found == current.end()) differs(path, joined(key, name), value.dump(), "absent");
    compare(path, joined(key, name), value, *found);
  }
  for (const auto& [name, value] : current.items())
    if (!saved.contains(name)) differs(path, joined(key, name), "absent", value.dump());
}

}  // namespace

void save_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  Parameters<float> tensors;
  const Parameters<float>& weights = checkpoint.weights;
  for (const ParameterSlot& slot : weights.slots())
    tensors.value(tensors.add(slot.name, slot.rows, slot.cols)) = weights.value(weights.find(slot.name));
  const TrainingState& state = checkpoint.state;
  add_vector(tensors, kAdamM, state.optimizer.m);
  add_vector(tensors, kAdamV, state.optimizer.v);
  add_vector(tensors, kBestWeights, state.best_weights);
  save_model(path, checkpoint.config, tensors, Overwrite::allow,
             {{kStateKey, state_json(state, checkpoint.run).dump()}});
}

Checkpoint load_checkpoint(const std::string& path) {
  ModelFile file = load_model(path);
  const auto entry = file.metadata.find(kStateKey);
  if (entry == file.metadata.end() || !entry->is_string())
    throw ModelFormatError(path + ": a model file without training state, not a checkpoint");
  const nlohmann::json state = nlohmann::json::parse(entry->get<std::string>(), nullptr, false);
  if (state.is_discarded() || !state.is_object()) throw ModelFormatError(path + ": the training state is not valid JSON");
  const auto version = state.find("checkpoint_version");
  if (version == state.end() || *version != kCheckpointVersion)
    throw ModelFormatError(path + ": checkpoint version " + (version == state.end() ? "?" : version->dump()) +
                           " is not supported (expected " + std::to_string(kCheckpointVersion) + ")");
  Checkpoint checkpoint;
  checkpoint.config = std::move(file.config);
  try {
    read_state(state, checkpoint);
  } catch (const nlohmann::json::exception& e) {
    throw ModelFormatError(path + ": malformed training state: " + e.what());
  }
  const std::string prefix = std::string(kStateKey) + ".";
  const Parameters<float>& tensors = file.parameters;
  for (const ParameterSlot& slot : tensors.slots()) {
    if (slot.name.starts_with(prefix)) continue;
    checkpoint.weights.value(checkpoint.weights.add(slot.name, slot.rows, slot.cols)) =
        tensors.value(tensors.find(slot.name));
  }
  checkpoint.state.optimizer.m = vector_of(tensors, kAdamM, path);
  checkpoint.state.optimizer.v = vector_of(tensors, kAdamV, path);
  checkpoint.state.best_weights = vector_of(tensors, kBestWeights, path);
  return checkpoint;
}

void check_same_run(const std::string& path, const nlohmann::json& saved, const nlohmann::json& current) {
  compare(path, "", saved, current);
}

void check_same_precision(const std::string& path, const Checkpoint& checkpoint) {
  if (checkpoint.precision == precision()) return;
  throw ArgumentError(path + ": the checkpoint was written with " + std::string(precision_name(checkpoint.precision)) +
                      " products and this run computes in " + std::string(precision_name(precision())) +
                      " (resume with --precision " + std::string(precision_name(checkpoint.precision)) + ")");
}

void fingerprint(Sha256& digest, const ConstRowsRef<float>& values) {
  const std::int64_t shape[2] = {values.rows(), values.cols()};
  digest.update(shape, sizeof shape);
  for (Index row = 0; row < values.rows(); ++row)  // rows may lie apart: one update each, the same digest
    digest.update(values.row(row).data(), static_cast<std::size_t>(values.cols()) * sizeof(float));
}

void fingerprint(Sha256& digest, const Graph& graph) {
  const auto update = [&](const auto& span) { digest.update(span.data(), span.size_bytes()); };
  const std::int64_t nodes = graph.num_nodes();
  digest.update(&nodes, sizeof nodes);
  update(graph.in_offsets());
  update(graph.in_sources());
  update(graph.edge_positions());
}

}  // namespace edgewise

/// \file
/// Model files in the safetensors layout, so Python users can open the weights with common tools:
///
///   [8 bytes: little-endian u64 header length n][n bytes: JSON header][raw little-endian float32 data]
///
/// The header maps each parameter name to {"dtype": "F32", "shape": [rows, cols], "data_offsets":
/// [begin, end]} and holds "__metadata__" (string values only, as the format requires):
///   format = "edgewise", format_version, config (a JSON document: architecture, featurizer,
///   target scaling, task names...), data_sha256 (checksum of the data section), and optionally
///   training (a JSON document: the TrainingSummary below).
/// Loading checks all of it and throws ModelFormatError naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgewise/core/files.hpp"
#include "edgewise/core/parameters.hpp"

namespace edgewise {

/// The model file format this build writes; load_model refuses other versions.
inline constexpr int kModelFormatVersion = 1;

/// How a model was trained, for `edgewise info`. Every field is optional: what a caller did not
/// fill, and everything in files written before training was recorded, reads back as absent. Members
/// left out of a designated initializer are empty.
struct TrainingSummary {
  std::optional<std::string> data = {};   ///< the training data, e.g. the CSV or the edge list
  std::optional<Index> examples = {};     ///< molecules or nodes in it
  std::optional<std::string> split = {};  ///< how it was split, with the sizes
  std::optional<std::uint64_t> seed = {};  ///< the training seed
  std::optional<Index> max_epochs = {};   ///< the epoch limit
  std::vector<Index> epochs_run = {};     ///< per network (ensemble member)
  std::vector<Index> best_epochs = {};    ///< per network: the epoch whose weights were kept
  std::vector<std::pair<std::string, double>> metrics = {};  ///< in order, e.g. ("test rmse", 0.61); NaN: undefined
  /// Settings chosen by a rule from the data rather than given, and why, e.g. "dropout 0.5 (...)".
  std::optional<std::string> defaults = {};
};

/// JSON of a summary: absent optional fields are left out, NaN metrics are written as null.
void to_json(nlohmann::json& j, const TrainingSummary& summary);
/// Reads what to_json writes; missing keys stay absent or empty.
void from_json(const nlohmann::json& j, TrainingSummary& summary);

/// The contents of a model file.
struct ModelFile {
  nlohmann::json config;  ///< The model's configuration, as the model class wrote it.
  Parameters<float> parameters;  ///< The weights, one slot per safetensors tensor.
  nlohmann::json metadata;  ///< The whole "__metadata__" object, extra entries included.
  std::optional<TrainingSummary> training;  ///< Absent in files saved without one.
};

/// Writes atomically: the file appears complete under `path` or not at all (a temporary file in
/// the same folder is renamed over it), so a failed save never destroys an existing good model.
/// Overwrite::refuse keeps an existing file and throws Error instead. extra_metadata: further
/// "__metadata__" entries (training checkpoints add theirs); the file holds nothing that depends on
/// when or where it was written, so equal models give equal bytes.
void save_model(const std::string& path, const nlohmann::json& config, const Parameters<float>& parameters,
                Overwrite overwrite = Overwrite::allow, const std::map<std::string, std::string>& extra_metadata = {});

/// The "__metadata__" entry that stores `training` (none when it is absent), for save_model.
std::map<std::string, std::string> training_metadata(const std::optional<TrainingSummary>& training);

/// Reads and validates a model file. Throws ModelFormatError naming the file when it cannot be read or
/// is not a valid model file.
ModelFile load_model(const std::string& path);
/// The same for a model file's bytes already in memory; `source` names them in errors.
ModelFile parse_model(std::string_view bytes, const std::string& source);

/// The configuration's "kind" (which model wrote the file); empty when it has none or not a string.
std::string model_kind(const nlohmann::json& config);

/// Copies the values of `source` into `target` slot by slot, by name: target's slot "w" comes from
/// source's slot prefix + "w". Throws ModelFormatError naming the file when a slot is missing or has
/// another shape (the model was built with other options).
void restore_parameters(Parameters<float>& target, const Parameters<float>& source, const std::string& path,
                        const std::string& prefix = "");

}  // namespace edgewise

#include "edgewise/models/model_file.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string_view>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/json_integers.hpp"

namespace edgewise {
namespace {

static_assert(std::endian::native == std::endian::little, "model files are written in little-endian order");

constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw ModelFormatError(path + ": " + reason);
}

nlohmann::json tensor_entries(const Parameters<float>& parameters) {
  nlohmann::json header = nlohmann::json::object();
  for (const ParameterSlot& slot : parameters.slots()) {
    const auto begin = static_cast<std::uint64_t>(slot.offset) * sizeof(float);
    header[slot.name] = {{"dtype", "F32"},
                         {"shape", {slot.rows, slot.cols}},
                         {"data_offsets", {begin, begin + static_cast<std::uint64_t>(slot.size()) * sizeof(float)}}};
  }
  return header;
}

std::string build_header(const nlohmann::json& config, const Parameters<float>& parameters,
                         const std::map<std::string, std::string>& extra_metadata) {
  nlohmann::json header = tensor_entries(parameters);
  const auto values = parameters.values();
  nlohmann::json metadata = extra_metadata;
  metadata.update(nlohmann::json{{"format", "edgewise"},
                                 {"format_version", std::to_string(kModelFormatVersion)},
                                 {"config", config.dump()},
                                 {"data_sha256", sha256_hex(values.data(), values.size() * sizeof(float))}});
  header["__metadata__"] = std::move(metadata);
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned, as safetensors writers do
  return text;
}

// The JSON header, checked to be an edgewise header of this format version.
nlohmann::json parse_header(const std::string& path, std::string_view bytes) {
  if (bytes.size() < 8)
    fail(path, "truncated in the 8-byte header length: the file holds " + std::to_string(bytes.size()) + " bytes");
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  if (length > kMaxHeaderBytes)
    fail(path, "not an edgewise model file: the header length " + std::to_string(length) +
                   " is implausible (another kind of file, or corrupted bytes)");
  if (length > bytes.size() - 8)
    fail(path, "truncated in the JSON header: it is " + std::to_string(length) + " bytes long, the file holds " +
                   std::to_string(bytes.size() - 8) + " after the length");
  nlohmann::json header =
      nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(length), nullptr, false);
  if (header.is_discarded() || !header.is_object()) fail(path, "the JSON header is not valid JSON (corrupted bytes?)");
  const auto metadata = header.find("__metadata__");
  if (metadata == header.end() || !metadata->is_object() || metadata->value("format", "") != "edgewise")
    fail(path, "not an edgewise model file (no edgewise metadata in the JSON header)");
  if (metadata->value("format_version", "") != std::to_string(kModelFormatVersion))
    fail(path, "model format version " + metadata->value("format_version", "?") + " is not supported (expected " +
                   std::to_string(kModelFormatVersion) + "); a newer edgewise wrote it?");
  return header;
}

// One tensor's place in the data section, checked against its shape.
struct TensorEntry {
  std::string name;
  Index rows = 0, cols = 0;
  std::uint64_t begin = 0, end = 0;
};

TensorEntry tensor_entry(const std::string& path, const std::string& name, const nlohmann::json& entry) {
  const auto& shape = entry.at("shape");
  const auto& offsets = entry.at("data_offsets");
  const auto integer_pair = [](const nlohmann::json& pair) {
    return pair.is_array() && pair.size() == 2 && pair[0].is_number_integer() && pair[1].is_number_integer();
  };
  if (entry.at("dtype") != "F32" || !integer_pair(shape) || !integer_pair(offsets))
    fail(path, "tensor " + name + " is not a float32 matrix");
  // Dimensions are bounded before they are multiplied, so that no product overflows.
  constexpr std::int64_t kMaxDimension = (std::int64_t{1} << 31) - 1;
  const auto rows = shape[0].get<std::int64_t>(), cols = shape[1].get<std::int64_t>();
  if (rows < 0 || cols < 0 || rows > kMaxDimension || cols > kMaxDimension)
    fail(path, "tensor " + name + " has an impossible shape [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
  const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
  const auto bytes = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * sizeof(float);
  if (begin > end || end - begin != bytes || begin % sizeof(float) != 0)
    fail(path, "tensor " + name + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                   "] disagree with its shape [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
  return {name, rows, cols, begin, end};
}

// The header's tensors ordered by where their data lies (JSON objects come back sorted by name).
std::vector<TensorEntry> tensors_in_file_order(const std::string& path, const nlohmann::json& header) {
  std::vector<TensorEntry> tensors;
  for (const auto& [name, entry] : header.items())
    if (name != "__metadata__") tensors.push_back(tensor_entry(path, name, entry));
  std::sort(tensors.begin(), tensors.end(), [](const TensorEntry& a, const TensorEntry& b) { return a.begin < b.begin; });
  return tensors;
}

// The data section must hold every tensor and nothing after the last one.
void check_data_size(const std::string& path, const std::vector<TensorEntry>& tensors, std::uint64_t data_size) {
  std::uint64_t needed = 0;
  for (const TensorEntry& tensor : tensors) {
    if (tensor.end > data_size)
      fail(path, "truncated in the data section: tensor " + tensor.name + " needs bytes [" +
                     std::to_string(tensor.begin) + ", " + std::to_string(tensor.end) + ") of the data, the file holds " +
                     std::to_string(data_size));
    needed = std::max(needed, tensor.end);
  }
  if (data_size > needed)
    fail(path, std::to_string(data_size - needed) + " unexpected bytes after the last tensor of the data section");
}

std::optional<TrainingSummary> read_training(const std::string& path, const nlohmann::json& metadata) {
  const auto text = metadata.find("training");
  if (text == metadata.end()) return std::nullopt;
  try {
    return nlohmann::json::parse(text->get<std::string>()).get<TrainingSummary>();
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("the training summary is malformed: ") + e.what());
  }
}

template <typename T>
void write_optional(nlohmann::json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

template <typename T>
void read_optional(const nlohmann::json& j, const char* key, std::optional<T>& value) {
  if (j.contains(key)) value = j.at(key).get<T>();
}

}  // namespace

void to_json(nlohmann::json& j, const TrainingSummary& summary) {
  j = nlohmann::json::object();
  write_optional(j, "data", summary.data);
  write_optional(j, "examples", summary.examples);
  write_optional(j, "split", summary.split);
  write_optional(j, "seed", summary.seed);
  write_optional(j, "max_epochs", summary.max_epochs);
  j["epochs_run"] = summary.epochs_run;
  j["best_epochs"] = summary.best_epochs;
  j["metrics"] = nlohmann::json::array();
  for (const auto& [name, value] : summary.metrics) j["metrics"].push_back({{"name", name}, {"value", value}});
  write_optional(j, "defaults", summary.defaults);
}

void from_json(const nlohmann::json& j, TrainingSummary& summary) {
  summary = {};
  read_optional(j, "data", summary.data);
  read_optional(j, "examples", summary.examples);
  read_optional(j, "split", summary.split);
  read_optional(j, "seed", summary.seed);
  read_optional(j, "max_epochs", summary.max_epochs);
  read_optional(j, "defaults", summary.defaults);
  if (j.contains("epochs_run")) get_integer_to(j.at("epochs_run"), summary.epochs_run);
  if (j.contains("best_epochs")) get_integer_to(j.at("best_epochs"), summary.best_epochs);
  for (const nlohmann::json& metric : j.value("metrics", nlohmann::json::array())) {
    const nlohmann::json& value = metric.at("value");  // JSON has no NaN: it is written as null
    summary.metrics.emplace_back(metric.at("name").get<std::string>(),
                                 value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>());
  }
}

std::map<std::string, std::string> training_metadata(const std::optional<TrainingSummary>& training) {
  if (!training) return {};
  return {{"training", nlohmann::json(*training).dump()}};
}

void save_model(const std::string& path, const nlohmann::json& config, const Parameters<float>& parameters,
                Overwrite overwrite, const std::map<std::string, std::string>& extra_metadata) {
  const std::string header = build_header(config, parameters, extra_metadata);
  const std::uint64_t length = header.size();
  std::string bytes(reinterpret_cast<const char*>(&length), 8);
  bytes += header;
  const auto values = parameters.values();
  bytes.append(reinterpret_cast<const char*>(values.data()), static_cast<std::size_t>(values.size()) * sizeof(float));
  write_file_atomically(path, bytes, overwrite);
}

ModelFile load_model(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const Error& e) {
    throw ModelFormatError(e.what());  // load's contract: every failure to get a model is this type
  }
  return parse_model(bytes, path);
}

ModelFile parse_model(std::string_view bytes, const std::string& path) {
  try {
    const nlohmann::json header = parse_header(path, bytes);
    std::uint64_t length = 0;
    std::memcpy(&length, bytes.data(), 8);
    const char* data = bytes.data() + 8 + length;
    const std::uint64_t data_size = bytes.size() - 8 - length;
    const std::vector<TensorEntry> tensors = tensors_in_file_order(path, header);
    check_data_size(path, tensors, data_size);
    const auto& metadata = header.at("__metadata__");
    if (sha256_hex(data, data_size) != metadata.value("data_sha256", ""))
      fail(path, "checksum mismatch in the data section: the weights are corrupted");

    ModelFile model;
    model.metadata = metadata;
    model.config = nlohmann::json::parse(metadata.value("config", ""), nullptr, false);
    if (model.config.is_discarded() || !model.config.is_object())
      fail(path, "the model configuration is not a valid JSON object");
    model.training = read_training(path, metadata);
    for (const TensorEntry& tensor : tensors) {
      const ParameterHandle handle = model.parameters.add(tensor.name, tensor.rows, tensor.cols);
      std::memcpy(model.parameters.value(handle).data(), data + tensor.begin, tensor.end - tensor.begin);
    }
    return model;
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("malformed JSON header: ") + e.what());
  }
}

std::string model_kind(const nlohmann::json& config) {
  const auto kind = config.find("kind");
  return kind != config.end() && kind->is_string() ? kind->get<std::string>() : "";
}

void restore_parameters(Parameters<float>& target, const Parameters<float>& source, const std::string& path,
                        const std::string& prefix) {
  for (const ParameterSlot& slot : target.slots()) {
    const std::string name = prefix + slot.name;
    const ParameterHandle from = source.find(name);
    if (from.slot < 0) fail(path, "parameter " + name + " is missing");
    const ParameterSlot& stored = source.slot(from);
    if (stored.rows != slot.rows || stored.cols != slot.cols)
      fail(path, "parameter " + name + " is [" + std::to_string(stored.rows) + ", " + std::to_string(stored.cols) +
                     "], the model expects [" + std::to_string(slot.rows) + ", " + std::to_string(slot.cols) + "]");
    target.value(target.find(slot.name)) = source.value(from);
  }
}

}  // namespace edgewise

#include "edgewise/models/model_file.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"

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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the model file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json parse_header(const std::string& path, const std::string& bytes) {
  if (bytes.size() < 8) fail(path, "too short to be a model file (" + std::to_string(bytes.size()) + " bytes)");
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  if (length > kMaxHeaderBytes || length > bytes.size() - 8)
    fail(path, "not an edgewise model file, or truncated (header length " + std::to_string(length) + ")");
  nlohmann::json header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(length),
                                                nullptr, false);
  if (header.is_discarded() || !header.is_object()) fail(path, "the header is not valid JSON");
  const auto metadata = header.find("__metadata__");
  if (metadata == header.end() || metadata->value("format", "") != "edgewise")
    fail(path, "not an edgewise model file (no edgewise metadata)");
  if (metadata->value("format_version", "") != std::to_string(kModelFormatVersion))
    fail(path, "model format version " + metadata->value("format_version", "?") + " is not supported (expected " +
                   std::to_string(kModelFormatVersion) + ")");
  return header;
}

void check_tensor(const std::string& path, const std::string& name, const nlohmann::json& entry,
                  std::uint64_t data_size) {
  const auto& shape = entry.at("shape");
  const auto& offsets = entry.at("data_offsets");
  if (entry.at("dtype") != "F32" || shape.size() != 2 || offsets.size() != 2)
    fail(path, "tensor " + name + " is not a float32 matrix");
  const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
  const auto count = shape[0].get<std::uint64_t>() * shape[1].get<std::uint64_t>();
  if (begin > end || end > data_size || end - begin != count * sizeof(float) || begin % sizeof(float) != 0)
    fail(path, "tensor " + name + " lies outside the data or disagrees with its shape (truncated file?)");
}

// The header's tensors ordered by where their data lies (JSON objects come back sorted by name).
std::vector<std::pair<std::string, nlohmann::json>> tensors_in_file_order(const nlohmann::json& header) {
  std::vector<std::pair<std::string, nlohmann::json>> tensors;
  for (const auto& [name, entry] : header.items())
    if (name != "__metadata__") tensors.emplace_back(name, entry);
  const auto begin = [](const auto& tensor) { return tensor.second.at("data_offsets").at(0).template get<std::uint64_t>(); };
  std::sort(tensors.begin(), tensors.end(), [&](const auto& a, const auto& b) { return begin(a) < begin(b); });
  return tensors;
}

}  // namespace

void save_model(const std::string& path, const nlohmann::json& config, const Parameters<float>& parameters,
                const std::map<std::string, std::string>& extra_metadata) {
  const std::string header = build_header(config, parameters, extra_metadata);
  const std::uint64_t length = header.size();
  std::string bytes(reinterpret_cast<const char*>(&length), 8);
  bytes += header;
  const auto values = parameters.values();
  bytes.append(reinterpret_cast<const char*>(values.data()), static_cast<std::size_t>(values.size()) * sizeof(float));
  write_file_atomically(path, bytes);
}

ModelFile load_model(const std::string& path) {
  const std::string bytes = read_file(path);
  const nlohmann::json header = parse_header(path, bytes);
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  const char* data = bytes.data() + 8 + length;
  const std::uint64_t data_size = bytes.size() - 8 - length;
  const auto& metadata = header.at("__metadata__");
  if (sha256_hex(data, data_size) != metadata.value("data_sha256", ""))
    fail(path, "checksum mismatch: the weights are corrupted or the file is truncated");

  ModelFile model;
  model.metadata = metadata;
  model.config = nlohmann::json::parse(metadata.value("config", ""), nullptr, false);
  if (model.config.is_discarded()) fail(path, "the model configuration is not valid JSON");
  try {
    for (const auto& [name, entry] : tensors_in_file_order(header)) {
      check_tensor(path, name, entry, data_size);
      const ParameterHandle handle = model.parameters.add(name, entry["shape"][0].get<Index>(), entry["shape"][1].get<Index>());
      std::memcpy(model.parameters.value(handle).data(), data + entry["data_offsets"][0].get<std::uint64_t>(),
                  static_cast<std::size_t>(model.parameters.slot(handle).size()) * sizeof(float));
    }
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("malformed tensor entry: ") + e.what());
  }
  return model;
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

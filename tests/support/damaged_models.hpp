// Damaged copies of a good model file, for the tests that every loader refuses them with a message
// naming the section at fault: truncated at every section boundary and inside every tensor, bytes
// flipped in each section, a future format version, foreign headers and impossible shapes.
#pragma once

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgewise::testing {

struct DamagedModel {
  std::string name;                 // a file name for the case
  std::string bytes;                // the damaged file
  std::vector<std::string> expect;  // fragments of the loader's message
};

namespace detail {

inline std::uint64_t header_length(const std::string& file) {
  std::uint64_t length = 0;
  std::memcpy(&length, file.data(), 8);
  return length;
}

// The file with its JSON header replaced by `header` (padded to 8 bytes as writers do).
inline std::string with_header(const std::string& file, const nlohmann::json& header) {
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const std::uint64_t length = text.size();
  return std::string(reinterpret_cast<const char*>(&length), 8) + text + file.substr(8 + header_length(file));
}

inline std::string flipped(std::string file, std::size_t position) {
  file[position] = static_cast<char>(file[position] ^ 0xff);
  return file;
}

}  // namespace detail

inline std::vector<DamagedModel> damaged_models(const std::string& good) {
  const std::uint64_t length = detail::header_length(good);
  const std::size_t data = 8 + length;
  const nlohmann::json header = nlohmann::json::parse(good.substr(8, length));
  std::vector<DamagedModel> cases = {
      {"empty.ew", "", {"truncated in the 8-byte header length"}},
      {"cut_in_length.ew", good.substr(0, 4), {"truncated in the 8-byte header length", "4 bytes"}},
      {"cut_after_length.ew", good.substr(0, 8), {"truncated in the JSON header"}},
      {"cut_in_header.ew", good.substr(0, 8 + length / 2), {"truncated in the JSON header"}},
      {"cut_after_header.ew", good.substr(0, data), {"truncated in the data section"}},
      {"cut_one_byte_short.ew", good.substr(0, good.size() - 1), {"truncated in the data section"}},
      {"extra_bytes.ew", good + "xx", {"2 unexpected bytes after the last tensor"}},
      {"flipped_length.ew", detail::flipped(good, 3), {"header length", "implausible"}},
      {"flipped_header.ew", detail::flipped(good, 8), {"JSON header is not valid JSON"}},
      {"flipped_data.ew", detail::flipped(good, good.size() - 3), {"checksum mismatch in the data section"}},
  };
  // Cut at the start and in the middle of every tensor: the message names the tensor.
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const auto begin = entry["data_offsets"][0].get<std::size_t>(), end = entry["data_offsets"][1].get<std::size_t>();
    if (begin > 0)
      cases.push_back({"cut_before_" + name + ".ew", good.substr(0, data + begin), {"data section: tensor " + name}});
    cases.push_back({"cut_inside_" + name + ".ew", good.substr(0, data + (begin + end) / 2), {"data section: tensor " + name}});
  }
  nlohmann::json future = header;
  future["__metadata__"]["format_version"] = "2";
  cases.push_back({"future_version.ew", detail::with_header(good, future), {"format version 2 is not supported"}});
  nlohmann::json foreign = header;
  foreign.erase("__metadata__");
  cases.push_back({"plain_safetensors.ew", detail::with_header(good, foreign), {"no edgewise metadata"}});
  nlohmann::json scalar_metadata = header;
  scalar_metadata["__metadata__"] = 5;
  cases.push_back({"scalar_metadata.ew", detail::with_header(good, scalar_metadata), {"no edgewise metadata"}});
  nlohmann::json typed_metadata = header;
  typed_metadata["__metadata__"]["format_version"] = 1;
  cases.push_back({"number_version.ew", detail::with_header(good, typed_metadata), {"malformed JSON header"}});
  // A shape whose byte count wraps around 2^64 to the tensor's real size.
  nlohmann::json huge = header;
  for (auto& [name, entry] : huge.items()) {
    if (name == "__metadata__") continue;
    entry["shape"] = {std::uint64_t{1} << 62, 1};
    entry["data_offsets"] = {0, 0};
    break;
  }
  cases.push_back({"impossible_shape.ew", detail::with_header(good, huge), {"impossible shape"}});
  nlohmann::json wrong_kind = header;
  nlohmann::json config = nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>());
  config["kind"] = "graph-regression-v0";
  wrong_kind["__metadata__"]["config"] = config.dump();
  cases.push_back({"wrong_kind.ew", detail::with_header(good, wrong_kind), {"kind 'graph-regression-v0'"}});
  return cases;
}

}  // namespace edgewise::testing

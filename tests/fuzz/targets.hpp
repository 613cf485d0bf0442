// The entry points that the fuzz targets drive: one per reader, each feeding one input to the
// library's in-memory parser the way the command-line tool would read a file. The libFuzzer targets
// (fuzz_target.cpp) and the regression test (test_regressions.cpp) share them, so an input replays
// exactly as it was fuzzed.
//
// An input is handled when the reader returns or throws edgewise::Error; anything else (another
// exception, a crash, a leak, undefined behaviour, a hang) is a finding.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/graph/positional.hpp"
#include "edgewise/splits/link_split.hpp"
#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/node_features.hpp"
#include "edgewise/io/node_labels.hpp"
#include "edgewise/io/graph_parts.hpp"
#include "edgewise/io/graph_store.hpp"
#include "edgewise/chem/molecule_dataset.hpp"
#include "edgewise/io/npy.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise::fuzz {

using EntryPoint = void (*)(std::string_view input);

// SMILES in column 0 and a target in column 1, skipping molecules RDKit cannot read, so that a
// bad SMILES does not end the run before the targets are parsed.
inline void molecule_csv(std::string_view input) {
  MoleculeCsvOptions options;
  options.target_columns = {Index{1}};
  options.invalid_molecules = InvalidMoleculePolicy::skip;
  parse_molecule_csv(input, "fuzz.csv", options);
}

// One SMILES a line through MoleculeModel::predict_smiles, the path of `edgewise predict`, with a
// small untrained model whose featurizer computes every descriptor and the Crippen contributions, so
// that every RDKit computation a prediction can make runs on the fuzzed molecules. One molecule must
// never stop a prediction: a MoleculeError escaping it is a finding, not a refusal.
inline void smiles(std::string_view input) {
  static const MoleculeModel model = [] {
    MoleculeModelConfig config;
    config.network.hidden = 8;
    config.network.heads = 2;
    config.network.layers = 1;
    config.network.head_hidden = 4;
    config.featurizer.descriptors = available_descriptors();
    config.featurizer.crippen_contributions = true;
    config.tasks = {"y"};
    MoleculeModel untrained(config);
    untrained.initialize(1);
    return untrained;
  }();
  std::size_t begin = 0;
  try {
    model.predict_smiles(
        [&](std::string& smiles) {
          if (begin > input.size()) return false;
          const std::size_t end = std::min(input.find('\n', begin), input.size());
          smiles.assign(input.substr(begin, end - begin));
          begin = end + 1;
          return true;
        },
        [](const PredictedRow&) {});
  } catch (const MoleculeError& e) {
    throw std::logic_error(std::string("one molecule stopped predict_smiles: ") + e.what());
  }
}

inline void sdf(std::string_view input) {
  parse_molecule_sdf(std::string(input), "fuzz.sdf", {"target"}, InvalidMoleculePolicy::skip);
}

// The random-walk features of a small graph (the structural features of a graph without a features
// file), computed both ways: per start node and in blocks of start nodes must agree.
inline void check_random_walks(const EdgeList& edges) {
  if (edges.nodes.size() == 0 || edges.nodes.size() > 2000 || edges.edges.size() > 20000) return;
  const Graph graph = edges.to_graph();
  constexpr Index kSteps = 16;
  const Matrix<double> per_start = random_walk_encoding<double>(graph, kSteps, RandomWalkMethod::per_start);
  const Matrix<double> blocked = random_walk_encoding<double>(graph, kSteps, RandomWalkMethod::blocked);
  if (!((per_start - blocked).cwiseAbs().maxCoeff() <= 1e-12))
    throw std::logic_error("random walks per start node and in blocks disagree");
}

// Integer ids (the common case, with header detection) and string ids both, each undirected and
// directed.
inline void edge_list(std::string_view input) {
  for (const NodeIds ids : {NodeIds::integer, NodeIds::string}) {
    for (const bool directed : {false, true}) {
      try {
        check_random_walks(parse_edge_list(input, "fuzz.edges", {.ids = ids, .directed = directed}));
      } catch (const Error&) {
      }
    }
  }
}

// Integer and string ids, with the default columns and with columns named by the header.
inline void labels(std::string_view input) {
  for (const NodeIds ids : {NodeIds::integer, NodeIds::string}) {
    for (const bool named : {false, true}) {
      NodeIndex nodes;
      nodes.add("0");
      LabelOptions options{.ids = ids, .unknown_nodes = UnknownNodes::add};
      if (named) {
        options.node_column = "id";
        options.label_column = "target";
      }
      try {
        parse_node_labels(input, "fuzz.labels", nodes, options);
      } catch (const Error&) {
      }
    }
  }
}

// A matrix limit of 4 MB instead of the default 4 GiB keeps every execution fast and within the
// fuzzer's memory limit, and still reaches the check.
inline void features(std::string_view input, FeatureFormat format) {
  NodeIndex nodes;
  nodes.add("0");
  parse_node_features(input, "fuzz.features", nodes,
                      {.format = format, .unknown_nodes = UnknownNodes::add, .max_values = Index{1} << 20});
}

inline void features_dense(std::string_view input) { features(input, FeatureFormat::dense); }
inline void features_sparse(std::string_view input) { features(input, FeatureFormat::sparse); }
inline void features_musae_json(std::string_view input) { features(input, FeatureFormat::musae_json); }

// A fuzzer cannot guess a SHA-256, so a mutated file would never get past the checksum. Where the
// header holds "data_sha256":"<64 characters>", those characters are replaced by the checksum of
// the data section (same length, so the header length stays as the input gives it); every other
// byte reaches the loader as fuzzed.
inline std::string with_valid_checksum(std::string_view input) {
  std::string bytes(input);
  if (bytes.size() < 8) return bytes;
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  if (header_length > bytes.size() - 8) return bytes;
  const std::string_view header = std::string_view(bytes).substr(8, header_length);
  constexpr std::string_view key = "\"data_sha256\":\"";
  const std::size_t at = header.find(key);
  constexpr std::size_t hex_length = 64;
  if (at == std::string_view::npos || at + key.size() + hex_length > header.size()) return bytes;
  const std::size_t data_begin = 8 + header_length;
  const std::string checksum = sha256_hex(bytes.data() + data_begin, bytes.size() - data_begin);
  std::copy(checksum.begin(), checksum.end(), bytes.begin() + static_cast<std::ptrdiff_t>(8 + at + key.size()));
  return bytes;
}

inline void model_file(std::string_view input) { parse_model(with_valid_checksum(input), "fuzz.ew"); }

// The same for graph stores (io/graph_store.cpp describes the layout), whose 56-byte preamble holds
// the JSON header's length at byte 16 and its SHA-256 at byte 24, and whose header lists the digest
// (XXH3-128) of every 64 MiB chunk of every section. Where the header is JSON, each section's digests are
// recomputed from the bytes it names (when they lie in the input), the header is written back, and
// the preamble's length and digest are set to match: the reader then sees the fuzzed contents of the
// sections and of the header's values rather than stopping at a checksum.
inline std::string with_valid_store_checksums(std::string_view input) {
  constexpr std::size_t kPreamble = 56, kLengthAt = 16, kDigestAt = 24;
  constexpr std::uint64_t kChunk = std::uint64_t{64} << 20;
  std::string bytes(input);
  if (bytes.size() < kPreamble) return bytes;
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data() + kLengthAt, 8);
  if (length > bytes.size() - kPreamble) return bytes;
  nlohmann::json header = nlohmann::json::parse(input.substr(kPreamble, length), nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("sections") || !header["sections"].is_array())
    return bytes;
  for (nlohmann::json& section : header["sections"]) {
    if (!section.is_object() || !section.contains("offset") || !section.contains("bytes") ||
        !section["offset"].is_number_unsigned() || !section["bytes"].is_number_unsigned())
      continue;
    const auto offset = section["offset"].get<std::uint64_t>(), size = section["bytes"].get<std::uint64_t>();
    if (offset > bytes.size() || size > bytes.size() - offset) continue;
    nlohmann::json digests = nlohmann::json::array();
    for (std::uint64_t begin = 0; begin < size; begin += kChunk)
      digests.push_back(xxh3_hex(bytes.data() + offset + begin, std::min(kChunk, size - begin)));
    section["xxh3_128"] = digests;
  }
  // Written over the old header, without moving the sections: padded with spaces (JSON allows them)
  // when shorter, spilling into the bytes after it when longer.
  std::string text = header.dump();
  text.resize(std::max<std::size_t>(text.size(), length), ' ');
  bytes.replace(kPreamble, std::min(text.size(), bytes.size() - kPreamble), text);
  const std::uint64_t new_length = text.size();
  std::memcpy(bytes.data() + kLengthAt, &new_length, 8);
  const std::string digest = sha256_hex(text.data(), text.size());
  const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i < 32; ++i)
    bytes[kDigestAt + i] = static_cast<char>(nibble(digest[2 * i]) * 16 + nibble(digest[2 * i + 1]));
  return bytes;
}

// A store is opened from memory, then read through every accessor; to_node_graph only where its
// dense copy stays small, as the fuzzer's memory limit asks.
inline void graph_store(std::string_view input) {
  const GraphStore store = GraphStore::from_bytes(with_valid_store_checksums(input), "fuzz.ewg");
  const Index n = store.num_nodes(), dim = store.feature_dim();
  const Index shown = std::min<Index>(n, 16);
  std::vector<NodeId> nodes;
  for (Index id = 0; id < shown; ++id) {
    store.node_name(id);
    nodes.push_back(static_cast<NodeId>(id));
  }
  if (dim <= (Index{1} << 16)) {
    std::vector<float> rows(static_cast<std::size_t>(shown * dim));
    store.gather_features(nodes, rows.data());
  }
  if (store.part()) {
    stored_graph_part(store);
  } else if (n <= (Index{1} << 12) && n * dim <= (Index{1} << 20)) {
    store.to_node_graph();
  }
}

// A file of node pairs (predict --pairs, a link split's files), nodes named by integers below 1000.
inline void node_pairs(std::string_view input) {
  const NodeLookup lookup = [](std::string_view name) -> Index {
    Index node = -1;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), node);
    return error == std::errc() && end == name.data() + name.size() && node < 1000 ? node : -1;
  };
  parse_node_pairs(input, "fuzz.pairs", 1000, lookup);
}

// A .npy file read from memory, its first rows copied out as float32.
inline void npy(std::string_view input) {
  const NpyMatrix matrix = NpyMatrix::from_bytes(input, "fuzz.npy");
  const Index rows = std::min<Index>(matrix.rows(), 64);
  std::vector<float> values(static_cast<std::size_t>(rows * matrix.cols()));
  matrix.copy_rows(0, rows, values.data());
  static_cast<void>(matrix.view());
}

struct Target {
  std::string_view name;  // also the folder of its seed corpus and of its regression inputs
  EntryPoint entry;
};

inline const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"molecule_csv", molecule_csv},
      {"smiles", smiles},
      {"sdf", sdf},
      {"edge_list", edge_list},
      {"labels", labels},
      {"features_dense", features_dense},
      {"features_sparse", features_sparse},
      {"features_musae_json", features_musae_json},
      {"model_file", model_file},
      {"graph_store", graph_store},
      {"npy", npy},
      {"node_pairs", node_pairs},
  };
  return all;
}

// The entry point of the target with this name; null when there is none.
inline EntryPoint entry_point(std::string_view name) {
  for (const Target& target : targets())
    if (target.name == name) return target.entry;
  return nullptr;
}

// Runs one input: returns normally when the reader accepted or refused it with an edgewise::Error;
// any other exception escapes to the caller.
inline void run(EntryPoint entry, std::string_view input) {
  try {
    entry(input);
  } catch (const Error&) {
  }
}

}  // namespace edgewise::fuzz

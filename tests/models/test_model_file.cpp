// Model files: round trip, and refusal of truncated, corrupted and foreign files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/models/model_file.hpp"

namespace edgewise {
namespace {

namespace fs = std::filesystem;

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("edgewise_model_file_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    const ParameterHandle w = params_.add("layer.w", 3, 4);
    const ParameterHandle b = params_.add("layer.b", 1, 4);
    params_.value(w).setRandom();
    params_.value(b).setRandom();
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  std::string saved_bytes() {
    save_model(path("m.ew"), config_, params_);
    std::ifstream in(path("m.ew"), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  void expect_refused(const std::string& name, const std::string& reason) {
    try {
      load_model(path(name));
      FAIL() << "loaded " << name;
    } catch (const ModelFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(path(name)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }

  fs::path folder_;
  Parameters<float> params_;
  nlohmann::json config_ = {{"task", "graph"}, {"targets", {"logS"}}};
};

TEST_F(ModelFileTest, RoundTripIsBitIdentical) {
  save_model(path("m.ew"), config_, params_);
  const ModelFile loaded = load_model(path("m.ew"));
  EXPECT_EQ(loaded.config, config_);
  EXPECT_EQ(loaded.parameters.values(), params_.values());
  ASSERT_EQ(loaded.parameters.slots().size(), 2u);
  Parameters<float> fresh;
  fresh.add("layer.w", 3, 4);
  fresh.add("layer.b", 1, 4);
  restore_parameters(fresh, loaded.parameters, path("m.ew"));
  EXPECT_EQ(fresh.values(), params_.values());
}

TEST_F(ModelFileTest, BytesInMemoryLoadAsTheFileWould) {
  const std::string bytes = saved_bytes();
  const ModelFile parsed = parse_model(bytes, "memory.ew");
  EXPECT_EQ(parsed.config, config_);
  EXPECT_EQ(parsed.parameters.values(), params_.values());
  try {
    parse_model(bytes.substr(0, bytes.size() - 1), "memory.ew");
    FAIL() << "a truncated model was read";
  } catch (const ModelFormatError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("memory.ew: ")) << e.what();
  }
}

TEST_F(ModelFileTest, HeaderIsSafetensorsJson) {
  const std::string bytes = saved_bytes();
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  EXPECT_EQ(length % 8, 0u);
  const auto header = nlohmann::json::parse(bytes.substr(8, length));
  EXPECT_EQ(header["layer.w"]["dtype"], "F32");
  EXPECT_EQ(header["layer.w"]["shape"], nlohmann::json({3, 4}));
  EXPECT_EQ(header["layer.b"]["data_offsets"], nlohmann::json({48, 64}));
  EXPECT_EQ(header["__metadata__"]["format"], "edgewise");
}

TEST_F(ModelFileTest, RefusesTruncatedFiles) {
  const std::string bytes = saved_bytes();
  write("short.ew", bytes.substr(0, 5));
  expect_refused("short.ew", "truncated in the 8-byte header length");
  write("cut.ew", bytes.substr(0, bytes.size() - 3));
  expect_refused("cut.ew", "truncated in the data section: tensor layer.b");
  write("header.ew", bytes.substr(0, 40));
  expect_refused("header.ew", "truncated in the JSON header");
}

TEST_F(ModelFileTest, RefusesCorruptedWeights) {
  std::string bytes = saved_bytes();
  bytes[bytes.size() - 2] ^= 0x40;
  write("flipped.ew", bytes);
  expect_refused("flipped.ew", "checksum mismatch");
}

TEST_F(ModelFileTest, RefusesForeignFiles) {
  write("text.ew", "SMILES,TPSA\nCCO,20.23\n");
  expect_refused("text.ew", "not an edgewise model file");
  const std::string foreign_header = R"({"w":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}})";
  std::string bytes(8, '\0');
  const std::uint64_t length = foreign_header.size();
  std::memcpy(bytes.data(), &length, 8);
  write("foreign.ew", bytes + foreign_header + std::string(4, '\0'));
  expect_refused("foreign.ew", "no edgewise metadata");
  expect_refused("missing.ew", "cannot open");
}

// A model file of this header and data, with the header's "data_sha256" set to the data's checksum
// where the header has a "__metadata__" object.
std::string model_bytes(nlohmann::json header, const std::string& data = "") {
  if (header.contains("__metadata__") && header["__metadata__"].is_object())
    header["__metadata__"]["data_sha256"] = sha256_hex(data.data(), data.size());
  const std::string text = header.dump();
  std::string bytes(8, '\0');
  const std::uint64_t length = text.size();
  std::memcpy(bytes.data(), &length, 8);
  return bytes + text + data;
}

// Headers found by fuzzing (tests/fuzz/regressions/model_file/): each once escaped as a JSON type
// error or reached the parameters with a negative or overflowing shape.
TEST(ModelFileHeaders, MalformedEntriesAreModelFormatErrors) {
  const nlohmann::json metadata = {{"format", "edgewise"}, {"format_version", "1"}, {"config", "{}"}};
  const auto refusal = [](const std::string& bytes) -> std::string {
    try {
      parse_model(bytes, "bad.ew");
    } catch (const ModelFormatError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ModelFormatError";
    return "";
  };
  EXPECT_NE(refusal(model_bytes({{"__metadata__", {1}}})).find("no edgewise metadata"), std::string::npos);
  EXPECT_NE(refusal(model_bytes({{"__metadata__", {{"format", 1}}}})).find("malformed JSON header"), std::string::npos);
  EXPECT_NE(refusal(model_bytes({{"__metadata__", {{"format", "edgewise"}, {"format_version", 1}}}}))
                .find("malformed JSON header"),
            std::string::npos);
  nlohmann::json object_config = metadata;
  object_config["config"] = {{"kind", "x"}};
  EXPECT_NE(refusal(model_bytes({{"__metadata__", object_config}})).find("malformed JSON header"), std::string::npos);

  const auto tensor = [&](const nlohmann::json& shape, const nlohmann::json& offsets, const std::string& data) {
    return model_bytes({{"w", {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", offsets}}}, {"__metadata__", metadata}},
                       data);
  };
  EXPECT_NE(refusal(tensor({-1, -4}, {0, 16}, std::string(16, '\0'))).find("tensor w has an impossible shape"),
            std::string::npos);
  EXPECT_NE(refusal(tensor({1.5, 2}, {0, 12}, std::string(12, '\0'))).find("tensor w is not a float32 matrix"),
            std::string::npos);
  EXPECT_NE(refusal(tensor({std::uint64_t{1} << 62, 4}, {0, 0}, "")).find("tensor w has an impossible shape"),
            std::string::npos);
  EXPECT_NO_THROW(parse_model(tensor({2, 2}, {0, 16}, std::string(16, '\0')), "good.ew"));
}

TEST_F(ModelFileTest, RefusesParametersOfAnotherShape) {
  save_model(path("m.ew"), config_, params_);
  const ModelFile loaded = load_model(path("m.ew"));
  Parameters<float> other;
  other.add("layer.w", 4, 4);
  EXPECT_THROW(restore_parameters(other, loaded.parameters, path("m.ew")), ModelFormatError);
}

TEST_F(ModelFileTest, SavingReplacesAtomicallyAndLeavesNoTemporaryFiles) {
  save_model(path("m.ew"), config_, params_);
  params_.values().setZero();
  save_model(path("m.ew"), config_, params_);
  EXPECT_EQ(load_model(path("m.ew")).parameters.values(), params_.values());
  EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator{}), 1);
  EXPECT_THROW(save_model(path("no/such/folder/m.ew"), config_, params_), Error);
}

TEST_F(ModelFileTest, TrainingSummaryRoundTripsWithMissingFieldsAndNaN) {
  save_model(path("m.ew"), config_, params_);
  EXPECT_FALSE(load_model(path("m.ew")).training.has_value()) << "a file saved without a summary has none";
  TrainingSummary summary{.data = "esol.csv",
                          .examples = 1128,
                          .seed = 3,
                          .epochs_run = {40, 35},
                          .best_epochs = {10, 5},
                          .metrics = {{"validation rmse", 0.61}, {"test r2", std::nan("")}}};
  save_model(path("s.ew"), config_, params_, Overwrite::allow, training_metadata(summary));
  const std::optional<TrainingSummary> loaded = load_model(path("s.ew")).training;
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->data, "esol.csv");
  EXPECT_EQ(loaded->examples, 1128);
  EXPECT_FALSE(loaded->split.has_value());
  EXPECT_FALSE(loaded->max_epochs.has_value());
  EXPECT_EQ(loaded->seed, 3u);
  EXPECT_EQ(loaded->epochs_run, (std::vector<Index>{40, 35}));
  EXPECT_EQ(loaded->best_epochs, (std::vector<Index>{10, 5}));
  ASSERT_EQ(loaded->metrics.size(), 2u);
  EXPECT_EQ(loaded->metrics[0], (std::pair<std::string, double>{"validation rmse", 0.61}));
  EXPECT_EQ(loaded->metrics[1].first, "test r2");
  EXPECT_TRUE(std::isnan(loaded->metrics[1].second));
}

TEST_F(ModelFileTest, RefusesAMalformedTrainingSummary) {
  const std::string bytes = saved_bytes();
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, length));
  header["__metadata__"]["training"] = R"({"examples": "many"})";
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string edited(8, '\0');
  const std::uint64_t edited_length = text.size();
  std::memcpy(edited.data(), &edited_length, 8);
  write("summary.ew", edited + text + bytes.substr(8 + length));
  expect_refused("summary.ew", "training summary is malformed");
}

}  // namespace
}  // namespace edgewise

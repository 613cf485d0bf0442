#include "edgewise/datasets/uniform.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/random.hpp"

namespace edgewise {
namespace {

struct ReferenceChecksum {
  Index nodes;
  Index edges;
  const char* sha256;
};

// The table of shared/peers/README.md, "The uniform random workload".
constexpr ReferenceChecksum reference_checksums[] = {
    {10'000, 160'000, "7bc11fe0b547e0dd756c2e302f6625e8b05fac6e460b7f1b65e5055d5cefad77"},
    {50'000, 800'000, "62834071a4dfc8288fb6033966484fd5da2742f0d4a8c0109dda745834f9251b"},
    {100'000, 1'600'000, "f37622b24e237e2809d28c8203755b101e81dfff432c1e3bbd932ffa5a0b2776"},
    {200'000, 3'200'000, "f9c4b025554d5790208dd7005896c1c09af7e2ceb74b6f55a78cb694b1d65fa5"},
};

TEST(UniformWorkload, EdgeChecksumsMatchThePeerTable) {
  for (const auto& reference : reference_checksums) {
    const UniformWorkload workload = uniform_random_workload(reference.nodes, reference.edges, 0);
    EXPECT_EQ(edges_sha256(workload.sources, workload.targets), reference.sha256)
        << "N = " << reference.nodes << ", E = " << reference.edges;
  }
}

TEST(UniformWorkload, FirstEdgesMatchThePeerRecipe) {
  const UniformWorkload workload = uniform_random_workload(10'000, 4, 0);
  const std::vector<std::pair<Index, Index>> expected = {{2465, 8519}, {590, 235}, {8761, 48}, {7045, 533}};
  for (std::size_t e = 0; e < expected.size(); ++e) {
    EXPECT_EQ(workload.sources[e], expected[e].first) << "edge " << e;
    EXPECT_EQ(workload.targets[e], expected[e].second) << "edge " << e;
  }
}

TEST(UniformWorkload, GraphKeepsTheDrawnEdgesInOrder) {
  const UniformWorkload workload = uniform_random_workload(50, 2'000, 0);
  const Graph& graph = workload.graph;
  ASSERT_EQ(graph.num_nodes(), 50);
  ASSERT_EQ(graph.num_edges(), 2'000);
  for (Index e = 0; e < graph.num_edges(); ++e) {
    EXPECT_EQ(graph.source(e), workload.sources[static_cast<std::size_t>(e)]) << "edge " << e;
    EXPECT_EQ(graph.target(e), workload.targets[static_cast<std::size_t>(e)]) << "edge " << e;
  }
}

TEST(UniformWorkload, FeaturesAreUniformInMinusOneToOne) {
  const UniformWorkload workload = uniform_random_workload(1'000, 0, 64);
  const Matrix<float>& x = workload.features;
  ASSERT_EQ(x.rows(), 1'000);
  ASSERT_EQ(x.cols(), 64);
  EXPECT_GE(x.minCoeff(), -1.0f);
  EXPECT_LT(x.maxCoeff(), 1.0f);
  EXPECT_NEAR(x.mean(), 0.0f, 0.01f);
}

TEST(UniformWorkload, FeaturesComeFromTheirOwnStream) {
  SplitMix64 stream(2);
  const float first = static_cast<float>(stream.next() >> 40) * 0x1p-24f * 2.0f - 1.0f;
  const float second = static_cast<float>(stream.next() >> 40) * 0x1p-24f * 2.0f - 1.0f;
  const UniformWorkload workload = uniform_random_workload(3, 10, 2);
  EXPECT_EQ(workload.features(0, 0), first);
  EXPECT_EQ(workload.features(0, 1), second);
}

TEST(UniformWorkload, RejectsInvalidSizes) {
  EXPECT_THROW(uniform_random_workload(-1, 0, 0), ArgumentError);
  EXPECT_THROW(uniform_random_workload(10, -1, 0), ArgumentError);
  EXPECT_THROW(uniform_random_workload(10, 0, -1), ArgumentError);
  EXPECT_THROW(uniform_random_workload(0, 5, 0), ArgumentError);
  EXPECT_THROW(uniform_random_workload(Index{1} << 31, 0, 0), ArgumentError);
}

TEST(EdgesSha256, HashesLittleEndianInt32Pairs) {
  // `printf '\x01\x00\x00\x00\x02\x00\x00\x00' | sha256sum`
  const std::vector<Index> sources = {1};
  const std::vector<Index> targets = {2};
  EXPECT_EQ(edges_sha256(sources, targets), "34fb5c825de7ca4aea6e712f19d439c1da0c92c37b423936c5f618545ca4fa1f");
  EXPECT_EQ(edges_sha256({}, {}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(EdgesSha256, RejectsMismatchedOrOversizedIds) {
  const std::vector<Index> one = {1};
  const std::vector<Index> two = {1, 2};
  const std::vector<Index> huge = {Index{1} << 32};
  EXPECT_THROW(edges_sha256(one, two), ArgumentError);
  EXPECT_THROW(edges_sha256(huge, one), ArgumentError);
}

}  // namespace
}  // namespace edgewise

#include "edgewise/datasets/rmat.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/parallel.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using testing::argument_error_of;

// Row `node` of `in`: the sources of its in-edges.
std::span<const NodeId> row_of(const InEdges& in, Index node) {
  return in.sources.subspan(static_cast<std::size_t>(in.offsets[node]),
                            static_cast<std::size_t>(in.offsets[node + 1] - in.offsets[node]));
}

bool has_edge(const InEdges& in, Index source, Index target) {
  const auto row = row_of(in, target);
  return std::binary_search(row.begin(), row.end(), static_cast<NodeId>(source));
}

// Offsets from 0, non-decreasing, ending at E; every row strictly increasing (sorted, no duplicates), in
// range and holding its self-loop; every edge's reverse present. Reports the first problem only.
void expect_symmetric_csr_with_self_loops(const RmatGraph& graph) {
  const InEdges in = graph.in_edges();
  const Index n = graph.num_nodes();
  ASSERT_EQ(in.num_nodes(), n);
  ASSERT_EQ(in.offsets[0], 0);
  ASSERT_EQ(in.offsets[n], in.num_edges());
  for (Index v = 0; v < n; ++v) {
    ASSERT_LE(in.offsets[v], in.offsets[v + 1]) << "node " << v;
    const auto row = row_of(in, v);
    const bool increasing = std::ranges::adjacent_find(row, std::greater_equal<>()) == row.end();
    ASSERT_TRUE(increasing) << "row " << v << " is not increasing";
    ASSERT_TRUE(has_edge(in, v, v)) << "no self-loop at " << v;
    for (const NodeId u : row) {
      ASSERT_TRUE(u >= 0 && u < n) << "source " << u << " of node " << v;
      ASSERT_TRUE(has_edge(in, v, u)) << u << " -> " << v << " without " << v << " -> " << u;
    }
  }
}

// The largest in-degree over the mean, self-loops left out.
double max_over_mean_degree(const RmatGraph& graph) {
  const InEdges in = graph.in_edges();
  Index max_degree = 0;
  for (Index v = 0; v < graph.num_nodes(); ++v)
    max_degree = std::max(max_degree, in.offsets[v + 1] - in.offsets[v] - 1);
  const double mean = static_cast<double>(in.num_edges() - graph.num_nodes()) / static_cast<double>(graph.num_nodes());
  return static_cast<double>(max_degree) / mean;
}

// The fraction of edges, self-loops left out, whose two ends share a label.
double same_label_fraction(const RmatGraph& graph) {
  const InEdges in = graph.in_edges();
  Index same = 0;
  for (Index v = 0; v < graph.num_nodes(); ++v)
    for (const NodeId u : row_of(in, v)) same += u != v && graph.label(u) == graph.label(v);
  return static_cast<double>(same) / static_cast<double>(in.num_edges() - graph.num_nodes());
}

std::vector<float> features_of(const RmatGraph& graph, Index first, Index count) {
  std::vector<float> x(static_cast<std::size_t>(count * graph.options().feature_dim));
  graph.features(first, count, x.data());
  return x;
}

bool same_arrays(const RmatGraph& a, const RmatGraph& b) {
  return std::ranges::equal(a.in_edges().offsets, b.in_edges().offsets) &&
         std::ranges::equal(a.in_edges().sources, b.in_edges().sources);
}

TEST(RmatGraph, InEdgesAreSymmetricSortedAndHaveSelfLoops) {
  for (Index scale = 1; scale <= 10; ++scale)
    for (const std::uint64_t seed : {0, 1}) {
      SCOPED_TRACE("scale " + std::to_string(scale) + ", seed " + std::to_string(seed));
      const RmatGraph graph({.scale = scale, .edge_factor = 8, .classes = 2, .seed = seed});
      ASSERT_EQ(graph.num_nodes(), Index{1} << scale);
      expect_symmetric_csr_with_self_loops(graph);
      // At most both directions of every drawn edge, plus the self-loops.
      EXPECT_LE(graph.in_edges().num_edges(), (2 * 8 + 1) << scale);
      EXPECT_NO_THROW(Graph::from_in_edges(graph.in_edges()));
    }
}

TEST(RmatGraph, OneQuadrantGivesOneEdge) {
  const Index n = 64;
  for (const RmatOptions& options : {RmatOptions{.scale = 6, .a = 1.0, .b = 0.0, .c = 0.0},    // every draw 0 -> 0
                                    RmatOptions{.scale = 6, .a = 0.0, .b = 0.0, .c = 0.0}}) {  // d = 1: 63 -> 63
    const RmatGraph graph(options);
    ASSERT_EQ(graph.in_edges().num_edges(), n);  // the drawn self-loops dropped, one kept per node
    for (Index v = 0; v < n; ++v) EXPECT_EQ(row_of(graph.in_edges(), v)[0], v);
  }
  const RmatGraph top_right({.scale = 6, .a = 0.0, .b = 1.0, .c = 0.0});  // every draw 0 -> 63
  const InEdges in = top_right.in_edges();
  ASSERT_EQ(in.num_edges(), n + 2);
  EXPECT_TRUE(std::ranges::equal(row_of(in, 0), std::vector<NodeId>{0, 63}));
  EXPECT_TRUE(std::ranges::equal(row_of(in, 63), std::vector<NodeId>{0, 63}));
  EXPECT_TRUE(std::ranges::equal(row_of(in, 1), std::vector<NodeId>{1}));
}

TEST(RmatGraph, SameOptionsSameGraph) {
  const RmatOptions options = {.scale = 9, .edge_factor = 4, .feature_dim = 5, .seed = 7};
  const RmatGraph a(options), b(options);
  EXPECT_TRUE(same_arrays(a, b));
  EXPECT_EQ(features_of(a, 0, a.num_nodes()), features_of(b, 0, b.num_nodes()));

  RmatOptions other = options;
  other.seed = 8;
  const RmatGraph c(other);
  EXPECT_FALSE(same_arrays(a, c));
  EXPECT_NE(features_of(a, 0, a.num_nodes()), features_of(c, 0, c.num_nodes()));
}

class RmatThreads : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(0); }
};

TEST_F(RmatThreads, ThreadCountChangesNothing) {
  // 2^18 drawn edges: four streams, so that threads share the drawing.
  const RmatOptions options = {.scale = 14, .edge_factor = 16, .feature_dim = 3, .seed = 5};
  set_num_threads(1);
  const RmatGraph one(options);
  const std::vector<float> one_features = features_of(one, 0, one.num_nodes());
  for (const int threads : {2, 3}) {
    set_num_threads(threads);
    const RmatGraph graph(options);
    EXPECT_TRUE(same_arrays(graph, one)) << threads << " threads";
    EXPECT_EQ(features_of(graph, 0, graph.num_nodes()), one_features) << threads << " threads";
  }
}

TEST(RmatGraph, DegreesAreSkewed) {
  const double skewed = max_over_mean_degree(RmatGraph({.scale = 10, .seed = 2}));
  const double uniform = max_over_mean_degree(RmatGraph({.scale = 10, .a = 0.25, .b = 0.25, .c = 0.25, .seed = 2}));
  std::printf("max / mean degree: %.1f (Graph500's a, b, c), %.1f (uniform)\n", skewed, uniform);
  EXPECT_GT(skewed, 10.0);
  EXPECT_LT(uniform, 3.0);
}

TEST(RmatGraph, SameLabelEdgesAreOverrepresented) {
  for (const Index classes : {2, 4, 8}) {
    const double planted = same_label_fraction(RmatGraph({.scale = 10, .classes = classes, .seed = 3}));
    const double uniform =
        same_label_fraction(RmatGraph({.scale = 10, .a = 0.25, .b = 0.25, .c = 0.25, .classes = classes, .seed = 3}));
    std::printf("%lld classes: %.3f of edges join one label (%.3f uniform)\n", static_cast<long long>(classes), planted,
                uniform);
    // Drawn edges join one label with probability (a + d)^log2(classes), 0.62 a bit; dropping duplicates,
    // most of them between hubs of label 0, brings the 2-class fraction down to about 0.57.
    const double chance = 1.0 / static_cast<double>(classes);
    EXPECT_GT(planted, 1.1 * chance) << classes << " classes";
    EXPECT_NEAR(uniform, chance, 0.05 * chance) << classes << " classes";
  }
}

TEST(RmatGraph, LabelsAreTheTopBitsOfTheId) {
  const RmatGraph graph({.scale = 6, .edge_factor = 1, .classes = 4});
  for (Index v = 0; v < 64; ++v) EXPECT_EQ(graph.label(v), v / 16) << "node " << v;
  const RmatGraph one_class({.scale = 6, .edge_factor = 1, .classes = 1});
  const RmatGraph every_node({.scale = 6, .edge_factor = 1, .classes = 64});
  for (Index v = 0; v < 64; ++v) {
    EXPECT_EQ(one_class.label(v), 0);
    EXPECT_EQ(every_node.label(v), v);
  }
  EXPECT_NE(argument_error_of([&] { (void)graph.label(64); }).find("64"), std::string::npos);
  EXPECT_THROW((void)graph.label(-1), ArgumentError);
}

TEST(RmatGraph, FeatureRangesAreSlicesOfTheWhole) {
  const RmatGraph graph({.scale = 8, .edge_factor = 2, .feature_dim = 7, .seed = 4});
  const std::vector<float> all = features_of(graph, 0, 256);
  for (const auto& [first, count] : {std::pair<Index, Index>{0, 1}, {5, 17}, {100, 156}, {255, 1}, {128, 0}}) {
    const std::vector<float> slice = features_of(graph, first, count);
    EXPECT_TRUE(std::equal(slice.begin(), slice.end(), all.begin() + first * 7)) << first << " + " << count;
  }
  std::vector<float> out(7);
  EXPECT_NE(argument_error_of([&] { graph.features(250, 7, out.data()); }).find("256"), std::string::npos);
  EXPECT_THROW(graph.features(-1, 1, out.data()), ArgumentError);
  EXPECT_EQ(RmatGraph({.scale = 3, .feature_dim = 0}).options().feature_dim, 0);
  EXPECT_NO_THROW(RmatGraph({.scale = 3, .feature_dim = 0}).features(0, 8, nullptr));
}

TEST(RmatGraph, FeaturesCenterOnTheClassMeans) {
  const Index n = 1024, classes = 4, dim = 16;
  RmatOptions options = {
      .scale = 10, .edge_factor = 1, .classes = classes, .feature_dim = dim, .feature_noise = 0.0, .seed = 6};
  const std::vector<float> means = features_of(RmatGraph(options), 0, n);  // the class means themselves
  for (Index v = 1; v < n; ++v)
    EXPECT_EQ(means[v * dim] == means[(v - 1) * dim], v % (n / classes) != 0) << "node " << v;

  options.feature_noise = 1.0;
  const RmatGraph graph(options);
  const std::vector<float> x = features_of(graph, 0, n);
  std::vector<double> class_sum(static_cast<std::size_t>(classes * dim), 0.0);
  double squares = 0;
  for (Index v = 0; v < n; ++v)
    for (Index f = 0; f < dim; ++f) {
      class_sum[graph.label(v) * dim + f] += x[v * dim + f];
      squares += std::pow(x[v * dim + f] - means[v * dim + f], 2);
    }
  // 256 nodes a class: each mean coordinate's error has sd 1/16, and class means lie about 5.7 apart.
  for (Index c = 0; c < classes; ++c)
    for (Index f = 0; f < dim; ++f)
      EXPECT_NEAR(class_sum[c * dim + f] / 256.0, means[c * 256 * dim + f], 0.3) << "class " << c << ", feature " << f;
  EXPECT_NEAR(std::sqrt(squares / static_cast<double>(n * dim)), 1.0, 0.05);  // the noise's sd
}

TEST(RmatGraph, RejectsInvalidOptionsNamingTheValue) {
  const auto message = [](const RmatOptions& options) { return argument_error_of([&] { RmatGraph graph(options); }); };
  const auto names = [&](const RmatOptions& options, const std::string& value) {
    EXPECT_NE(message(options).find(value), std::string::npos) << message(options);
  };
  names({.scale = 0}, "got 0");
  names({.scale = 31}, "got 31");
  names({.edge_factor = 0}, "got 0");
  names({.a = 1.5}, "1.5");
  names({.b = -0.1}, "-0.1");
  names({.c = std::nan("")}, "nan");
  names({.a = 0.6, .b = 0.3, .c = 0.2}, "1.1");
  names({.scale = 4, .classes = 3}, "got 3");
  names({.scale = 4, .classes = 32}, "got 32");
  names({.classes = 0}, "got 0");
  names({.feature_dim = -1}, "-1");
  names({.feature_noise = -1.0}, "-1");
  names({.feature_noise = INFINITY}, "inf");
  names({.scale = 24, .edge_factor = 64}, "edge_factor 64");  // 129 * 2^24 > 2^31 - 1
  names({.scale = 30, .edge_factor = 1}, "scale 30");
  EXPECT_NO_THROW(RmatGraph({.scale = 2, .a = 0.34, .b = 0.55, .c = 0.11}));  // sums to 1 + 2^-52
}

// By hand, for build time and memory at scale 20 and up:
//   EDGEWISE_RMAT_SCALE=22 datasets_test_rmat --gtest_also_run_disabled_tests --gtest_filter='*Large*'
TEST(RmatGraph, DISABLED_LargeBuildTimeAndMemory) {
  const char* scale = std::getenv("EDGEWISE_RMAT_SCALE");
  const RmatOptions options = {.scale = scale != nullptr ? std::atoi(scale) : 20, .edge_factor = 16};
  const auto start = std::chrono::steady_clock::now();
  const RmatGraph graph(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("scale %lld, edge factor 16, %d threads: %.2f s, E = %lld, peak RSS %.0f MiB\n",
              static_cast<long long>(options.scale), num_threads(), seconds,
              static_cast<long long>(graph.in_edges().num_edges()), static_cast<double>(usage.ru_maxrss) / 1024.0);
}

}  // namespace
}  // namespace edgewise

#include "edgewise/io/edge_list.hpp"
#include "edgewise/io/node_features.hpp"
#include "edgewise/io/node_labels.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "edgewise/core/error.hpp"
#include "edgewise/graph/positional.hpp"
#include "support/shared_data.hpp"
#include "support/thrown.hpp"

namespace edgewise {
namespace {

using EdgeSet = std::set<std::pair<Index, Index>>;
using testing::data_dir;
using testing::missing_data_reason;
using testing::thrown_by;

template <typename Call>
ParseError parse_error_of(Call&& call) {
  return thrown_by<ParseError>(std::forward<Call>(call));
}

EdgeSet edge_set(const Graph& graph) {
  const auto pairs = graph.edge_pairs();
  return {pairs.begin(), pairs.end()};
}

// A folder of its own under the system temp folder, removed with the fixture.
class GraphFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("edgewise_graph_files_" + std::to_string(::getpid()) + "_" + test->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& contents) const {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

 private:
  std::filesystem::path dir_;
};

TEST_F(GraphFilesTest, MessyEdgeListIsReadAndMerged) {
  const std::filesystem::path path = write("messy.txt",
                                           "# SNAP style comment\n"
                                           "% Matrix Market style comment\n"
                                           "\n"
                                           "1 2\r\n"
                                           "  2\t3\r\n"
                                           "3,1\n"
                                           "   \t \n"
                                           "1  2\n"      // duplicate
                                           "2 1\n"       // the same undirected edge
                                           "4 4\n"       // self-loop
                                           "5 1 0.75\n"  // a weight, ignored
                                           "\n");
  const EdgeList list = read_edge_list(path);
  EXPECT_EQ(list.source, path.string());
  EXPECT_FALSE(list.directed);
  ASSERT_EQ(list.nodes.size(), 5);
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(list.nodes.find("3"), 2);
  EXPECT_EQ(list.nodes.find("6"), std::nullopt);
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {1, 2}, {2, 0}, {3, 3}, {4, 0}}));

  const Graph graph = list.to_graph();
  EXPECT_EQ(graph.num_nodes(), 5);
  const EdgeSet expected = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 0}, {0, 2}, {4, 0},
                            {0, 4}, {0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}};
  EXPECT_EQ(graph.num_edges(), 13);
  EXPECT_EQ(edge_set(graph), expected);
}

TEST_F(GraphFilesTest, SelfLoopsForAttentionCanBeLeftOut) {
  const EdgeList list = parse_edge_list("0 1\n1 1\n", "loops.txt");
  const Graph graph = list.to_graph({.add_self_loops = false});
  EXPECT_EQ(edge_set(graph), (EdgeSet{{0, 1}, {1, 0}, {1, 1}}));
  EXPECT_EQ(list.to_graph().num_edges(), 4);
}

TEST_F(GraphFilesTest, IntegerIdsFarApartAreNumberedInTheOrderTheyAppear) {
  // 2000000000 lies beyond the table of ids by value; 7 and 0 within it; 007 is 7.
  const EdgeList list = parse_edge_list("7 2000000000\n0 7\n2000000000 0\n007 3\n2000000000 3\n", "far.txt");
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"7", "2000000000", "0", "3"}));
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {2, 0}, {1, 2}, {0, 3}, {1, 3}}));

  NodeIndex listed;
  listed.add("5");
  listed.add("2000000000");
  const EdgeList with_nodes = parse_edge_list("2000000000 5\n5 6\n", "listed.txt", {}, listed);
  EXPECT_EQ(with_nodes.nodes.names(), (std::vector<std::string>{"5", "2000000000", "6"}));
  EXPECT_EQ(with_nodes.edges, (std::vector<std::pair<NodeId, NodeId>>{{1, 0}, {0, 2}}));
}

TEST_F(GraphFilesTest, TakingTheGraphGivesTheSameGraphAndEmptiesTheList) {
  for (const bool directed : {false, true}) {
    EdgeList list = parse_edge_list("a b\nb c\nc c\nd a\nb a\n", "people.txt", {.ids = NodeIds::string, .directed = directed});
    const Graph copied = list.to_graph();
    const Graph taken = list.take_graph();
    EXPECT_TRUE(list.edges.empty());
    EXPECT_EQ(list.nodes.size(), 4) << "the node numbering stays";
    ASSERT_EQ(taken.num_edges(), copied.num_edges());
    for (Index e = 0; e < copied.num_edges(); ++e) {
      EXPECT_EQ(taken.source(e), copied.source(e)) << "edge " << e;
      EXPECT_EQ(taken.target(e), copied.target(e)) << "edge " << e;
    }
  }
}

TEST_F(GraphFilesTest, DirectedListsKeepDirections) {
  const std::string text = "1 2\n2 1\n1 2\n";
  const EdgeList directed = parse_edge_list(text, "d.txt", {.directed = true});
  EXPECT_TRUE(directed.directed);
  EXPECT_EQ(directed.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(edge_set(directed.to_graph({.add_self_loops = false})), (EdgeSet{{0, 1}, {1, 0}}));

  const EdgeList one_way = parse_edge_list("1 2\n", "d.txt", {.directed = true});
  EXPECT_EQ(edge_set(one_way.to_graph({.add_self_loops = false})), (EdgeSet{{0, 1}}));

  const EdgeList undirected = parse_edge_list(text, "u.txt");
  EXPECT_EQ(undirected.edges.size(), 1u);
}

TEST_F(GraphFilesTest, MusaeHeaderIsDetectedForIntegerIds) {
  for (const char* header : {"id_1,id_2", "node_1,node_2", "from,to"}) {
    const EdgeList list = parse_edge_list(std::string(header) + "\n10,11\n11,12\n", "musae.csv");
    EXPECT_EQ(list.nodes.size(), 3) << header;
    EXPECT_EQ(list.edges.size(), 2u) << header;
    EXPECT_EQ(list.nodes.name(0), "10") << header;
  }
  const EdgeList absent = parse_edge_list("10,11\n", "plain.csv", {.header = Header::absent});
  EXPECT_EQ(absent.edges.size(), 1u);
  const EdgeList present = parse_edge_list("10,11\n11,12\n", "numbered_header.csv", {.header = Header::present});
  EXPECT_EQ(present.nodes.names(), (std::vector<std::string>{"11", "12"}));
}

TEST_F(GraphFilesTest, StringIdsWithAnExplicitHeader) {
  const std::filesystem::path path = write("people.tsv",
                                           "source\ttarget\r\n"
                                           "alice\tbob\r\n"
                                           "bob\tcarol\r\n"
                                           "# a comment\r\n"
                                           "carol\talice\r\n");
  const EdgeList list = read_edge_list(path, {.ids = NodeIds::string, .header = Header::present});
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"alice", "bob", "carol"}));
  EXPECT_EQ(list.edges.size(), 3u);

  EXPECT_EQ(list.header, (std::vector<std::string>{"source", "target"}));
  const EdgeList absent = read_edge_list(path, {.ids = NodeIds::string, .header = Header::absent});
  EXPECT_EQ(absent.nodes.name(0), "source");
  EXPECT_EQ(absent.nodes.size(), 5);
  EXPECT_TRUE(absent.header.empty());
}

// String ids have no type to tell a header by: detect takes a first line for one when no other line
// names either of its nodes, and takes its nodes and edge back.
TEST_F(GraphFilesTest, StringIdsDetectAHeaderThatNamesNothingElse) {
  const EdgeList list =
      parse_edge_list("node_1,node_2\nalice,bob\nbob,carol\ncarol,bob\n", "musae.csv", {.ids = NodeIds::string});
  EXPECT_EQ(list.header, (std::vector<std::string>{"node_1", "node_2"}));
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"alice", "bob", "carol"}));
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {1, 2}}));
  EXPECT_EQ(list.to_graph().num_nodes(), 3);

  // A first line that shares a node with another is an edge, numbered where it stands.
  const EdgeList shared = parse_edge_list("x,alice\nalice,bob\n", "e.csv", {.ids = NodeIds::string});
  EXPECT_TRUE(shared.header.empty());
  EXPECT_EQ(shared.nodes.names(), (std::vector<std::string>{"x", "alice", "bob"}));
  // So is one whose node the given index already holds, and a file of one line.
  NodeIndex known;
  known.add("x");
  EXPECT_EQ(parse_edge_list("x,y\na,b\n", "e.csv", {.ids = NodeIds::string}, known).edges.size(), 2u);
  EXPECT_EQ(parse_edge_list("x,y\n", "e.csv", {.ids = NodeIds::string}).edges.size(), 1u);
  // With the given index, a header's two names go and later nodes follow the index's.
  const EdgeList after = parse_edge_list("from,to\na,x\n", "e.csv", {.ids = NodeIds::string}, known);
  EXPECT_EQ(after.nodes.names(), (std::vector<std::string>{"x", "a"}));
  EXPECT_EQ(after.edges, (std::vector<std::pair<NodeId, NodeId>>{{1, 0}}));
}

TEST_F(GraphFilesTest, StringIdLabelsAndFeaturesDetectTheirHeaders) {
  EdgeList list = parse_edge_list("a,b\nb,c\n", "e.csv", {.ids = NodeIds::string});
  const NodeLabels labels =
      parse_node_labels("id,target\na,x\nb,y\nc,x\n", "l.csv", list.nodes,
                        {.ids = NodeIds::string, .unknown_nodes = UnknownNodes::add});
  EXPECT_EQ(labels.header, (std::vector<std::string>{"id", "target"}));
  EXPECT_EQ(labels.class_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(list.nodes.size(), 3);
  // A first line whose label another line repeats is data, even for a node the graph lacks.
  const NodeLabels data = parse_node_labels("d,x\na,x\n", "l.csv", list.nodes,
                                            {.ids = NodeIds::string, .unknown_nodes = UnknownNodes::add});
  EXPECT_TRUE(data.header.empty());
  EXPECT_EQ(list.nodes.size(), 4);
  // Features: a value field that does not start as a number names a column.
  const NodeFeatures features = parse_node_features("id,f0,f1\na,1,0\nb,0,1\n", "f.csv", list.nodes,
                                                    {.format = FeatureFormat::dense, .ids = NodeIds::string});
  EXPECT_EQ(features.values.cols(), 2);
  EXPECT_EQ(features.values(0, 0), 1.0f);
  EXPECT_EQ(list.nodes.size(), 4);
}

TEST_F(GraphFilesTest, CommaSeparatedStringIdsMayContainSpaces) {
  const EdgeList list =
      parse_edge_list("New York, Boston\nBoston ,Los Angeles, 3.5\n", "cities.csv", {.ids = NodeIds::string});
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"New York", "Boston", "Los Angeles"}));
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {1, 2}}));

  const EdgeList tabs =
      parse_edge_list("New York\tSan Jose\n", "cities.tsv", {.ids = NodeIds::string, .delimiter = '\t'});
  EXPECT_EQ(tabs.nodes.names(), (std::vector<std::string>{"New York", "San Jose"}));
}

TEST_F(GraphFilesTest, IntegerIdsAreComparedByValue) {
  const EdgeList list = parse_edge_list("007 7\n0 2147483647\n", "ids.txt");
  EXPECT_EQ(list.nodes.names(), (std::vector<std::string>{"7", "0", "2147483647"}));
  // 64-bit user ids are read by value and numbered densely, beside small ones.
  const EdgeList wide = parse_edge_list("2147483648 18446744073709551615\n3 0018446744073709551615\n", "ids.txt");
  EXPECT_EQ(wide.nodes.names(), (std::vector<std::string>{"2147483648", "18446744073709551615", "3"}));
  EXPECT_EQ(wide.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {2, 1}}));
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 0}, {1, 2}}));
}

TEST(NodeIndexTest, NumbersNamesInOrderAndFindsThemAfterTheTableGrows) {
  NodeIndex nodes;
  EXPECT_EQ(nodes.find("a"), std::nullopt);
  constexpr Index count = 5000;  // the table doubles many times on the way
  for (Index k = 0; k < count; ++k) ASSERT_EQ(nodes.add("node " + std::to_string(k)), k);
  EXPECT_EQ(nodes.add(""), count);  // an empty name is a name like any other
  EXPECT_EQ(nodes.add("node 17"), 17);
  EXPECT_EQ(nodes.size(), count + 1);
  for (Index k = 0; k < count; ++k) {
    ASSERT_EQ(nodes.find("node " + std::to_string(k)), k);
    ASSERT_EQ(nodes.name(k), "node " + std::to_string(k));
  }
  EXPECT_EQ(nodes.find(""), count);
  EXPECT_EQ(nodes.name(count), "");
  EXPECT_EQ(nodes.find("node 5000"), std::nullopt);
  EXPECT_EQ(nodes.find("node 1 "), std::nullopt);
  EXPECT_EQ(nodes.names().size(), static_cast<std::size_t>(count + 1));
  EXPECT_EQ(nodes.names()[42], "node 42");
  EXPECT_THROW(nodes.name(count + 1), std::out_of_range);
  EXPECT_THROW(nodes.name(-1), std::out_of_range);
}

TEST_F(GraphFilesTest, GivenNodeIndexKeepsItsIds) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2", "3"}) nodes.add(name);
  const EdgeList list = parse_edge_list("3 1\n5 0\n", "e.txt", {}, nodes);
  EXPECT_EQ(list.nodes.size(), 5);
  EXPECT_EQ(list.edges, (std::vector<std::pair<NodeId, NodeId>>{{3, 1}, {4, 0}}));
  EXPECT_EQ(list.to_graph().num_nodes(), 5);
}

TEST_F(GraphFilesTest, EdgeListErrorsNameFileLineAndToken) {
  const auto one_field = parse_error_of([] { parse_edge_list("1 2\n# c\n3\n", "edges.txt"); });
  EXPECT_EQ(one_field.file(), "edges.txt");
  EXPECT_EQ(one_field.line(), 3u);
  EXPECT_EQ(one_field.text(), "3");
  EXPECT_EQ(std::string(one_field.what()), "edges.txt:3: expected two node ids, found one field ('3')");

  const auto too_large = parse_error_of([] { parse_edge_list("1 2\n2 18446744073709551616\n", "edges.txt"); });
  EXPECT_EQ(too_large.line(), 2u);
  EXPECT_EQ(too_large.text(), "18446744073709551616");
  EXPECT_EQ(too_large.reason(), "column 2: node id above 2^64 - 1");

  const auto huge = parse_error_of([] { parse_edge_list("1 99999999999999999999999\n", "edges.txt"); });
  EXPECT_EQ(huge.reason(), "column 2: node id above 2^64 - 1");

  const auto negative = parse_error_of([] { parse_edge_list("\n-1 2\n", "edges.txt"); });
  EXPECT_EQ(negative.line(), 2u);
  EXPECT_EQ(negative.text(), "-1");
  EXPECT_EQ(negative.reason(), "column 1: negative node id");

  const auto word = parse_error_of([] { parse_edge_list("1 2\nalice bob\n", "edges.txt"); });
  EXPECT_EQ(word.line(), 2u);
  EXPECT_EQ(word.text(), "alice");
  EXPECT_EQ(word.reason(), "column 1: node id is not an integer");

  const auto empty = parse_error_of([] { parse_edge_list("1,,2\n", "edges.csv"); });
  EXPECT_EQ(empty.reason(), "column 2: empty node id");
}

TEST_F(GraphFilesTest, MissingFileIsAnError) {
  EXPECT_THROW(read_edge_list(std::filesystem::path("/nonexistent/edges.txt")), Error);
}

TEST_F(GraphFilesTest, LabelsMapToClassesAndUnlabeledNodes) {
  EdgeList list = parse_edge_list("0 1\n1 2\n2 3\n", "e.txt");
  const std::filesystem::path path = write("labels.txt", "# node label\n3 10\n0 3\n\n1 7\n0 3\n");
  const NodeLabels labels = read_node_labels(path, list.nodes);
  EXPECT_EQ(labels.class_names, (std::vector<std::string>{"3", "7", "10"}));
  EXPECT_EQ(labels.num_classes(), 3);
  EXPECT_EQ(labels.classes, (std::vector<Index>{0, 1, -1, 2}));
  EXPECT_EQ(labels.num_labeled(), 3);
}

TEST_F(GraphFilesTest, StringClassesKeepTheirFirstAppearanceOrder) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2", "3", "4"}) nodes.add(name);
  const NodeLabels words = parse_node_labels("0 b\n1 a\n2 b\n3 c\n4 a\n", "l.txt", nodes);
  EXPECT_EQ(words.class_names, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(words.classes, (std::vector<Index>{0, 1, 0, 2, 1}));

  const NodeLabels mixed = parse_node_labels("0 2\n1 x\n2 1\n", "l.txt", nodes);
  EXPECT_EQ(mixed.class_names, (std::vector<std::string>{"2", "x", "1"}));

  const NodeLabels numbers = parse_node_labels("0 -1\n1 07\n2 7\n3 -20\n", "l.txt", nodes);
  EXPECT_EQ(numbers.class_names, (std::vector<std::string>{"-20", "-1", "7"}));
  EXPECT_EQ(numbers.classes, (std::vector<Index>{1, 2, 2, 0, -1}));
}

TEST_F(GraphFilesTest, LabelForUnknownNodeIsAnErrorWithItsLine) {
  EdgeList list = parse_edge_list("0 1\n", "e.txt");
  const auto error = parse_error_of([&] { parse_node_labels("0 a\n\n1 b\n9 a\n", "labels.txt", list.nodes); });
  EXPECT_EQ(error.file(), "labels.txt");
  EXPECT_EQ(error.line(), 4u);
  EXPECT_EQ(error.text(), "9");
  EXPECT_EQ(error.reason(), "column 1: node not in the graph");
  EXPECT_EQ(list.nodes.size(), 2);
}

TEST_F(GraphFilesTest, LabelForUnknownNodeCanAddIt) {
  EdgeList list = parse_edge_list("0 1\n", "e.txt");
  const NodeLabels labels =
      parse_node_labels("0 a\n9 b\n", "labels.txt", list.nodes, {.unknown_nodes = UnknownNodes::add});
  ASSERT_EQ(list.nodes.size(), 3);
  EXPECT_EQ(list.nodes.name(2), "9");
  EXPECT_EQ(labels.classes, (std::vector<Index>{0, -1, 1}));

  const Graph graph = list.to_graph();
  EXPECT_EQ(graph.num_nodes(), 3);
  EXPECT_EQ(graph.in_degree(2), 1);  // only its self-loop
}

TEST_F(GraphFilesTest, ConflictingLabelsAreAnError) {
  NodeIndex nodes;
  nodes.add("0");
  const auto error = parse_error_of([&] { parse_node_labels("0 a\n0 a\n0 b\n", "labels.txt", nodes); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_EQ(error.text(), "b");
  EXPECT_EQ(error.reason(), "column 2: conflicting label: the node was labeled 'a' on line 1");
}

TEST_F(GraphFilesTest, LabelRecordNeedsTwoFields) {
  NodeIndex nodes;
  nodes.add("0");
  const auto error = parse_error_of([&] { parse_node_labels("0\n", "labels.txt", nodes); });
  EXPECT_EQ(error.line(), 1u);
  EXPECT_EQ(error.text(), "0");
}

TEST_F(GraphFilesTest, EmptyLabelFieldMeansUnlabeled) {
  NodeIndex nodes;
  nodes.add("0");
  nodes.add("1");
  const NodeLabels labels = parse_node_labels("id,target\n0,\n1,1\n", "t.csv", nodes);
  EXPECT_EQ(labels.classes, (std::vector<Index>{-1, 0}));
}

TEST_F(GraphFilesTest, MusaeTargetFilesSelectColumns) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2"}) nodes.add(name);
  const NodeLabels lastfm = parse_node_labels("id,target\n0,8\n1,17\n2,8\n", "lastfm_asia_target.csv", nodes);
  EXPECT_EQ(lastfm.class_names, (std::vector<std::string>{"8", "17"}));
  EXPECT_EQ(lastfm.classes, (std::vector<Index>{0, 1, 0}));

  const NodeLabels twitch = parse_node_labels(
      "id,days,mature,views,partner,new_id\n73045350,1459,False,9528,False,2\n61573865,1629,True,3615,False,0\n",
      "ENGB_target.csv", nodes, {.node_column = 5, .label_column = 2});
  EXPECT_EQ(twitch.class_names, (std::vector<std::string>{"False", "True"}));
  EXPECT_EQ(twitch.classes, (std::vector<Index>{1, -1, 0}));
}

TEST_F(GraphFilesTest, LabelColumnsCanBeNamedByTheHeader) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2"}) nodes.add(name);
  // MUSAE's Facebook layout: the second column is an id of another site, the label is the fourth.
  const std::string facebook = "id,facebook_id,page_name,page_type\n0,145647315578475,The Voice,tvshow\n"
                               "1,191483281412,U.S. Consulate,government\n2,144761358898518,Bachelor,tvshow\n";
  const NodeLabels named = parse_node_labels(facebook, "musae_facebook_target.csv", nodes, {.label_column = "page_type"});
  EXPECT_EQ(named.class_names, (std::vector<std::string>{"tvshow", "government"}));
  EXPECT_EQ(named.classes, (std::vector<Index>{0, 1, 0}));
  const NodeLabels by_names = parse_node_labels(
      "new_id,mature\n2,True\n0,False\n", "ENGB_target.csv", nodes, {.node_column = "new_id", .label_column = "mature"});
  EXPECT_EQ(by_names.classes, (std::vector<Index>{1, -1, 0}));
  const NodeLabels by_index = parse_node_labels(facebook, "f.csv", nodes, {.label_column = 3});
  EXPECT_EQ(by_index.classes, named.classes);

  const auto missing = thrown_by<ParseError>([&] { parse_node_labels(facebook, "f.csv", nodes, {.label_column = "type"}); });
  EXPECT_EQ(missing.line(), 1u);
  EXPECT_NE(std::string(missing.what()).find("no column named 'type'; the header has 'id', 'facebook_id', 'page_name', 'page_type'"),
            std::string::npos)
      << missing.what();
  const auto headless = thrown_by<ParseError>(
      [&] { parse_node_labels("0 a\n", "l.txt", nodes, {.header = Header::absent, .label_column = "label"}); });
  EXPECT_NE(std::string(headless.what()).find("a column is named ('label') but the file has no header"), std::string::npos)
      << headless.what();
}

TEST_F(GraphFilesTest, QuotedFieldsFollowRfc4180) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2", "3"}) nodes.add(name);
  // MUSAE's Facebook page names hold commas, quotes and, in other exports, line breaks.
  const std::string facebook =
      "\xEF\xBB\xBFid,facebook_id,page_name,page_type\r\n"
      "0,378134195601552,\"Historic Preservation Division, Illinois Department of Natural Resources\",government\r\n"
      "1,191483281412,\"The \"\"Real\"\" Deal\",tvshow\r\n"
      "2,144761358898518,\"Two\r\nlines, one page\",company\r\n"
      "3,5, \"spaced\" ,government\r\n";
  const NodeLabels labels = parse_node_labels(facebook, "facebook_target.csv", nodes, {.label_column = "page_type"});
  EXPECT_EQ(labels.class_names, (std::vector<std::string>{"government", "tvshow", "company"}));
  EXPECT_EQ(labels.classes, (std::vector<Index>{0, 1, 2, 0}));
  EXPECT_EQ(labels.class_lines, (std::vector<std::size_t>{2, 3, 4}));

  const NodeLabels names = parse_node_labels(facebook, "facebook_target.csv", nodes, {.label_column = "page_name"});
  EXPECT_EQ(names.class_names,
            (std::vector<std::string>{"Historic Preservation Division, Illinois Department of Natural Resources",
                                      "The \"Real\" Deal", "Two\r\nlines, one page", "spaced"}));

  // A record after a quoted line break keeps its own line number.
  const auto unknown = parse_error_of([&] {
    parse_node_labels("id,name,type\n0,\"a\nb\",x\n7,c,y\n", "t.csv", nodes, {.label_column = 2});
  });
  EXPECT_EQ(unknown.line(), 4u);
  EXPECT_EQ(unknown.reason(), "column 1: node not in the graph");
}

TEST_F(GraphFilesTest, QuotedFieldsInEdgeListsAndFeatures) {
  const EdgeList edges = parse_edge_list("\"source\",\"target\"\n\"1\",\"2\"\n2,\"3\"\n", "edges.csv");
  EXPECT_EQ(edges.nodes.names(), (std::vector<std::string>{"1", "2", "3"}));
  const EdgeList tabs = parse_edge_list("\"a b\"\t\"c\td\"\n", "edges.tsv", {.ids = NodeIds::string, .delimiter = '\t'});
  EXPECT_EQ(tabs.nodes.names(), (std::vector<std::string>{"a b", "c\td"}));

  NodeIndex nodes = edges.nodes;
  const NodeFeatures dense = parse_node_features("node,\"x\",\"y\"\n1,\"0.5\",2\n2,1,\"-1\"\n", "f.csv", nodes,
                                                 {.format = FeatureFormat::dense});
  EXPECT_FLOAT_EQ(dense.values(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(dense.values(1, 1), -1.0f);
}

TEST_F(GraphFilesTest, MalformedQuotesAreErrorsWithLineAndColumn) {
  NodeIndex nodes;
  nodes.add("0");
  const auto unterminated = parse_error_of([&] { parse_node_labels("id,label\n0,\"open\n", "l.csv", nodes); });
  EXPECT_EQ(unterminated.line(), 2u);
  EXPECT_EQ(unterminated.reason(), "column 2: unterminated quoted field");
  const auto trailing = parse_error_of([&] { parse_node_labels("id,label\n0,\"a\"b\n", "l.csv", nodes); });
  EXPECT_EQ(trailing.line(), 2u);
  EXPECT_EQ(trailing.reason(), "column 2: text after a closing quote");
  const auto value = parse_error_of([&] {
    parse_node_features("0,1,x\n", "f.csv", nodes, {.format = FeatureFormat::dense});
  });
  EXPECT_NE(value.reason().find("column 3: "), std::string::npos) << value.what();
}

TEST_F(GraphFilesTest, QuotedLineBreaksAcrossTheFileReadersBlocks) {
  // The file readers take 4 MiB blocks of whole lines; a quoted field may hold the line feed that
  // ends a block.
  std::string text = "id,name,type\n";
  NodeIndex nodes;
  Index node = 0;
  while (text.size() < (4u << 20) + (1u << 16)) {
    nodes.add(std::to_string(node));
    text += std::to_string(node) + ",\"name\nof " + std::to_string(node) + ", a page\"," + (node % 3 == 0 ? "a" : "b") + "\n";
    ++node;
  }
  const NodeLabels labels = read_node_labels(write("t.csv", text), nodes, {.label_column = 2});
  ASSERT_EQ(labels.classes.size(), static_cast<std::size_t>(node));
  for (Index n = 0; n < node; ++n) ASSERT_EQ(labels.classes[static_cast<std::size_t>(n)], n % 3 == 0 ? 0 : 1) << n;

  std::string edges = "source,target\n";
  for (Index n = 1; n < node; ++n) edges += "\"" + std::to_string(n - 1) + "\",\"x\n" + std::to_string(n) + "\"\n";
  const auto error = parse_error_of([&] { read_edge_list(write("e.csv", edges)); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(error.reason(), "column 2: node id is not an integer");
}

TEST_F(GraphFilesTest, AMissingClosingQuoteStopsBeforeTheFileIsReadWhole) {
  // Edge lists are read a block at a time (the other files whole).
  const std::string text = "source,target\n0,\"open\n" + std::string(std::size_t{72} << 20, 'a') + "\n";
  const auto error = parse_error_of([&] { read_edge_list(write("e.csv", text)); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_NE(error.reason().find("a record longer than 64 MiB"), std::string::npos) << error.what();
}

TEST_F(GraphFilesTest, ExtendToCoversNodesAddedLater) {
  NodeIndex nodes;
  nodes.add("0");
  NodeLabels labels = parse_node_labels("0 a\n", "l.txt", nodes);
  NodeFeatures features = parse_node_features("0 1 2\n", "f.txt", nodes);
  nodes.add("1");
  labels.extend_to(nodes.size());
  features.extend_to(nodes.size());
  EXPECT_EQ(labels.classes, (std::vector<Index>{0, -1}));
  ASSERT_EQ(features.values.rows(), 2);
  EXPECT_EQ(features.values.row(1).sum(), 0.0f);
  EXPECT_EQ(features.values(0, 1), 1.0f);
  EXPECT_THROW(labels.extend_to(1), ArgumentError);
  EXPECT_THROW(features.extend_to(1), ArgumentError);
}

TEST_F(GraphFilesTest, SparseFeaturesWithIndicesAndValues) {
  NodeIndex nodes;
  for (const char* name : {"a", "b", "c"}) nodes.add(name);
  const NodeFeatures features =
      parse_node_features("a\t1 3 3\r\nb\t0:0.5 2:-2\r\n", "f.txt", nodes, {.ids = NodeIds::string});
  EXPECT_EQ(features.spec.format, FeatureFormat::sparse);
  EXPECT_EQ(features.spec.dim, 4);
  Matrix<float> expected(3, 4);
  expected << 0, 1, 0, 1,  //
      0.5f, 0, -2, 0,      //
      0, 0, 0, 0;
  EXPECT_EQ(features.values, expected);

  const NodeFeatures wide = parse_node_features("a 1\n", "f.txt", nodes, {.dim = 10, .ids = NodeIds::string});
  EXPECT_EQ(wide.values.cols(), 10);
  EXPECT_EQ(wide.spec.dim, 10);
}

TEST_F(GraphFilesTest, SparseFeatureErrors) {
  NodeIndex nodes;
  for (const char* name : {"0", "1"}) nodes.add(name);
  const auto beyond = parse_error_of([&] { parse_node_features("0 1\n1 2 5\n", "f.txt", nodes, {.dim = 5}); });
  EXPECT_EQ(beyond.line(), 2u);
  EXPECT_EQ(beyond.text(), "5");
  EXPECT_EQ(beyond.reason(), "column 3: feature index not below the dimension 5");

  const auto word = parse_error_of([&] { parse_node_features("0 1 x\n", "f.txt", nodes); });
  EXPECT_EQ(word.text(), "x");

  const auto bad_value = parse_error_of([&] { parse_node_features("0 1:nan\n", "f.txt", nodes); });
  EXPECT_EQ(bad_value.text(), "nan");

  const auto twice = parse_error_of([&] { parse_node_features("0 1\n1 1\n0 2\n", "f.txt", nodes); });
  EXPECT_EQ(twice.line(), 3u);
  EXPECT_EQ(twice.reason(), "column 1: features for this node were given on line 1");

  const auto unknown = parse_error_of([&] { parse_node_features("0 1\n\n2 1\n", "f.txt", nodes); });
  EXPECT_EQ(unknown.line(), 3u);
  EXPECT_EQ(unknown.text(), "2");
  EXPECT_EQ(unknown.reason(), "column 1: node not in the graph");

  const NodeFeatures added = parse_node_features("0 1\n2 0\n", "f.txt", nodes, {.unknown_nodes = UnknownNodes::add});
  EXPECT_EQ(nodes.size(), 3);
  EXPECT_EQ(added.values.rows(), 3);
  EXPECT_EQ(added.values(2, 0), 1.0f);
}

TEST_F(GraphFilesTest, SparseFeaturesAfterALabelColumn) {
  NodeIndex nodes;
  const std::string nodes_tsv = "0\t3\t1 4\n1\t4\t0\n";
  const NodeLabels labels = parse_node_labels(nodes_tsv, "nodes.tsv", nodes, {.unknown_nodes = UnknownNodes::add});
  const NodeFeatures features = parse_node_features(nodes_tsv, "nodes.tsv", nodes, {.skip_fields = 1});
  EXPECT_EQ(labels.class_names, (std::vector<std::string>{"3", "4"}));
  Matrix<float> expected(2, 5);
  expected << 0, 1, 0, 0, 1,  //
      1, 0, 0, 0, 0;
  EXPECT_EQ(features.values, expected);

  const auto short_record = parse_error_of([&] { parse_node_features("0\n", "nodes.tsv", nodes, {.skip_fields = 1}); });
  EXPECT_EQ(short_record.line(), 1u);
}

TEST_F(GraphFilesTest, DenseFeatures) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2"}) nodes.add(name);
  const NodeFeatures features =
      parse_node_features("node,x,y,z\n2,0.5,-1.5,+3\n0,1e-3,2,0\n", "f.csv", nodes, {.format = FeatureFormat::dense});
  EXPECT_EQ(features.spec.format, FeatureFormat::dense);
  EXPECT_EQ(features.spec.dim, 3);
  Matrix<float> expected(3, 3);
  expected << 1e-3f, 2, 0,  //
      0, 0, 0,              //
      0.5f, -1.5f, 3;
  EXPECT_EQ(features.values, expected);

  const auto ragged =
      parse_error_of([&] { parse_node_features("0 1 2\n1 1\n", "f.txt", nodes, {.format = FeatureFormat::dense}); });
  EXPECT_EQ(ragged.line(), 2u);
  EXPECT_EQ(ragged.text(), "1");
  EXPECT_EQ(ragged.reason(), "expected 2 feature values, found 1");

  const auto wrong_dim = parse_error_of(
      [&] { parse_node_features("0 1 2\n", "f.txt", nodes, {.format = FeatureFormat::dense, .dim = 3}); });
  EXPECT_EQ(wrong_dim.reason(), "expected 3 feature values, found 2");

  const auto infinite =
      parse_error_of([&] { parse_node_features("0 1 inf\n", "f.txt", nodes, {.format = FeatureFormat::dense}); });
  EXPECT_EQ(infinite.text(), "inf");
  EXPECT_EQ(infinite.reason(), "column 3: feature value is not a finite number");
}

TEST_F(GraphFilesTest, MusaeJsonFeatures) {
  NodeIndex nodes;
  for (const char* name : {"0", "1", "2"}) nodes.add(name);
  const std::filesystem::path path = write("features.json", "{\n  \"2\": [4, 1, 4],\n  \"0\": [0],\n  \"1\": []\n}\n");
  const NodeFeatures features = read_node_features(path, nodes, {.format = FeatureFormat::musae_json});
  EXPECT_EQ(features.spec.format, FeatureFormat::musae_json);
  EXPECT_EQ(features.spec.dim, 5);
  Matrix<float> expected(3, 5);
  expected << 1, 0, 0, 0, 0,  //
      0, 0, 0, 0, 0,          //
      0, 1, 0, 0, 1;
  EXPECT_EQ(features.values, expected);
}

TEST_F(GraphFilesTest, MusaeJsonErrorsNameTheirLine) {
  NodeIndex nodes;
  for (const char* name : {"0", "1"}) nodes.add(name);
  const FeatureOptions json = {.format = FeatureFormat::musae_json};
  const auto unknown =
      parse_error_of([&] { parse_node_features("{\"0\": [1],\n \"7\": [2]}", "f.json", nodes, json); });
  EXPECT_EQ(unknown.file(), "f.json");
  EXPECT_EQ(unknown.line(), 2u);
  EXPECT_EQ(unknown.text(), "7");
  EXPECT_EQ(unknown.reason(), "node not in the graph");

  const auto negative = parse_error_of([&] { parse_node_features("{\"0\": [1,\n\n-3\n]}", "f.json", nodes, json); });
  EXPECT_EQ(negative.line(), 3u);
  EXPECT_EQ(negative.text(), "-3");

  const auto text = parse_error_of([&] { parse_node_features("{\"0\": [1, \"x\"]}", "f.json", nodes, json); });
  EXPECT_EQ(text.line(), 1u);
  EXPECT_EQ(text.text(), "\"x\"");

  const auto not_a_list = parse_error_of([&] { parse_node_features("{\n\"0\": 1}", "f.json", nodes, json); });
  EXPECT_EQ(not_a_list.line(), 2u);
  EXPECT_EQ(not_a_list.reason(), "expected a list of feature indices");

  const auto top_level = parse_error_of([&] { parse_node_features("[[1]]", "f.json", nodes, json); });
  EXPECT_EQ(top_level.reason(), "expected an object mapping nodes to lists of feature indices");

  const auto twice = parse_error_of([&] { parse_node_features("{\"0\": [1],\n\"00\": [2]}", "f.json", nodes, json); });
  EXPECT_EQ(twice.line(), 2u);
  EXPECT_EQ(twice.reason(), "features for this node were given on line 1");

  const auto syntax = parse_error_of([&] { parse_node_features("{\"0\": [1],\n\"1\": [2,]}", "f.json", nodes, json); });
  EXPECT_EQ(syntax.line(), 2u);
  EXPECT_TRUE(syntax.reason().starts_with("invalid JSON: ")) << syntax.reason();
}

// A 2-line file must not ask for gigabytes: the widest index, or the dense width times the nodes,
// is checked against max_values before the matrix is allocated.
TEST_F(GraphFilesTest, FeatureMatrixBeyondTheLimitIsAnError) {
  NodeIndex nodes;
  for (const char* name : {"0", "1"}) nodes.add(name);
  const auto stray = parse_error_of([&] { parse_node_features("0 1 3\n1 2147483646\n", "f.txt", nodes); });
  EXPECT_EQ(stray.file(), "f.txt");
  EXPECT_EQ(stray.line(), 2u);
  EXPECT_EQ(stray.text(), "2147483646");
  EXPECT_EQ(stray.reason(),
            "the features would need a [2, 2147483647] matrix, more than the limit of 1073741824 values "
            "(FeatureOptions::max_values)");

  const auto json = parse_error_of([&] {
    parse_node_features("{\"0\": [1],\n \"1\": [40000]}", "f.json", nodes,
                        {.format = FeatureFormat::musae_json, .max_values = 1000});
  });
  EXPECT_EQ(json.line(), 2u);
  EXPECT_EQ(json.text(), "40000");

  for (int i = 2; i < 100; ++i) nodes.add(std::to_string(i));
  const FeatureOptions dense = {.format = FeatureFormat::dense, .max_values = 999};
  const auto tall = parse_error_of([&] { parse_node_features("\n5 1 2 3 4 5 6 7 8 9 10\n", "d.txt", nodes, dense); });
  EXPECT_EQ(tall.line(), 2u);
  EXPECT_EQ(tall.text(), "5");
  EXPECT_NE(tall.reason().find("[100, 10] matrix"), std::string::npos) << tall.reason();
  // Exactly at the limit is fine.
  EXPECT_EQ(parse_node_features("5 1 2 3 4 5 6 7 8 9 10\n", "d.txt", nodes, {.format = FeatureFormat::dense,
                                                                               .max_values = 1000})
                .values.size(),
            1000);
}

TEST_F(GraphFilesTest, FeatureOptionsAreChecked) {
  NodeIndex nodes;
  EXPECT_THROW(parse_node_features("", "f", nodes, {.format = FeatureFormat::structural}), ArgumentError);
  EXPECT_THROW(parse_node_features("", "f", nodes, {.dim = -1}), ArgumentError);
}

TEST_F(GraphFilesTest, FeatureFormatNamesRoundTrip) {
  for (const FeatureFormat format :
       {FeatureFormat::dense, FeatureFormat::sparse, FeatureFormat::musae_json, FeatureFormat::structural})
    EXPECT_EQ(feature_format_from_name(feature_format_name(format)), format);
  EXPECT_EQ(feature_format_name(FeatureFormat::musae_json), "musae_json");
  EXPECT_THROW(feature_format_from_name("bag_of_words"), ArgumentError);
}

TEST_F(GraphFilesTest, StructuralFeaturesAreDegreeOneHotThenRandomWalks) {
  // A star 0 - {1, 2, 3} and an isolated node 4, with self-loops for attention.
  const EdgeList list = parse_edge_list("0 1\n0 2\n0 3\n", "star.txt", {}, [] {
    NodeIndex nodes;
    for (const char* name : {"0", "1", "2", "3", "4"}) nodes.add(name);
    return nodes;
  }());
  const Graph graph = list.to_graph();
  const NodeFeatures features = structural_features(graph, {.max_degree = 2, .walk_steps = 3});
  EXPECT_EQ(features.spec.format, FeatureFormat::structural);
  EXPECT_EQ(features.spec.dim, 6);
  EXPECT_EQ(features.spec.max_degree, 2);
  EXPECT_EQ(features.spec.walk_steps, 3);
  Matrix<float> degrees(5, 3);
  degrees << 0, 0, 1,  // degree 3, capped
      0, 1, 0,         //
      0, 1, 0,         //
      0, 1, 0,         //
      1, 0, 0;
  EXPECT_EQ(features.values.leftCols(3), degrees);
  EXPECT_EQ(features.values.rightCols(3), random_walk_encoding<float>(graph, 3));
  EXPECT_FLOAT_EQ(features.values(4, 3), 1.0f);  // the isolated node's walk stays on its self-loop
  EXPECT_EQ(features.spec.sampled_walks, 0);  // a small graph's walks are exact by default

  const NodeFeatures sampled = structural_features(graph, {.max_degree = 2, .walk_steps = 3, .sampled_walks = 8});
  EXPECT_EQ(sampled.spec.sampled_walks, 8);
  EXPECT_EQ(sampled.values.leftCols(3), degrees);
  EXPECT_EQ(sampled.values.rightCols(3), sampled_random_walk_encoding<float>(graph, 3, 8, structural_walk_seed));

  EXPECT_THROW(structural_features(graph, {.max_degree = -1}), ArgumentError);
  EXPECT_THROW(structural_features(graph, {.sampled_walks = -2}), ArgumentError);
  EXPECT_THROW(structural_features(graph, {.sampled_walks = max_sampled_walks + 1}), ArgumentError);
}

// ---- The shared datasets ----

std::filesystem::path graph_file(const std::string& dataset, const std::string& file) {
  return data_dir() / dataset / file;
}

std::vector<Index> class_sizes(const NodeLabels& labels) {
  std::vector<Index> sizes(static_cast<std::size_t>(labels.num_classes()), 0);
  for (Index c : labels.classes)
    if (c >= 0) ++sizes[static_cast<std::size_t>(c)];
  return sizes;
}

// The labels of `labels` by node name, for comparing two numberings of one dataset.
std::map<std::string, std::string> labels_by_name(const NodeLabels& labels, const NodeIndex& nodes) {
  std::map<std::string, std::string> by_name;
  for (Index i = 0; i < nodes.size(); ++i) {
    const Index c = labels.classes[static_cast<std::size_t>(i)];
    if (c >= 0) by_name[std::string(nodes.name(i))] = labels.class_names[static_cast<std::size_t>(c)];
  }
  return by_name;
}

TEST(GraphFileDatasets, Cora) {
  const std::filesystem::path edges_path = graph_file("cora", "edges.txt");
  if (!std::filesystem::exists(edges_path)) GTEST_SKIP() << missing_data_reason(edges_path);
  EdgeList list = read_edge_list(edges_path);
  const NodeLabels labels = read_node_labels(graph_file("cora", "labels.txt"), list.nodes);
  const NodeFeatures features = read_node_features(graph_file("cora", "features.txt"), list.nodes);
  EXPECT_EQ(list.nodes.size(), 2708);
  EXPECT_EQ(list.edges.size(), 5278u);
  EXPECT_EQ(list.nodes.name(0), "0");
  EXPECT_EQ(list.nodes.name(1), "633");  // numbered in order of first appearance
  const Graph graph = list.to_graph();
  EXPECT_EQ(graph.num_edges(), 2 * 5278 + 2708);

  EXPECT_EQ(labels.num_classes(), 7);
  EXPECT_EQ(labels.num_labeled(), 2708);
  EXPECT_EQ(class_sizes(labels), (std::vector<Index>{351, 217, 418, 818, 426, 298, 180}));
  EXPECT_EQ(labels.classes[0], 3);  // node "0" has label 3

  EXPECT_EQ(features.spec.dim, 1433);
  ASSERT_EQ(features.values.rows(), 2708);
  EXPECT_EQ(features.values.sum(), 49216.0f);
  EXPECT_EQ(features.values.maxCoeff(), 1.0f);
  EXPECT_EQ(features.values(0, 19), 1.0f);
  EXPECT_EQ(features.values.row(0).sum(), 9.0f);  // node "0": 19 81 146 315 774 877 1194 1247 1274

  // nodes.tsv holds the same labels and features, with a label column before the indices.
  const std::filesystem::path nodes_tsv = graph_file("cora", "nodes.tsv");
  const NodeLabels tsv_labels = read_node_labels(nodes_tsv, list.nodes);
  const NodeFeatures tsv_features = read_node_features(nodes_tsv, list.nodes, {.skip_fields = 1});
  EXPECT_EQ(tsv_labels.classes, labels.classes);
  EXPECT_EQ(tsv_features.values, features.values);
}

TEST(GraphFileDatasets, EmailEuCore) {
  const std::filesystem::path snap_path = graph_file("email_eu_core", "email-Eu-core.txt");
  if (!std::filesystem::exists(snap_path)) GTEST_SKIP() << missing_data_reason(snap_path);
  EdgeList undirected = read_edge_list(snap_path);
  EXPECT_EQ(undirected.nodes.size(), 1005);
  EXPECT_EQ(undirected.edges.size(), 16064u + 642u);  // distinct pairs plus the self-loops
  EXPECT_EQ(undirected.to_graph().num_edges(), 2 * 16064 + 1005);

  const EdgeList directed = read_edge_list(snap_path, {.directed = true});
  EXPECT_EQ(directed.edges.size(), 25571u);
  EXPECT_EQ(directed.to_graph().num_edges(), 25571 + (1005 - 642));

  const NodeLabels labels =
      read_node_labels(graph_file("email_eu_core", "email-Eu-core-department-labels.txt"), undirected.nodes);
  EXPECT_EQ(labels.num_classes(), 42);
  EXPECT_EQ(labels.num_labeled(), 1005);
  const std::vector<Index> sizes = class_sizes(labels);
  EXPECT_EQ(sizes[4], 109);
  EXPECT_EQ(sizes[18], 1);
  EXPECT_EQ(sizes[33], 1);

  // The derived edges.txt drops self-loops, and with them the 19 nodes that have no other edge.
  EdgeList derived = read_edge_list(graph_file("email_eu_core", "edges.txt"));
  EXPECT_EQ(derived.nodes.size(), 986);
  EXPECT_EQ(derived.edges.size(), 16064u);
  const std::filesystem::path labels_path = graph_file("email_eu_core", "labels.txt");
  const auto unknown = parse_error_of([&] { read_node_labels(labels_path, derived.nodes); });
  EXPECT_EQ(unknown.file(), labels_path.string());
  EXPECT_EQ(unknown.reason(), "column 1: node not in the graph");
  const NodeLabels added = read_node_labels(labels_path, derived.nodes, {.unknown_nodes = UnknownNodes::add});
  EXPECT_EQ(derived.nodes.size(), 1005);
  EXPECT_EQ(added.num_labeled(), 1005);
  const Graph graph = derived.to_graph();
  EXPECT_EQ(graph.num_edges(), 2 * 16064 + 1005);
  Index only_self_loop = 0;
  for (Index i = 0; i < graph.num_nodes(); ++i) only_self_loop += graph.in_degree(i) == 1;
  EXPECT_EQ(only_self_loop, 19);
}

TEST(GraphFileDatasets, LastfmAsia) {
  const std::filesystem::path edges_path = graph_file("lastfm_asia", "lastfm_asia_edges.csv");
  if (!std::filesystem::exists(edges_path)) GTEST_SKIP() << missing_data_reason(edges_path);
  EdgeList list = read_edge_list(edges_path);
  const NodeLabels labels = read_node_labels(graph_file("lastfm_asia", "lastfm_asia_target.csv"), list.nodes);
  EXPECT_EQ(list.nodes.size(), 7624);
  EXPECT_EQ(list.edges.size(), 27806u);
  EXPECT_EQ(list.to_graph().num_edges(), 2 * 27806 + 7624);
  EXPECT_EQ(labels.num_classes(), 18);
  EXPECT_EQ(labels.num_labeled(), 7624);
  const std::vector<Index> sizes = class_sizes(labels);
  EXPECT_EQ(sizes[0], 1098);
  EXPECT_EQ(sizes[17], 1572);

  // The derived files number the same nodes the same way by name.
  EdgeList derived = read_edge_list(graph_file("lastfm_asia", "edges.txt"));
  const NodeLabels derived_labels = read_node_labels(graph_file("lastfm_asia", "labels.txt"), derived.nodes);
  EXPECT_EQ(labels_by_name(derived_labels, derived.nodes), labels_by_name(labels, list.nodes));
}

TEST(GraphFileDatasets, TwitchJsonFeaturesMatchTheSparseFile) {
  const std::filesystem::path json_path = graph_file("twitch_en", "ENGB_features.json");
  if (!std::filesystem::exists(json_path)) GTEST_SKIP() << missing_data_reason(json_path);
  EdgeList list = read_edge_list(graph_file("twitch_en", "ENGB_edges.csv"));
  EXPECT_EQ(list.nodes.size(), 7126);
  EXPECT_EQ(list.edges.size(), 35324u);
  EXPECT_EQ(list.to_graph().num_edges(), 2 * 35324 + 7126);
  const NodeLabels labels =
      read_node_labels(graph_file("twitch_en", "ENGB_target.csv"), list.nodes, {.node_column = 5, .label_column = 2});
  EXPECT_EQ(labels.class_names, (std::vector<std::string>{"False", "True"}));
  EXPECT_EQ(class_sizes(labels), (std::vector<Index>{3238, 3888}));

  const NodeFeatures json = read_node_features(json_path, list.nodes, {.format = FeatureFormat::musae_json});
  const NodeFeatures text = read_node_features(graph_file("twitch_en", "features.txt"), list.nodes);
  EXPECT_EQ(json.spec.dim, 3170);
  EXPECT_EQ(json.values.sum(), 147683.0f);
  EXPECT_EQ(json.values, text.values);
}

}  // namespace
}  // namespace edgewise

// Link prediction on Zachary's karate club: hold out some friendships, train an attention encoder on
// the others to tell friends from non-friends, score the held-out ones against as many pairs of
// members who are not friends, then suggest new friends for the two leaders.
#include <edgewise/core/parallel.hpp>
#include <edgewise/models/link_training.hpp>

#include <cstdio>
#include <vector>

namespace {

// The 78 friendships of Zachary (1977), members numbered 0 .. 33; 0 is Mr. Hi, 33 the officer.
const std::vector<edgewise::NodePair> kFriendships = {
    {0, 1},   {0, 2},   {0, 3},   {0, 4},   {0, 5},   {0, 6},   {0, 7},   {0, 8},   {0, 10},  {0, 11},
    {0, 12},  {0, 13},  {0, 17},  {0, 19},  {0, 21},  {0, 31},  {1, 2},   {1, 3},   {1, 7},   {1, 13},
    {1, 17},  {1, 19},  {1, 21},  {1, 30},  {2, 3},   {2, 7},   {2, 8},   {2, 9},   {2, 13},  {2, 27},
    {2, 28},  {2, 32},  {3, 7},   {3, 12},  {3, 13},  {4, 6},   {4, 10},  {5, 6},   {5, 10},  {5, 16},
    {6, 16},  {8, 30},  {8, 32},  {8, 33},  {9, 33},  {13, 33}, {14, 32}, {14, 33}, {15, 32}, {15, 33},
    {18, 32}, {18, 33}, {19, 33}, {20, 32}, {20, 33}, {22, 32}, {22, 33}, {23, 25}, {23, 27}, {23, 29},
    {23, 32}, {23, 33}, {24, 25}, {24, 27}, {24, 31}, {25, 31}, {26, 29}, {26, 33}, {27, 33}, {28, 31},
    {28, 33}, {29, 32}, {29, 33}, {30, 32}, {30, 33}, {31, 32}, {31, 33}, {32, 33}};
constexpr edgewise::Index kMembers = 34;

int run() {
  edgewise::set_num_threads(1);
  // 80 % of the friendships train, 10 % choose the epoch, 10 % test; the encoder sees only the first.
  const edgewise::LinkSplit split = edgewise::split_links(kFriendships, kMembers, 0.8, 0.1, /*seed=*/0);
  const edgewise::Graph seen =
      edgewise::Graph::from_pairs(kMembers, split.train, {.add_self_loops = true, .symmetrize = true});
  // Nothing is known about the members but their friendships: no features, and each member a
  // one-hot identity, so that the encoder learns a vector for each.
  const edgewise::Matrix<float> no_features(kMembers, 0);
  const edgewise::EncoderInput input(no_features, /*identity=*/true);

  edgewise::Parameters<float> params;
  edgewise::NodeClassifierOptions options;
  options.in_dim = kMembers;
  options.classes = 16;  // the width of a member's embedding
  options.heads = 4;
  options.head_dim = 8;
  options.dropout = options.attention_dropout = options.value_dropout = 0;
  edgewise::NodeClassifier<float> encoder(params, options);
  edgewise::LinkScorer scorer(params, edgewise::PairScorer::dot, options.classes);  // dot products of embeddings
  edgewise::SplitMix64 rng(0);
  encoder.reset_parameters(rng);
  edgewise::LinkTrainingOptions training;
  training.epochs = 200;
  training.non_links = edgewise::NonLinkSampling::degree;
  training.log.level = edgewise::LogLevel::quiet;
  const edgewise::LinkTrainingResult result =
      edgewise::train_link_predictor(encoder, scorer, params, seen, input, split, training);

  const edgewise::Matrix<float> z = edgewise::node_embeddings(encoder, seen, input);
  const std::vector<float> friends = scorer.scores(z, split.test);
  const edgewise::LinkMetrics test = edgewise::link_metrics(friends, scorer.scores(z, split.test_negatives), 3);
  std::printf("best epoch %lld of %zu; the %zu held-out friendships against as many non-friends: ROC-AUC %.3f, "
              "average precision %.3f\n",
              static_cast<long long>(result.best_epoch), result.history.size(), split.test.size(), test.roc_auc,
              test.average_precision);

  // Suggestions leave out the friendships already known, the held-out ones included.
  for (const edgewise::Index member : {0, 33}) {
    std::vector<edgewise::NodeId> friends;
    for (const auto& [a, b] : kFriendships)
      if (a == member || b == member) friends.push_back(static_cast<edgewise::NodeId>(a == member ? b : a));
    std::printf("new friends for member %lld:", static_cast<long long>(member));
    for (const edgewise::ScoredNode& suggested : edgewise::recommend_links(scorer, z, member, 3, friends))
      std::printf(" %lld (score %.2f)", static_cast<long long>(suggested.node), suggested.score);
    std::printf("\n");
  }
  return test.roc_auc > 0.5 ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "friend_suggestions: %s\n", error.what());
    return 1;
  }
}

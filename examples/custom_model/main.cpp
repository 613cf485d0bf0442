// A custom model assembled from edgewise's building blocks: two GraphAttention layers with an ELU
// between them, trained with softmax cross-entropy and Adam in a hand-written loop, on a stochastic
// block model (planted communities with noisy, community-dependent features). Prints the training
// loss falling and the accuracy on nodes the loss never saw; exits with 1 if the loss did not fall.
#include <edgewise/edgewise.hpp>

#include <cstdio>
#include <vector>

namespace {

using edgewise::Index;
using edgewise::Matrix;

// The fraction of `nodes` whose highest logit is their label.
double accuracy(const Matrix<float>& logits, const std::vector<Index>& labels, const std::vector<Index>& nodes) {
  Index correct = 0;
  for (const Index node : nodes) {
    Index predicted = 0;
    logits.row(node).maxCoeff(&predicted);
    correct += predicted == labels[static_cast<std::size_t>(node)];
  }
  return static_cast<double>(correct) / static_cast<double>(nodes.size());
}

int run() {
  edgewise::set_num_threads(1);
  const edgewise::SbmGraph sbm = edgewise::stochastic_block_model(
      {.nodes = 600, .communities = 3, .p_in = 0.03, .p_out = 0.003, .feature_dim = 8, .feature_noise = 2.0, .seed = 7});
  const Index classes = 3;
  const edgewise::Split split = edgewise::stratified_split(sbm.labels, 0.1, 0.0, /*seed=*/1);
  // The loss sees the training nodes only: every other node's target is -1, which it ignores.
  std::vector<Index> targets(sbm.labels.size(), -1);
  for (const Index node : split.train) targets[static_cast<std::size_t>(node)] = sbm.labels[static_cast<std::size_t>(node)];

  // Every layer registers its weights in one flat buffer, which the optimizer updates as a whole.
  edgewise::Parameters<float> params;
  edgewise::GraphAttention<float> hidden(params, "hidden",
                                         {.in_dim = sbm.features.cols(), .heads = 4, .head_dim = 8,
                                          .score = edgewise::ScoreFunction::gatv2, .output_projection = false});
  edgewise::ELU<float> activation;
  edgewise::GraphAttention<float> output(params, "output",
                                         {.in_dim = hidden.out_dim(), .heads = 1, .head_dim = classes,
                                          .score = edgewise::ScoreFunction::gatv2, .output_projection = false});
  edgewise::SplitMix64 rng(/*seed=*/0);
  hidden.reset_parameters(rng);
  output.reset_parameters(rng);
  edgewise::Adam<float> optimizer(params, {.lr = 0.01, .weight_decay = 5e-4});

  Matrix<float> dlogits;
  double first_loss = 0, loss = 0;
  for (int epoch = 1; epoch <= 60; ++epoch) {
    params.zero_grad();
    const Matrix<float>& h = activation.forward(hidden.forward(sbm.graph, sbm.features, nullptr));
    const Matrix<float>& logits = output.forward(sbm.graph, h, nullptr);
    loss = edgewise::cross_entropy_loss(dlogits, logits, std::span<const Index>(targets));
    hidden.backward(activation.backward(output.backward(dlogits)));
    optimizer.step();
    if (epoch == 1) first_loss = loss;
    if (epoch == 1 || epoch % 10 == 0)
      std::printf("epoch %2d: loss %.4f, test accuracy %.3f\n", epoch, loss, accuracy(logits, sbm.labels, split.test));
  }
  std::printf("%lld parameters; loss %.4f -> %.4f\n", static_cast<long long>(params.size()), first_loss, loss);
  return loss < first_loss ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const edgewise::Error& error) {
    std::fprintf(stderr, "custom_model: %s\n", error.what());
    return 1;
  }
}

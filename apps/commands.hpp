// Subcommands of the `edgewise` tool. Each lives in its own file and registers itself on the root
// app with an add_<name>_command function declared here; main() calls every one of them.
// A subcommand does its work in a CLI11 callback and reports failures by throwing edgewise::Error.
#pragma once

#include <CLI/CLI.hpp>

namespace edgewise::cli {

// `edgewise train`: train a model and save it.
void add_train_command(CLI::App& app);
// `edgewise tune`: training options chosen by cross-validation, written for `train --options`.
void add_tune_command(CLI::App& app);
// `edgewise predict`: predictions of a saved model.
void add_predict_command(CLI::App& app);
// `edgewise eval`: metrics of a saved model on labelled data.
void add_eval_command(CLI::App& app);
// `edgewise embed`: node embeddings of a saved node classifier or link predictor.
void add_embed_command(CLI::App& app);
// `edgewise recommend`: new partners for nodes of a graph, from a saved link predictor.
void add_recommend_command(CLI::App& app);
// `edgewise info`: what a model file holds and how the model was trained.
void add_info_command(CLI::App& app);
// `edgewise explain`: a molecule drawn with the attention it receives.
void add_explain_command(CLI::App& app);
// `edgewise graph build|info|generate`: binary graph stores (.ewg).
void add_graph_command(CLI::App& app);

}  // namespace edgewise::cli

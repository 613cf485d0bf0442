/// \file
/// The training options of each task, once: name, type, default (or the rule that chooses it from the
/// data), help, check, and how a value sets the task's training parameters. The command line's
/// `train` and `tune` options and their help, options files, `tune`'s candidates and Python's keyword
/// arguments and documentation are all made from these tables.
///
///   MoleculeTrainingParams params = molecule_training_params({{"hidden", 128}, {"readout", "sum"}});
///   TrainedMoleculeModel trained = train_molecule_model(data, split, params.plan);
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "edgewise/tasks/common/layer_width.hpp"
#include "edgewise/tasks/link/link_model.hpp"
#include "edgewise/tasks/molecule/molecule_training.hpp"
#include "edgewise/tasks/node/node_model.hpp"

namespace edgewise {

/// What a molecule training asks for: the plan, the split and the widths as given. Defaults are
/// those of `edgewise train --task molecule`.
struct MoleculeTrainingParams {
  MoleculeTrainingPlan plan = {};         ///< the model and its training
  std::string split = "random";           ///< a split specification (split_spec.hpp)
  std::string split_sizes = "0.8,0.1,0.1";  ///< train, validation and test fractions of random and scaffold
  GivenWidth width = {};                  ///< hidden and head-dim where given
};

/// What a node classifier's training asks for; the regularization left empty is chosen from the data
/// (node_training_settings). Defaults are those of `edgewise train --task node`.
struct NodeTrainingParams {
  NodeClassifierOptions network = {};       ///< the network, its width from `width`
  NodeTrainingOptions training = {};        ///< epochs, learning rate, patience, seed
  NodeRegularization regularization = {};   ///< dropouts and weight decay where given
  NodeBatching batching = {};               ///< sampled mini-batches where given
  std::string split = "stratified:0.6,0.2,0.2";  ///< a split specification (split_spec.hpp)
  GivenWidth width = {};                    ///< hidden and head-dim where given
};

/// What a link predictor's training asks for. Defaults are those of `edgewise train --task link`.
struct LinkTrainingParams {
  /// the encoder, its width from `width`; an unset output_score: default_link_output_score
  NodeClassifierOptions network = default_link_encoder();
  std::optional<PairScorer> scorer;  ///< how a pair's embeddings become the logit of a link; unset: default_pair_scorer
  std::optional<bool> identity_features;  ///< LinkModelConfig::identity_features; unset: default_identity_features
  std::optional<Index> layers;    ///< the encoder's attention layers; unset: default_link_layers
  std::optional<double> dropout;  ///< of the encoder's inputs and values; unset: default_link_dropout
  LinkTrainingOptions training = {};  ///< epochs, learning rate, weight decay, non-links, patience, seed
  std::string split = "random";       ///< a split specification (split_spec.hpp)
  std::string split_sizes = "0.85,0.05,0.1";  ///< train, validation and test fractions of the links
  GivenWidth width = {};              ///< hidden and head-dim where given
  LinkSamplingOptions sampling = {};  ///< sampled mini-batches, for a graph store
  /// The model these make for `data`, the unset options by their rules, for train_link_model. Throws
  /// ArgumentError when `sampling` is not the default: a graph read from files trains full batch.
  LinkModelPlan model(const NodeGraph& data) const;
  /// The model these make for sampled training on `store`: identity features off unless given, which
  /// is an error (sampled batches read the stored features alone).
  LinkModelPlan model(const GraphStore& store) const;
};

/// How a front end names options in its messages.
struct ParamNaming {
  std::string prefix = "--";      ///< before the name
  char separator = '-';           ///< between its words
  std::string task = "--task molecule";  ///< how the task is named ("--task molecule's default")
  std::string suffix = {};            ///< after the name
  /// `name` as this front end writes it ("--head-dim", "head_dim").
  std::string operator()(std::string_view name) const;
};

/// The kind of value a training option takes.
enum class ParamType {
  integer,   ///< a whole number
  number,    ///< a real number
  text,      ///< a word or specification
  flag,      ///< on or off
  integers,  ///< a comma-separated list of whole numbers
};

/// "integer", "number", "text", "flag" or "integers".
std::string to_string(ParamType type);

/// One training option of the task whose parameters are `Params`.
template <typename Params>
struct TrainingParam {
  std::string name = {};               ///< as `--name` and options files spell it; Python writes '_' for '-'
  ParamType type = ParamType::text;    ///< the kind of value
  std::string help = {};               ///< what it does
  std::string rule = {};  ///< how the data choose the default; empty: get(Params{}) is the default
  /// Why a value (of the right type) is refused; empty when it is accepted.
  std::function<std::string(const nlohmann::json&)> check = {};
  bool tunable = false;  ///< `tune`'s candidates may set it (a model or training option, not the data's)
  bool keyword = true;   ///< a keyword option of Python's train; false: a parameter of its own (split)
  std::function<void(Params&, const nlohmann::json&)> set = {};  ///< sets a checked value
  std::function<nlohmann::json(const Params&)> get = {};         ///< the value `params` hold
  std::vector<std::string> choices = {};  ///< the values a text option takes; empty: any

  /// The default as help shows it: the rule, or the value of Params{}.
  std::string default_text() const;
  /// `value` read as this option's value, the same way from every front end and options file: a
  /// value of the option's type, or its text as a command line gives it ("64", "on", "15,10"), then
  /// one of the choices and accepted by the check. Returns it in the option's type, as options files
  /// store it. Throws ArgumentError naming the option as `naming` writes it.
  nlohmann::json read(const nlohmann::json& value, const ParamNaming& naming) const;
};

/// The options of `edgewise train --task molecule` and Python's MoleculeModel.train, in help order.
const std::vector<TrainingParam<MoleculeTrainingParams>>& molecule_params();
/// The options of `edgewise train --task node` and Python's NodeModel.train, in help order.
const std::vector<TrainingParam<NodeTrainingParams>>& node_params();
/// The options of `edgewise train --task link`, in help order.
const std::vector<TrainingParam<LinkTrainingParams>>& link_params();

/// The name of the option that the front end `naming` writes as `written`, or empty for none of
/// `names`.
std::string param_named(const std::vector<std::string>& names, std::string_view written, const ParamNaming& naming);

/// A value as text, as help and command lines show it: numbers shortest, lists comma-separated.
std::string param_text(const nlohmann::json& value);
/// The value `text` gives an option of `type`; ArgumentError naming `shown` when it is not one.
nlohmann::json parse_param(ParamType type, std::string_view text, std::string_view shown);

/// The names of the options of the task `task` ("graph", "molecule", "node" or "link"), in help order;
/// with `tunable_only`, those `tune`'s candidates may set. ArgumentError for another task.
std::vector<std::string> training_option_names(std::string_view task, bool tunable_only = false);

/// The tasks ("molecule", "node", "link") whose training reads the option `name`, in that order;
/// "no-<flag>" names the flag's option.
std::vector<std::string> tasks_reading(std::string_view name);

/// The options `options` (name -> value) of the task `task`, each read by its row
/// (TrainingParam::read), as options files and `tune`'s grids give them; "no-descriptors": true
/// turns the flag descriptors off. Returns them by name in their types. Throws ArgumentError naming
/// the option as `naming` writes it for one of another task or a value its row refuses.
nlohmann::json read_training_options(std::string_view task, const nlohmann::json& options, const ParamNaming& naming);

/// The parameters with `given` (option name -> value) set over the defaults, each value checked,
/// and the width resolved. Throws ArgumentError naming the option as `naming` writes it for an
/// unknown option, a value of another type or one its check refuses, and widths heads cannot split.
MoleculeTrainingParams molecule_training_params(const nlohmann::json& given, const ParamNaming& naming = {});
/// The same for node classification.
NodeTrainingParams node_training_params(const nlohmann::json& given, const ParamNaming& naming = {});
/// The same for link prediction.
LinkTrainingParams link_training_params(const nlohmann::json& given, const ParamNaming& naming = {});

}  // namespace edgewise

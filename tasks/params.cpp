#include "edgewise/tasks/params.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <sstream>

#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/graph/sampling.hpp"
#include "edgewise/models/sampled_training.hpp"
#include "edgewise/tasks/common/model.hpp"

namespace edgewise {
namespace {

using json = nlohmann::json;
using Check = std::function<std::string(const json&)>;

constexpr Index kMaxIndex = std::numeric_limits<Index>::max();

// Whole numbers are read as unsigned above 2^63 - 1 (parse_param; JSON does the same), which only a
// seed may take.
bool beyond_index(const json& value) {
  return value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxIndex);
}

Check at_least(Index minimum) {
  return [minimum](const json& value) {
    if (beyond_index(value)) return "value " + value.dump() + " is above the maximum of " + std::to_string(kMaxIndex);
    return value.get<long long>() >= minimum
               ? std::string()
               : "value " + value.dump() + " is below the minimum of " + std::to_string(minimum);
  };
}

// Seeds take every 64-bit unsigned value.
const Check kSeed = [](const json& value) {
  return value.is_number_unsigned() || value.get<long long>() >= 0
             ? std::string()
             : "value " + value.dump() + " is below the minimum of 0";
};

Check between(double low, double high) {
  return [low, high](const json& value) {
    const double v = value.get<double>();
    return v >= low && v <= high ? std::string()
                                 : "expected a number from " + param_text(low) + " to " + param_text(high) + ", got " +
                                       param_text(value);
  };
}

const Check kPositive = [](const json& value) {
  return value.get<double>() > 0 ? std::string() : "expected a positive number, got " + param_text(value);
};
const Check kNonNegative = [](const json& value) {
  return value.get<double>() >= 0 ? std::string() : "expected a number of at least 0, got " + param_text(value);
};
const Check kFanouts = [](const json& value) {
  for (const json& fanout : value)
    if (beyond_index(fanout) || (fanout.get<Index>() < 1 && fanout.get<Index>() != kAllNeighbors))
      return "a fan-out is a number of neighbours, at least 1, or -1 for all of them; got " + fanout.dump();
  return std::string();
};

// An option both tasks read: its name, type, check and choices once, and the help where both tasks
// give the same; each task's table binds it to its own parameters with its default rule and
// tunability (and its own help where they differ).
struct SharedParam {
  std::string name;
  ParamType type;
  std::string help = {};
  Check check = {};
  std::vector<std::string> choices = {};
};

struct SharedParams {
  SharedParam split{"split", ParamType::text};
  SharedParam epochs{"epochs", ParamType::integer, "Maximum number of epochs", at_least(1)};
  SharedParam layers{"layers", ParamType::integer, {}, at_least(1)};
  SharedParam heads{"heads", ParamType::integer, "Attention heads of each hidden layer", at_least(1)};
  SharedParam hidden{"hidden", ParamType::integer,
                     "Width of a hidden layer, heads heads of head-dim each; give it or head-dim", at_least(1)};
  SharedParam head_dim{"head-dim", ParamType::integer, "Width of one head of a hidden layer", at_least(1)};
  SharedParam score{"score", ParamType::text, "Attention score function", {}, score_function_names()};
  SharedParam output_score{"output-score", ParamType::text, "Attention score function of the output layer", {},
                           score_function_names()};
  SharedParam dropout{"dropout", ParamType::number, {}, between(0, 0.95)};
  SharedParam attention_dropout{"attention-dropout", ParamType::number, "Dropout on attention weights", between(0, 0.95)};
  SharedParam lr{"lr", ParamType::number, {}, kPositive};
  SharedParam weight_decay{"weight-decay", ParamType::number, {}, kNonNegative};
  SharedParam batch_size{"batch-size", ParamType::integer, {}, at_least(1)};
  SharedParam patience{"patience", ParamType::integer, {}, at_least(1)};
  SharedParam seed{"seed", ParamType::integer,
                   "Seed for the split, initialization, shuffling and dropout (tune: also the folds)", kSeed};
};

const SharedParams& shared_params() {
  static const SharedParams params;
  return params;
}

// A task's row of a shared option: `row` with the option's name, type, check, choices and, unless
// `row` gives its own, help.
template <typename Params>
TrainingParam<Params> bind(const SharedParam& shared, TrainingParam<Params> row) {
  row.name = shared.name;
  row.type = shared.type;
  if (row.help.empty()) row.help = shared.help;
  row.check = shared.check;
  row.choices = shared.choices;
  return row;
}

template <typename Value>
std::optional<Value> optional_of(const json& value) {
  return value.is_null() ? std::nullopt : std::optional<Value>(value.get<Value>());
}
template <typename Value>
json json_of(const std::optional<Value>& value) {
  return value ? json(*value) : json();
}
json json_of(const std::optional<ScoreFunction>& score) { return score ? json(to_string(*score)) : json(); }

// The row of an option that node classification and link prediction both bind to their encoder
// (`network`, a NodeClassifierOptions), its widths as given (`width`), or their training's epochs,
// learning rate, patience and seed: `row` (help, rule, tunability) with its setter and getter.
template <typename P>
TrainingParam<P> encoder_row(const SharedParam& shared, TrainingParam<P> row) {
  using Set = std::function<void(P&, const json&)>;
  using Get = std::function<json(const P&)>;
  static const std::map<std::string, std::pair<Set, Get>> fields = {
      {"epochs", {[](P& p, const json& v) { p.training.epochs = v; }, [](const P& p) -> json { return p.training.epochs; }}},
      {"layers", {[](P& p, const json& v) { p.network.layers = v; }, [](const P& p) -> json { return p.network.layers; }}},
      {"heads", {[](P& p, const json& v) { p.network.heads = v; }, [](const P& p) -> json { return p.network.heads; }}},
      {"hidden", {[](P& p, const json& v) { p.width.hidden = v; }, [](const P& p) -> json { return p.network.heads * p.network.head_dim; }}},
      {"head-dim", {[](P& p, const json& v) { p.width.head_dim = v; }, [](const P& p) -> json { return p.network.head_dim; }}},
      {"score", {[](P& p, const json& v) { p.network.score = parse_score_function(v.get<std::string>()); }, [](const P& p) -> json { return to_string(p.network.score); }}},
      {"output-score", {[](P& p, const json& v) { p.network.output_score = parse_score_function(v.get<std::string>()); }, [](const P& p) { return json_of(p.network.output_score); }}},
      {"lr", {[](P& p, const json& v) { p.training.learning_rate = v; }, [](const P& p) -> json { return p.training.learning_rate; }}},
      {"patience", {[](P& p, const json& v) { p.training.patience = v; }, [](const P& p) -> json { return p.training.patience; }}},
      {"seed", {[](P& p, const json& v) { p.training.seed = v; }, [](const P& p) -> json { return p.training.seed; }}},
  };
  std::tie(row.set, row.get) = fields.at(shared.name);
  return bind<P>(shared, std::move(row));
}

bool has_type(ParamType type, const json& value) {
  switch (type) {
    case ParamType::integer:
      return value.is_number_integer();
    case ParamType::number:
      return value.is_number();
    case ParamType::text:
      return value.is_string();
    case ParamType::flag:
      return value.is_boolean();
    case ParamType::integers:
      return value.is_array() && std::ranges::all_of(value, [](const json& item) { return item.is_number_integer(); });
  }
  return false;
}

// Sets `given` over `params`, each value read by its row; throws ArgumentError naming the option.
template <typename Params>
void set_given(const std::vector<TrainingParam<Params>>& table, Params& params, const json& given,
               const ParamNaming& naming) {
  if (!given.is_object()) throw ArgumentError("training options: expected an object of option names and values");
  for (const auto& [name, value] : given.items()) {
    const auto param = std::ranges::find(table, name, &TrainingParam<Params>::name);
    if (param == table.end()) throw ArgumentError(naming(name) + ": not a training option of " + naming.task);
    param->set(params, param->read(value, naming));
  }
}

// The options of `table` named in `options`, each read by its row; "no-<flag>" turns <flag> off.
template <typename Params>
json read_options(const std::vector<TrainingParam<Params>>& table, const json& options, const ParamNaming& naming) {
  if (!options.is_object()) throw ArgumentError("training options: expected an object of option names and values");
  json read = json::object();
  for (const auto& [name, value] : options.items()) {
    const auto param = std::ranges::find(table, name, &TrainingParam<Params>::name);
    if (param != table.end()) {
      read[name] = param->read(value, naming);
      continue;
    }
    const auto flag = name.starts_with("no-") ? std::ranges::find(table, name.substr(3), &TrainingParam<Params>::name)
                                              : table.end();
    if (flag == table.end() || flag->type != ParamType::flag)
      throw ArgumentError(naming(name) + ": not a training option of " + naming.task);
    read[flag->name] = !flag->read(value, naming).template get<bool>();
  }
  return read;
}

template <typename Params>
std::vector<std::string> option_names(const std::vector<TrainingParam<Params>>& table, bool tunable_only) {
  std::vector<std::string> names;
  for (const TrainingParam<Params>& param : table)
    if (param.tunable || !tunable_only) names.push_back(param.name);
  return names;
}

// Calls `use` with the table of `task`.
template <typename Use>
auto with_table(std::string_view task, Use use) {
  if (canonical_task_name(task) == "node") return use(node_params());
  if (canonical_task_name(task) == "link") return use(link_params());
  if (canonical_task_name(task) != "molecule")
    throw ArgumentError("task: expected molecule (or graph, the same), node or link, got '" + std::string(task) + "'");
  return use(molecule_params());
}

WidthOptionNames width_names(const std::string (&names)[3]) {
  return {.hidden = names[0], .heads = names[1], .head_dim = names[2]};
}

std::string node_weight_decay_rule() {
  return param_text(NodeTrainingOptions{}.weight_decay) + ", or 0 above 25 training labels a class with features from a file";
}

}  // namespace

constexpr std::pair<ParamType, std::string_view> kParamTypeNames[] = {
    {ParamType::integer, "integer"}, {ParamType::number, "number"}, {ParamType::text, "text"},
    {ParamType::flag, "flag"}, {ParamType::integers, "integers"}};

std::string to_string(ParamType type) { return name_of(kParamTypeNames, type); }

std::string param_text(const json& value) {
  if (value.is_boolean()) return value.get<bool>() ? "on" : "off";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    std::ostringstream out;
    out << value.get<double>();
    return out.str();
  }
  if (value.is_array()) {
    std::string text;
    for (const json& item : value) {
      if (!text.empty()) text += ',';
      text += param_text(item);
    }
    return text;
  }
  return value.dump();
}

json parse_param(ParamType type, std::string_view text, std::string_view shown) {
  const auto integer = [&](std::string_view item) -> json {
    const char* const last = item.data() + item.size();
    long long value = 0;
    const auto [end, error] = std::from_chars(item.data(), last, value);
    if (error == std::errc() && end == last) return value;
    std::uint64_t large = 0;  // a seed above 2^63 - 1
    if (const auto [large_end, large_error] = std::from_chars(item.data(), last, large);
        large_error == std::errc() && large_end == last)
      return large;
    throw ArgumentError(std::string(shown) + ": '" + std::string(item) + "' is not an integer");
  };
  switch (type) {
    case ParamType::integer:
      return integer(text);
    case ParamType::number: {
      const std::string copy(text);
      std::size_t end = 0;
      double value = 0;
      try {
        value = std::stod(copy, &end);
      } catch (const std::exception&) {
        end = 0;
      }
      if (end == 0 || end != copy.size()) throw ArgumentError(std::string(shown) + ": '" + copy + "' is not a number");
      return value;
    }
    case ParamType::flag:
      if (text == "true" || text == "on" || text == "1") return true;
      if (text == "false" || text == "off" || text == "0") return false;
      throw ArgumentError(std::string(shown) + ": '" + std::string(text) + "' is not on or off");
    case ParamType::integers: {
      json values = json::array();
      while (true) {
        const std::size_t comma = text.find(',');
        values.push_back(integer(text.substr(0, comma)));
        if (comma == std::string_view::npos) return values;
        text.remove_prefix(comma + 1);
      }
    }
    case ParamType::text:
      break;
  }
  return std::string(text);
}

template <typename Params>
std::string TrainingParam<Params>::default_text() const {
  return rule.empty() ? param_text(get(Params{})) : rule;
}
template <typename Params>
json TrainingParam<Params>::read(const json& value, const ParamNaming& naming) const {
  json typed = value;
  if (!has_type(type, value)) {
    if (!value.is_primitive() || value.is_null())
      throw ArgumentError(naming(name) + ": expected " + (type == ParamType::integer ? "an " : "a ") + to_string(type) +
                          ", got " + value.dump());
    typed = parse_param(type, value.is_string() ? value.get<std::string>() : value.dump(), naming(name));
  }
  if (!choices.empty() && std::ranges::find(choices, typed.get<std::string>()) == choices.end()) {
    throw ArgumentError(naming(name) + ": expected one of " + join(choices, ", ") + ", got '" + typed.get<std::string>() +
                        "'");
  }
  if (check)
    if (const std::string reason = check(typed); !reason.empty()) throw ArgumentError(naming(name) + ": " + reason);
  return typed;
}

template struct TrainingParam<MoleculeTrainingParams>;
template struct TrainingParam<NodeTrainingParams>;
template struct TrainingParam<LinkTrainingParams>;

std::string ParamNaming::operator()(std::string_view name) const {
  std::string written(name);
  std::ranges::replace(written, '-', separator);
  return prefix + written + suffix;
}

std::vector<std::string> training_option_names(std::string_view task, bool tunable_only) {
  return with_table(task, [&](const auto& table) { return option_names(table, tunable_only); });
}

std::vector<std::string> tasks_reading(std::string_view name) {
  const std::string bare(name.starts_with("no-") ? name.substr(3) : name);
  std::vector<std::string> tasks;
  for (const char* task : {"molecule", "node", "link"}) {
    const std::vector<std::string> names = training_option_names(task);
    if (std::ranges::find(names, std::string(name)) != names.end() || std::ranges::find(names, bare) != names.end())
      tasks.emplace_back(task);
  }
  return tasks;
}

json read_training_options(std::string_view task, const json& options, const ParamNaming& naming) {
  return with_table(task, [&](const auto& table) { return read_options(table, options, naming); });
}

std::string param_named(const std::vector<std::string>& names, std::string_view written, const ParamNaming& naming) {
  for (const std::string& name : names)
    if (naming(name) == written) return name;
  return "";
}

// The options, one line each where they fit: name, type, help, [rule,] [check,] then what it sets;
// bind gives an option of both tasks its name, type, check and common help from shared_params().
const std::vector<TrainingParam<MoleculeTrainingParams>>& molecule_params() {
  using P = MoleculeTrainingParams;
  using T = ParamType;
  const SharedParams& s = shared_params();
  static const std::vector<TrainingParam<P>> table = {
      bind<P>(s.split, {.help = "random, scaffold (Bemis-Murcko groups, largest to train), or a folder with train.txt, val.txt, test.txt (0-based data-row indices: header, comments and blank lines not counted; rows skipped by --skip-invalid are reported and left out)", .keyword = false,
       .set = [](P& p, const json& v) { p.split = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.split; }}),
      {.name = "split-sizes", .type = T::text, .help = "Train, validation and test fractions for random and scaffold splits", .keyword = false,
       .set = [](P& p, const json& v) { p.split_sizes = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.split_sizes; }},
      bind<P>(s.epochs, {.rule = std::to_string(default_training_budget(0).epochs) + ", fewer above 10,000 training molecules", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.epochs = v; p.plan.budget_epochs = false; }}),
      bind<P>(s.layers, {.help = "Attention layers before the readout", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.layers = v; }, .get = [](const P& p) -> json { return p.plan.config.network.layers; }}),
      bind<P>(s.heads, {.tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.heads = v; }, .get = [](const P& p) -> json { return p.plan.config.network.heads; }}),
      bind<P>(s.hidden, {.tunable = true,
       .set = [](P& p, const json& v) { p.width.hidden = v; }, .get = [](const P& p) -> json { return p.plan.config.network.hidden; }}),
      bind<P>(s.head_dim, {.tunable = true,
       .set = [](P& p, const json& v) { p.width.head_dim = v; }, .get = [](const P& p) -> json { return p.plan.config.network.hidden / p.plan.config.network.heads; }}),
      bind<P>(s.score, {.tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.score = parse_score_function(v.get<std::string>()); }, .get = [](const P& p) -> json { return to_string(p.plan.config.network.score); }}),
      bind<P>(s.dropout, {.help = "Dropout on node representations and in the head", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.dropout = v; }, .get = [](const P& p) -> json { return p.plan.config.network.dropout; }}),
      bind<P>(s.attention_dropout, {.tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.attention_dropout = v; }, .get = [](const P& p) -> json { return p.plan.config.network.attention_dropout; }}),
      bind<P>(s.lr, {.help = "Learning rate, AdamW's peak", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.learning_rate = v; }, .get = [](const P& p) -> json { return p.plan.training.learning_rate; }}),
      bind<P>(s.weight_decay, {.help = "Weight decay, AdamW's decoupled decay", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.weight_decay = v; }, .get = [](const P& p) -> json { return p.plan.training.weight_decay; }}),
      bind<P>(s.batch_size, {.help = "Molecules a step", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.batch_size = v; }, .get = [](const P& p) -> json { return p.plan.training.batch_size; }}),
      bind<P>(s.patience, {.help = "Stop after this many epochs without improvement of the validation metric", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.patience = v; }, .get = [](const P& p) -> json { return p.plan.training.patience; }}),
      bind<P>(s.seed, {       .set = [](P& p, const json& v) { p.plan.training.seed = v; }, .get = [](const P& p) -> json { return p.plan.training.seed; }}),
      {.name = "task-type", .type = T::text, .help = "What the targets are",
       .set = [](P& p, const json& v) { p.plan.config.task_type = parse_task_type(v.get<std::string>()); }, .get = [](const P& p) -> json { return to_string(p.plan.config.task_type); }, .choices = names_in(kTaskTypeNames)},
      {.name = "readout", .type = T::text, .help = "How node representations are pooled into one per molecule", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.readout = parse_readout(v.get<std::string>()); }, .get = [](const P& p) -> json { return to_string(p.plan.config.network.readout); }, .choices = names_in(kReadoutNames)},
      {.name = "descriptors", .type = T::flag, .help = "Join RDKit's whole-molecule descriptors (logP, TPSA, ring counts...) to the readout, each standardized by its mean and standard deviation over the training molecules", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.featurizer.descriptors = v.get<bool>() ? available_descriptors() : std::vector<std::string>{}; }, .get = [](const P& p) -> json { return !p.plan.config.featurizer.descriptors.empty(); }},
      {.name = "atom-crippen", .type = T::flag, .help = "Give each atom its Wildman-Crippen logP and molar-refractivity contributions as features", .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.featurizer.crippen_contributions = v; }, .get = [](const P& p) -> json { return p.plan.config.featurizer.crippen_contributions; }},
      {.name = "ensemble", .type = T::integer, .help = "Networks trained with different seeds whose predictions are averaged", .rule = std::to_string(default_training_budget(0).ensemble), .check = at_least(1), .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.ensemble = v; p.plan.budget_ensemble = false; }},
      {.name = "uncertainty", .type = T::text, .help = "A spread for every prediction, calibrated on the validation part (regression): none; ensemble, the members' standard deviation (needs --ensemble 2 or more); mve, networks that also predict a variance, trained by the Gaussian likelihood (each molecule's weighted by its standard deviation); evidential, networks that predict a prior on the mean and variance (deep evidential regression); or dropout, the spread of 10 predictions with the networks' dropout on (Monte-Carlo dropout; eleven times the prediction time). predict then writes <task>_std, and intervals with --coverage", .rule = "mve for regression with 2 labelled validation molecules a task, else none",
       .set = [](P& p, const json& v) { p.plan.config.spread = value_named(kSpreadMethodNames, v.get<std::string>(), "uncertainty"); p.plan.default_spread = false; }, .choices = names_in(kSpreadMethodNames)},
      {.name = "spread-fit", .type = T::text, .help = "What calibrating the spread on the validation part (or the --calibration file) minimizes: crps, the continuous ranked probability score, under which a few large errors move the standard deviations less (a Gaussian interval of any level holds close to its share); or nll, the Gaussian negative log-likelihood (z-scaling: the standard deviations match the errors' root mean square)",
       .set = [](P& p, const json& v) { p.plan.config.spread_fit = value_named(kSpreadFitNames, v.get<std::string>(), "spread-fit"); }, .get = [](const P& p) -> json { return name_of(kSpreadFitNames, p.plan.config.spread_fit); }, .choices = names_in(kSpreadFitNames)},
      {.name = "head-hidden", .type = T::integer, .help = "Width of the prediction head's hidden layer", .check = at_least(1), .tunable = true,
       .set = [](P& p, const json& v) { p.plan.config.network.head_hidden = v; }, .get = [](const P& p) -> json { return p.plan.config.network.head_hidden; }},
      {.name = "warmup-epochs", .type = T::number, .help = "Epochs of linear learning-rate warm-up from lr/10", .check = kNonNegative, .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.warmup_epochs = v; }, .get = [](const P& p) -> json { return p.plan.training.warmup_epochs; }},
      {.name = "final-lr-ratio", .type = T::number, .help = "Cosine decay ends at lr times this", .check = between(0, 1), .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.final_lr_ratio = v; }, .get = [](const P& p) -> json { return p.plan.training.final_lr_ratio; }},
      {.name = "clip-norm", .type = T::number, .help = "Clip the global gradient norm to this (0: off)", .check = kNonNegative, .tunable = true,
       .set = [](P& p, const json& v) { p.plan.training.clip_norm = v; }, .get = [](const P& p) -> json { return p.plan.training.clip_norm; }},
      {.name = "metric", .type = T::text, .help = "Early-stopping metric", .rule = "rmse for regression, roc_auc for classification",
       .set = [](P& p, const json& v) { p.plan.training.metric = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.plan.training.metric; }, .choices = {"rmse", "mae", "r2", "roc_auc", "pr_auc", "accuracy"}},
  };
  return table;
}

const std::vector<TrainingParam<NodeTrainingParams>>& node_params() {
  using P = NodeTrainingParams;
  using T = ParamType;
  const SharedParams& s = shared_params();
  static const std::vector<TrainingParam<P>> table = {
      bind<P>(s.split, {.help = "per-class:K[,VAL,TEST]: K labeled nodes of each class to train on, then VAL and TEST more at random (default 500 and 1000); stratified:TRAIN,VAL,TEST: these fractions of each class's labeled nodes; or a folder whose train.txt, val.txt and test.txt list node ids as the edge list writes them", .keyword = false,
       .set = [](P& p, const json& v) { p.split = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.split; }}),
      encoder_row<P>(s.epochs, {.tunable = true}),
      encoder_row<P>(s.layers, {.help = "Attention layers, the output layer included", .tunable = true}),
      encoder_row<P>(s.heads, {.tunable = true}),
      encoder_row<P>(s.hidden, {.tunable = true}),
      encoder_row<P>(s.head_dim, {.tunable = true}),
      encoder_row<P>(s.score, {.tunable = true}),
      bind<P>(s.dropout, {.help = "Dropout on the input of every attention layer", .rule = "0.1 with structural features, else 0.6 for at most 25 training labels a class (the GAT recipe), 0.5 above", .tunable = true,
       .set = [](P& p, const json& v) { p.regularization.dropout = optional_of<double>(v); }, .get = [](const P& p) { return json_of(p.regularization.dropout); }}),
      bind<P>(s.attention_dropout, {.rule = "0.1 with structural features, else 0.6 for at most 25 training labels a class, 0.1 above", .tunable = true,
       .set = [](P& p, const json& v) { p.regularization.attention_dropout = optional_of<double>(v); }, .get = [](const P& p) { return json_of(p.regularization.attention_dropout); }}),
      encoder_row<P>(s.lr, {.help = "Learning rate, Adam's", .tunable = true}),
      bind<P>(s.weight_decay, {.help = "Weight decay, an L2 term added to the gradient, as GAT trains", .rule = node_weight_decay_rule(), .tunable = true,
       .set = [](P& p, const json& v) { p.regularization.weight_decay = optional_of<double>(v); }, .get = [](const P& p) { return json_of(p.regularization.weight_decay); }}),
      bind<P>(s.batch_size, {.help = "Seed nodes a step of sampled mini-batches, which this turns on (see fanout)", .rule = "full batch while it fits in a quarter of the memory, else " + std::to_string(SamplingOptions{}.batch_size), 
       .set = [](P& p, const json& v) { p.batching.batch_size = optional_of<Index>(v); }, .get = [](const P& p) { return json_of(p.batching.batch_size); }}),
      encoder_row<P>(s.patience, {.help = "Stop after this many epochs without improvement of neither validation accuracy nor loss", .tunable = true}),
      encoder_row<P>(s.seed, {}),
      {.name = "output-heads", .type = T::integer, .help = "Heads of the output layer, averaged", .check = at_least(1), .tunable = true,
       .set = [](P& p, const json& v) { p.network.output_heads = v; }, .get = [](const P& p) -> json { return p.network.output_heads; }},
      encoder_row<P>(s.output_score, {.rule = "the score", .tunable = true}),
      {.name = "value-dropout", .type = T::number, .help = "Dropout on the projected values that every attention layer aggregates (the scores see them whole), as the GAT reference code trains", .rule = "the dropout rate", .check = between(0, 0.95), .tunable = true,
       .set = [](P& p, const json& v) { p.regularization.value_dropout = optional_of<double>(v); }, .get = [](const P& p) { return json_of(p.regularization.value_dropout); }},
      {.name = "fanout", .type = T::integers, .help = "Train on sampled mini-batches: the in-neighbours drawn for each node, one number per layer, the seeds' first (-1: all)", .rule = "15, then 10 for every further layer", .check = kFanouts,
       .set = [](P& p, const json& v) { p.batching.fanouts = v.get<std::vector<Index>>(); }, .get = [](const P& p) -> json { return p.batching.fanouts; }},
      {.name = "residual", .type = T::flag, .help = "Residual connections around hidden layers 2 and later (needs layers 3 or more)", .tunable = true,
       .set = [](P& p, const json& v) { p.network.residual = v; }, .get = [](const P& p) -> json { return p.network.residual; }},
      {.name = "layer-norm", .type = T::flag, .help = "Layer normalization after every hidden layer", .tunable = true,
       .set = [](P& p, const json& v) { p.network.layer_norm = v; }, .get = [](const P& p) -> json { return p.network.layer_norm; }},
  };
  return table;
}

const std::vector<TrainingParam<LinkTrainingParams>>& link_params() {
  using P = LinkTrainingParams;
  using T = ParamType;
  const SharedParams& s = shared_params();
  static const std::vector<TrainingParam<P>> table = {
      bind<P>(s.split, {.help = "random, or a folder whose train.txt, val.txt and test.txt list links (two node ids a line, as the edge list writes them), and val_negatives.txt and test_negatives.txt the non-links scored against them (drawn from the seed when absent)", .keyword = false,
       .set = [](P& p, const json& v) { p.split = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.split; }}),
      {.name = "split-sizes", .type = T::text, .help = "Train, validation and test fractions of the links for a random split", .keyword = false,
       .set = [](P& p, const json& v) { p.split_sizes = v.get<std::string>(); }, .get = [](const P& p) -> json { return p.split_sizes; }},
      encoder_row<P>(s.epochs, {.tunable = true}),
      bind<P>(s.layers, {.help = "Attention layers, the embedding layer included", .rule = "1 for a graph read with given features, without identity features, else 2", .tunable = true,
       .set = [](P& p, const json& v) { p.layers = optional_of<Index>(v); }, .get = [](const P& p) { return json_of(p.layers); }}),
      encoder_row<P>(s.heads, {.tunable = true}),
      encoder_row<P>(s.hidden, {.tunable = true}),
      encoder_row<P>(s.head_dim, {.tunable = true}),
      encoder_row<P>(s.score, {.tunable = true}),
      bind<P>(s.dropout, {.help = "Dropout on the input of every attention layer and on its values", .rule = "0.5 with one layer on given features, else 0", .tunable = true,
       .set = [](P& p, const json& v) { p.dropout = optional_of<double>(v); }, .get = [](const P& p) { return json_of(p.dropout); }}),
      bind<P>(s.attention_dropout, {.tunable = true,
       .set = [](P& p, const json& v) { p.network.attention_dropout = v; }, .get = [](const P& p) -> json { return p.network.attention_dropout; }}),
      encoder_row<P>(s.lr, {.help = "Learning rate, Adam's", .tunable = true}),
      bind<P>(s.weight_decay, {.help = "Weight decay, an L2 term added to the gradient", .tunable = true,
       .set = [](P& p, const json& v) { p.training.weight_decay = v; }, .get = [](const P& p) -> json { return p.training.weight_decay; }}),
      encoder_row<P>(s.patience, {.help = "Stop after this many epochs without a better validation figure (the metric)", .tunable = true}),
      encoder_row<P>(s.seed, {}),
      {.name = "embedding-dim", .type = T::integer, .help = "Width of a node's embedding, the encoder's output, from which the scorer scores pairs", .check = at_least(1), .tunable = true,
       .set = [](P& p, const json& v) { p.network.classes = v; }, .get = [](const P& p) -> json { return p.network.classes; }},
      encoder_row<P>(s.output_score, {.help = "Attention score function of the output layer, which gives the embeddings", .rule = "scaled_dot with identity features, else the score", .tunable = true}),
      {.name = "scorer", .type = T::text, .help = "How a pair's embeddings become the logit of a link: dot, their dot product; mlp, an MLP (one hidden layer as wide as an embedding, ReLU) on their element-wise product; dot_mlp, the two summed", .rule = "dot with identity features, else mlp", .tunable = true,
       .set = [](P& p, const json& v) { p.scorer = value_named(kPairScorerNames, v.get<std::string>(), "scorer"); }, .get = [](const P& p) -> json { return p.scorer ? json(std::string(name_of(kPairScorerNames, *p.scorer))) : json(); }, .choices = names_in(kPairScorerNames)},
      {.name = "non-links", .type = T::text, .help = "How training draws its non-links, as many as the training links each epoch: uniform, pairs of nodes drawn uniformly; degree, nodes drawn in proportion to their links (harder non-links)", .tunable = true,
       .set = [](P& p, const json& v) { p.training.non_links = value_named(kNonLinkSamplingNames, v.get<std::string>(), "non-links"); }, .get = [](const P& p) -> json { return std::string(name_of(kNonLinkSamplingNames, p.training.non_links)); }, .choices = names_in(kNonLinkSamplingNames)},
      {.name = "metric", .type = T::text, .help = "The validation figure that chooses the epoch kept, and that tune scores held-out links by: roc_auc, average_precision, hits@50 (at least 50 validation non-links) or mrr", .rule = "hits@50 with identity features and at least 50 validation non-links, else roc_auc",
       .set = [](P& p, const json& v) { p.training.metric = value_named(kLinkMetricNames, v.get<std::string>(), "metric"); }, .get = [](const P& p) -> json { return p.training.metric ? json(std::string(name_of(kLinkMetricNames, *p.training.metric))) : json(); }, .choices = names_in(kLinkMetricNames)},
      bind<P>(s.batch_size, {.help = "Training links a step of sampled mini-batches, each with a non-link: training on a graph store (--graph)",
       .set = [](P& p, const json& v) { p.sampling.batch_size = v; }, .get = [](const P& p) -> json { return p.sampling.batch_size; }}),
      {.name = "fanout", .type = T::integers, .help = "The in-neighbours sampled for each node of a mini-batch, one number per layer, the pairs' nodes first (-1: all): training on a graph store (--graph)", .rule = "15, then 10 for every further layer", .check = kFanouts,
       .set = [](P& p, const json& v) { p.sampling.fanouts = v.get<std::vector<Index>>(); }, .get = [](const P& p) -> json { return p.sampling.fanouts; }},
      {.name = "links-per-epoch", .type = T::integer, .help = "Training links drawn an epoch (uniformly, with replacement), at most all of them: training on a graph store (--graph)", .check = at_least(1),
       .set = [](P& p, const json& v) { p.sampling.links_per_epoch = v; }, .get = [](const P& p) -> json { return p.sampling.links_per_epoch; }},
      {.name = "identity-features", .type = T::flag, .help = "Also give the encoder each node's one-hot id, so that every node learns a vector of its own (as PyTorch Geometric's link example gives a graph without features); the model then scores the nodes of its training graph only", .rule = "on for a graph without given features (structural ones) of at most " + std::to_string(kMostIdentityFeatureNodes) + " nodes, else off", .tunable = true,
       .set = [](P& p, const json& v) { p.identity_features = optional_of<bool>(v); }, .get = [](const P& p) { return json_of(p.identity_features); }},
  };
  return table;
}

MoleculeTrainingParams molecule_training_params(const json& given, const ParamNaming& naming) {
  MoleculeTrainingParams params;
  set_given(molecule_params(), params, given, naming);
  MoleculePredictorOptions& network = params.plan.config.network;
  const SharedParams& s = shared_params();
  const std::string names[3] = {naming(s.hidden.name), naming(s.heads.name), naming(s.head_dim.name)};
  if (const std::optional<Index> width = given_width(params.width, network.heads, width_names(names))) {
    network.hidden = *width;
  } else if (network.hidden % network.heads != 0) {
    throw ArgumentError(names[1] + " " + std::to_string(network.heads) + " does not divide " + naming.task +
                        "'s default " + names[0] + " " + std::to_string(network.hidden) + "; give " + names[0] +
                        " or " + names[2] + " too");
  }
  return params;
}

NodeTrainingParams node_training_params(const json& given, const ParamNaming& naming) {
  NodeTrainingParams params;
  set_given(node_params(), params, given, naming);
  const SharedParams& s = shared_params();
  const std::string names[3] = {naming(s.hidden.name), naming(s.heads.name), naming(s.head_dim.name)};
  if (const std::optional<Index> width = given_width(params.width, params.network.heads, width_names(names)))
    params.network.head_dim = *width / params.network.heads;
  return params;
}

namespace {

// Why default_identity_features decides as it does for `data`.
std::string identity_reason(const NodeGraph& data) {
  if (data.input.features.format != FeatureFormat::structural) return "a graph with given features";
  if (default_identity_features(data)) return "a graph without given features";
  return "a graph without given features, of over " + std::to_string(kMostIdentityFeatureNodes) + " nodes";
}

// The plan of `params`, identity features by `identity_default` where not given, for `reason`.
// `given_features`: a graph read with features of its own, on which one layer with heavy dropout
// generalizes best (defaults.md); graph stores keep two layers.
LinkModelPlan link_plan(const LinkTrainingParams& params, bool identity_default, bool given_features,
                        const std::string& reason) {
  LinkModelPlan plan{.config = {.network = params.network}};
  LinkModelConfig& config = plan.config;
  config.identity_features = params.identity_features.value_or(identity_default);
  const bool on_features_alone = given_features && !config.identity_features;
  config.network.layers = params.layers.value_or(default_link_layers(on_features_alone));
  const bool one_layer_on_features = on_features_alone && config.network.layers == 1;
  config.network.dropout = config.network.value_dropout =
      params.dropout.value_or(default_link_dropout(one_layer_on_features));
  config.scorer = params.scorer.value_or(default_pair_scorer(config.identity_features));
  if (!config.network.output_score) config.network.output_score = default_link_output_score(config.identity_features);
  const std::string because = config.identity_features ? " (with identity features)"
                              : on_features_alone      ? " (given features, without identity features)"
                                                       : " (without identity features)";
  std::vector<std::string> chosen;
  if (!params.identity_features)
    chosen.push_back(std::string("identity features ") + (config.identity_features ? "on" : "off") + " (" + reason + ")");
  if (!params.layers) chosen.push_back("layers " + std::to_string(config.network.layers) + because);
  if (!params.dropout)
    chosen.push_back("dropout " + param_text(config.network.dropout) +
                     (one_layer_on_features ? " (one layer on given features)" : because));
  if (!params.scorer)
    chosen.push_back(std::string("scorer ") + std::string(name_of(kPairScorerNames, config.scorer)) + because);
  if (!params.network.output_score && config.network.output_score)
    chosen.push_back("output score " + to_string(*config.network.output_score) + because);
  if (!params.training.metric)
    chosen.push_back(config.identity_features ? "metric hits@50 (with identity features, given 50 validation non-links)"
                                              : "metric roc_auc" + because);
  plan.defaults = join(chosen, ", ");
  return plan;
}

}  // namespace

LinkModelPlan LinkTrainingParams::model(const NodeGraph& data) const {
  if (sampling != LinkSamplingOptions{})
    throw ArgumentError("batch-size, fanout and links-per-epoch apply to link training on a graph store, which "
                        "samples mini-batches; a graph read from files trains full batch");
  return link_plan(*this, default_identity_features(data), data.input.features.format != FeatureFormat::structural,
                   identity_reason(data));
}

LinkModelPlan LinkTrainingParams::model(const GraphStore&) const {
  if (identity_features.value_or(false))
    throw ArgumentError("identity features: sampled training on a graph store reads the stored features alone");
  return link_plan(*this, false, false, "a graph store, trained on sampled mini-batches");
}

LinkTrainingParams link_training_params(const json& given, const ParamNaming& naming) {
  LinkTrainingParams params;
  set_given(link_params(), params, given, naming);
  const SharedParams& s = shared_params();
  const std::string names[3] = {naming(s.hidden.name), naming(s.heads.name), naming(s.head_dim.name)};
  if (const std::optional<Index> width = given_width(params.width, params.network.heads, width_names(names)))
    params.network.head_dim = *width / params.network.heads;
  return params;
}

}  // namespace edgewise

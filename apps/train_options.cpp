#include "train_options.hpp"

#include <algorithm>
#include <cctype>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/tasks/params.hpp"

namespace edgewise::cli {
namespace {

ParamNaming naming(const std::string& task) { return {.task = "--task " + task}; }

template <typename Params>
const TrainingParam<Params>* find_param(const std::vector<TrainingParam<Params>>& table, const std::string& name) {
  const auto found = std::ranges::find(table, name, &TrainingParam<Params>::name);
  return found == table.end() ? nullptr : &*found;
}

std::string upper(std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// Registers one option of the tables in `group`, its value going to given[name]; `defaults` shows
// the defaults in its help. A flag on by default also takes --no-<name>.
template <typename Param>
void add_param(CLI::Option_group& group, const Param& param, const std::string& help, const std::string& defaults,
               nlohmann::json& given) {
  const std::string& name = param.name;
  if (param.type == ParamType::flag) {
    const bool on = param.default_text() == "on";
    group.add_flag_function((on ? "--" + name + ",!--no-" : "--") + name,
                            [&given, name](std::int64_t count) { given[name] = count > 0; }, help + defaults);
    return;
  }
  // A list takes its items comma-separated or as separate arguments: --fanout 10,5 or --fanout 10 5.
  CLI::Option* option = group.add_option_function<std::vector<std::string>>(
      "--" + name, [&given, name, type = param.type](const std::vector<std::string>& items) {
        std::string text;
        for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
        given[name] = parse_param(type, text, "--" + name);
      },
      help + defaults);
  if (param.type == ParamType::integers) {
    option->delimiter(',');
  } else {
    option->expected(1);
  }
  option->type_name(upper(to_string(param.type)));
  if (!param.choices.empty()) option->check(CLI::IsMember(param.choices));
}

}  // namespace

TaskOptionGroups add_train_options(CLI::App& command, SharedTrainArgs& shared, MoleculeTrainArgs& molecules,
                                   NodeTrainArgs& nodes) {
  CLI::Option_group* both = command.add_option_group("Training, both tasks");
  CLI::Option_group* graph_group = add_molecule_train_options(command, molecules);
  CLI::Option_group* node_group = add_node_train_options(command, nodes);
  for (const TrainingParam<MoleculeTrainingParams>& graph : molecule_params()) {
    const TrainingParam<NodeTrainingParams>* node = find_param(node_params(), graph.name);
    if (node == nullptr) {
      add_param(*graph_group, graph, graph.help,
                " (default: " + graph.default_text() + ")", shared.given);
      continue;
    }
    const std::string help = graph.help == node->help ? graph.help : "molecule: " + graph.help + "; node: " + node->help;
    add_param(*both, graph, help, " (--task molecule: " + graph.default_text() + "; --task node: " + node->default_text() + ")",
              shared.given);
  }
  for (const TrainingParam<NodeTrainingParams>& node : node_params())
    if (find_param(molecule_params(), node.name) == nullptr)
      add_param(*node_group, node, node.help, " (default: " + node.default_text() + ")",
                shared.given);
  return {graph_group, node_group};
}

void reject_other_task_options(const TaskOptionGroups& groups, const std::string& task) {
  if (task == "molecule") {
    reject_given(groups.nodes->get_options(), "applies to --task node only");
  } else {
    reject_given(groups.molecules->get_options(), "applies to --task molecule only");
  }
}

namespace {

// The options both tasks read the same way.
template <typename TaskArgs>
void copy_outputs(const SharedTrainArgs& shared, TaskArgs& args) {
  args.force = shared.force;
  args.out = shared.out;
  args.plot = shared.plot;
  args.save_split = shared.save_split;
  args.checkpoints = shared.checkpoints;
}

}  // namespace

void apply_shared_options(const SharedTrainArgs& shared, MoleculeTrainArgs& args) {
  copy_outputs(shared, args);
  args.params = molecule_training_params(shared.given, naming("molecule"));
}

void apply_shared_options(const SharedTrainArgs& shared, NodeTrainArgs& args) {
  copy_outputs(shared, args);
  args.params = node_training_params(shared.given, naming("node"));
}

}  // namespace edgewise::cli

#include "train_options.hpp"

#include <algorithm>
#include <cctype>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
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
// the defaults in its help, and `choices`, where given, are the values it takes (those of every task
// that reads it). A flag that may be on by default (on, or by a rule) also takes --no-<name>.
template <typename Param>
void add_param(CLI::Option_group& group, const Param& param, const std::string& help, const std::string& defaults,
               const std::vector<std::string>& choices, nlohmann::json& given) {
  const std::string& name = param.name;
  if (param.type == ParamType::flag) {
    const bool may_be_on = param.default_text() != "off";
    group.add_flag_function((may_be_on ? "--" + name + ",!--no-" : "--") + name,
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
  if (!choices.empty()) option->check(CLI::IsMember(choices));
}

}  // namespace

namespace {

// An option of several tasks' tables: its row in each, by task.
struct SharedOption {
  const TrainingParam<MoleculeTrainingParams>* molecule = nullptr;
  const TrainingParam<NodeTrainingParams>* node = nullptr;
  const TrainingParam<LinkTrainingParams>* link = nullptr;
};

// The values any task takes, in the order the tables list them; none where a task takes any.
std::vector<std::string> shared_choices(const SharedOption& option) {
  std::vector<std::string> choices;
  bool open = false;
  const auto add = [&](const auto* row) {
    if (row == nullptr) return;
    open = open || row->choices.empty();
    for (const std::string& choice : row->choices)
      if (std::ranges::find(choices, choice) == choices.end()) choices.push_back(choice);
  };
  add(option.molecule);
  add(option.node);
  add(option.link);
  return open ? std::vector<std::string>{} : choices;
}

// Each row's help and default, by task; one help where every task gives the same.
std::pair<std::string, std::string> shared_help(const SharedOption& option) {
  std::vector<std::pair<std::string, std::string>> helps, defaults;
  const auto add = [&](const char* task, const auto* row) {
    if (row == nullptr) return;
    helps.emplace_back(task, row->help);
    defaults.emplace_back(task, row->default_text());
  };
  add("molecule", option.molecule);
  add("node", option.node);
  add("link", option.link);
  std::string help, by_task;
  const bool same = std::ranges::all_of(helps, [&](const auto& entry) { return entry.second == helps[0].second; });
  for (std::size_t i = 0; i < helps.size(); ++i) {
    if (!same) help += (i > 0 ? "; " : "") + helps[i].first + ": " + helps[i].second;
    by_task += std::string(i > 0 ? "; " : "") + "--task " + defaults[i].first + ": " + defaults[i].second;
  }
  return {same ? helps[0].second : help, " (" + by_task + ")"};
}

template <typename Params>
void add_own_options(CLI::Option_group& group, const std::vector<TrainingParam<Params>>& table, nlohmann::json& given) {
  for (const TrainingParam<Params>& param : table)
    if (tasks_reading(param.name).size() == 1)
      add_param(group, param, param.help, " (default: " + param.default_text() + ")", param.choices, given);
}

}  // namespace

TaskOptionGroups add_train_options(CLI::App& command, SharedTrainArgs& shared, MoleculeTrainArgs& molecules,
                                   NodeTrainArgs& nodes) {
  CLI::Option_group* several = command.add_option_group("Training, several tasks");
  CLI::Option_group* molecule_group = add_molecule_train_options(command, molecules);
  CLI::Option_group* node_group = add_node_train_options(command, nodes);
  CLI::Option_group* link_group = command.add_option_group("Link prediction (--task link)");
  // In the order of the molecule table, then of the node table, then of the link table's own.
  std::vector<std::string> names;
  for (const char* task : {"molecule", "node", "link"})
    for (const std::string& name : training_option_names(task))
      if (tasks_reading(name).size() > 1 && std::ranges::find(names, name) == names.end()) names.push_back(name);
  for (const std::string& name : names) {
    const SharedOption option{find_param(molecule_params(), name), find_param(node_params(), name),
                              find_param(link_params(), name)};
    const auto [help, defaults] = shared_help(option);
    const std::vector<std::string> choices = shared_choices(option);
    if (option.molecule != nullptr) {
      add_param(*several, *option.molecule, help, defaults, choices, shared.given);
    } else {
      add_param(*several, *option.node, help, defaults, choices, shared.given);
    }
  }
  add_own_options(*molecule_group, molecule_params(), shared.given);
  add_own_options(*node_group, node_params(), shared.given);
  add_own_options(*link_group, link_params(), shared.given);
  return {several, molecule_group, node_group, link_group};
}

void reject_other_task_options(const TaskOptionGroups& groups, const std::string& task) {
  const std::vector<std::string> node_only = node_only_input_options();
  for (const CLI::Option_group* group : {groups.several, groups.molecules, groups.nodes, groups.links}) {
    for (const CLI::Option* option : group->get_options()) {
      if (option->count() == 0) continue;
      const std::string name = option->get_name();
      std::vector<std::string> readers = tasks_reading(name.substr(2));
      if (readers.empty()) {  // an input option: of molecules, or of graphs
        readers = {group == groups.molecules ? "molecule" : "node"};
        if (group == groups.nodes && std::ranges::find(node_only, name) == node_only.end()) readers.emplace_back("link");
      }
      if (std::ranges::find(readers, task) == readers.end())
        throw ArgumentError(name + " applies to --task " + join(readers, " and ") + " only");
    }
  }
}

namespace {

// The options every task reads the same way.
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

void apply_shared_options(const SharedTrainArgs& shared, const NodeTrainArgs& graph, LinkTrainArgs& args) {
  copy_outputs(shared, args);
  args.graph = graph;
  args.params = link_training_params(shared.given, naming("link"));
}

}  // namespace edgewise::cli

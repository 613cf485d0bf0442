#include "params.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "edgewise/core/error.hpp"
#include "edgewise/core/log.hpp"
#include "edgewise/tasks/common/model.hpp"
#include "support.hpp"

namespace edgewise::python {
namespace {

namespace py = pybind11;
using json = nlohmann::json;

// `value` as the option's type wants it; TypeError naming the option otherwise.
json keyword_value(ParamType type, const std::string& name, const py::handle& value) {
  try {
    switch (type) {
      case ParamType::flag:
        if (!py::isinstance<py::bool_>(value)) break;
        return value.cast<bool>();
      case ParamType::integer:
        if (py::isinstance<py::bool_>(value)) break;
        try {
          return value.cast<long long>();
        } catch (const py::cast_error&) {
          return value.cast<std::uint64_t>();  // a seed above 2^63 - 1
        }
      case ParamType::number:
        return value.cast<double>();
      case ParamType::text:
        return value.cast<std::string>();
      case ParamType::integers:
        return value.cast<std::vector<long long>>();
    }
  } catch (const py::cast_error&) {
  }
  throw py::type_error("option " + name + ": " + std::string(py::str(value.get_type())) +
                       " is not of the expected type (" + to_string(type) + ")");
}

template <typename Params>
json keywords(const py::dict& options, const std::vector<TrainingParam<Params>>& table) {
  const ParamNaming naming = python_naming("");
  std::vector<std::string> names;
  for (const TrainingParam<Params>& param : table)
    if (param.keyword) names.push_back(param.name);
  json given = json::object();
  for (const auto& [key, value] : options) {
    const std::string written = py::str(key);
    const std::string name = param_named(names, written, naming);
    if (name.empty()) {
      std::string list;
      for (const std::string& known : names) list += (list.empty() ? "" : ", ") + naming(known);
      throw py::type_error("unknown option '" + written + "'; the options are " + list);
    }
    if (value.is_none()) continue;  // the default
    const auto param = std::ranges::find(table, name, &TrainingParam<Params>::name);
    given[name] = keyword_value(param->type, written, value);
  }
  return given;
}

py::object to_python(const json& value) { return py::module_::import("json").attr("loads")(value.dump()); }

template <typename Params>
py::list describe(const std::vector<TrainingParam<Params>>& table) {
  const ParamNaming naming = python_naming("");
  py::list options;
  for (const TrainingParam<Params>& param : table) {
    py::dict option;
    option["name"] = naming(param.name);
    option["option"] = "--" + param.name;
    option["type"] = to_string(param.type);
    option["default"] = param.rule.empty() ? to_python(param.get(Params{})) : py::none();
    option["default_text"] = param.default_text();
    option["help"] = param.help;
    option["choices"] = param.choices;
    option["tunable"] = param.tunable;
    option["keyword"] = param.keyword;
    options.append(option);
  }
  return options;
}

}  // namespace

ParamNaming python_naming(const std::string& task) { return {.prefix = "", .separator = '_', .task = task}; }

json molecule_keywords(const py::dict& options) { return keywords(options, molecule_params()); }
json node_keywords(const py::dict& options) { return keywords(options, node_params()); }
json link_keywords(const py::dict& options) { return keywords(options, link_params()); }

json tuning_candidates(const std::string& task, const py::tuple& tuning, const json& given, const ParamNaming& naming) {
  const std::string grid = tuning[0].cast<std::string>();
  const json listed = grid.empty() ? tuning_preset(task, tuning[1].cast<std::string>())
                                   : grid_candidates(json::parse(grid), "grid");
  const std::vector<std::string> tunable = training_option_names(task, true);
  json candidates = json::array();
  for (const json& candidate : listed) {
    json named = json::object();
    for (const auto& [written, value] : candidate.items()) {
      // A preset's options are named as the table names them.
      const std::string name = grid.empty() ? written : param_named(tunable, written, naming);
      if (name.empty()) throw ArgumentError("grid: '" + written + "' is not an option that candidates vary");
      if (given.contains(name))
        throw ArgumentError("grid: " + written + " is given as a keyword and varied by the grid; give one of them");
      named[name] = value;
    }
    candidates.push_back(read_training_options(task, named, {.prefix = "grid: option '", .separator = '_', .suffix = "'"}));
  }
  return candidates;
}

std::string tuning_json(const TuningResult& result, const json& run, std::size_t folds, const ParamNaming& naming) {
  json out = result.record(run, static_cast<Index>(folds));
  for (json& candidate : out["candidates"]) {
    json named = json::object();
    for (const auto& [name, value] : candidate["options"].items()) named[naming(name)] = value;
    candidate["options"] = std::move(named);
  }
  out["best"] = result.best;
  out["options"] = out["candidates"][result.chosen]["options"];
  return out.dump();
}

FoldReport fold_logger(const json& candidates, std::size_t folds, const std::string& metric, const LogSettings& log) {
  return [count = candidates.size(), folds, metric, log](std::size_t c, std::size_t k, double value) {
    check_interrupt();
    char line[96];
    std::snprintf(line, sizeof line, "candidate %zu/%zu, fold %zu/%zu: %s %.4f", c + 1, count, k + 1, folds,
                  metric.c_str(), value);
    Logger(log).normal(line);
  };
}

void bind_params(py::module_& m) {
  m.def(
      "training_options",
      [](const std::string& task) {
        if (canonical_task_name(task) == "molecule") return describe(molecule_params());
        if (task == "node") return describe(node_params());
        if (task == "link") return describe(link_params());
        throw py::value_error("task: expected 'molecule' (or 'graph', the same), 'node' or 'link', got '" + task + "'");
      },
      py::arg("task"),
      "The training options of a task ('molecule', 'node' or 'link'): name, option, type, default (None where the "
      "data choose it), default_text, help, choices, tunable and keyword, one dict each.");
}

}  // namespace edgewise::python

// The training options of Python's train calls, walked from the parameter tables (tasks/params.hpp):
// keyword arguments turned into option values, and the tables themselves for edgewise's own docs.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "edgewise/core/interrupt.hpp"
#include "edgewise/tasks/params.hpp"
#include "edgewise/tasks/tuning.hpp"
#include "support.hpp"

namespace edgewise::python {

// How Python names options in messages: head_dim, "MoleculeModel.train's default hidden".
ParamNaming python_naming(const std::string& task);

// The keyword options of a train call as option values by name, each converted to its table type.
// TypeError for an option the table does not offer as a keyword, or a value of another type.
nlohmann::json molecule_keywords(const pybind11::dict& options);
nlohmann::json node_keywords(const pybind11::dict& options);
nlohmann::json link_keywords(const pybind11::dict& options);

// The candidates of Python's tune: `tuning` is (the grid as JSON text or "", a preset's name or "",
// the folds); each candidate's options by their Python names are read by the table of `task`
// (read_training_options). ValueError for an option candidates do not vary, one `given` as a keyword
// too, or a value the option refuses.
nlohmann::json tuning_candidates(const std::string& task, const pybind11::tuple& tuning, const nlohmann::json& given,
                                 const ParamNaming& naming);

// A tuning's result as JSON text, options by their Python names: the record options files keep
// (`run`: data, split, seed and metric), "best" and the chosen "options".
std::string tuning_json(const TuningResult& result, const nlohmann::json& run, std::size_t folds,
                        const ParamNaming& naming);

// Logs each fold's metric ("candidate 2/6, fold 1/5: rmse 0.6123") through `log`, after a check for
// Ctrl-C.
FoldReport fold_logger(const nlohmann::json& candidates, std::size_t folds, const std::string& metric,
                       const LogSettings& log);

// Runs a cross-validation, cross_validate(report) (tune_molecules, tune_nodes or tune_links), with
// the GIL released and Ctrl-C checked, `report` logging each fold's metric through `log`; returns
// tuning_json's text of its result, `run` naming the data, split, seed and metric.
template <typename CrossValidate>
std::string run_tuning(const nlohmann::json& candidates, std::size_t folds, const nlohmann::json& run,
                       const LogSettings& log, const ParamNaming& naming, CrossValidate&& cross_validate) {
  const FoldReport report = fold_logger(candidates, folds, run.at("metric").get<std::string>(), log);
  std::optional<TuningResult> result;
  {
    const InterruptCheck interruptible(check_interrupt);
    pybind11::gil_scoped_release release;
    result.emplace(cross_validate(report));
  }
  return tuning_json(*result, run, folds, naming);
}

// Registers edgewise._edgewise.training_options(task).
void bind_params(pybind11::module_& m);

}  // namespace edgewise::python

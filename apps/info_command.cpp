// `edgewise info MODEL`: what a model file holds: the kind of model, its architecture and
// featurizer, its targets or classes, and how it was trained (data, split, seed, epochs, metrics)
// where the file records it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/tasks/model.hpp"

namespace edgewise::cli {
namespace {

constexpr const char* kNotRecorded = "not recorded";

std::string metric_text(double value) {
  if (std::isnan(value)) return "undefined (NaN)";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

template <typename T>
std::string recorded(const std::optional<T>& value) {
  if (!value) return kNotRecorded;
  std::ostringstream text;
  text << *value;
  return text.str();
}

std::string epochs_text(const TrainingSummary& summary) {
  std::string text = summary.max_epochs ? "at most " + std::to_string(*summary.max_epochs) : kNotRecorded;
  for (std::size_t k = 0; k < summary.epochs_run.size(); ++k) {
    text += summary.epochs_run.size() > 1 ? "; member " + std::to_string(k + 1) + ":" : ";";
    text += " ran " + std::to_string(summary.epochs_run[k]);
    if (k < summary.best_epochs.size()) text += ", kept epoch " + std::to_string(summary.best_epochs[k]);
  }
  return text;
}

void print_training(std::ostream& out, const std::optional<TrainingSummary>& summary, const char* examples) {
  out << "training\n";
  if (!summary) {
    field(out, "summary", std::string(kNotRecorded) + " (saved by an earlier version)");
    out << "metrics\n";
    field(out, "all", kNotRecorded);
    return;
  }
  field(out, "data", recorded(summary->data));
  field(out, examples, recorded(summary->examples));
  field(out, "split", recorded(summary->split));
  field(out, "seed", recorded(summary->seed));
  field(out, "epochs", epochs_text(*summary));
  if (summary->defaults) field(out, "defaults", *summary->defaults);
  out << "metrics\n";
  if (summary->metrics.empty()) field(out, "all", kNotRecorded);
  for (const auto& [name, value] : summary->metrics) field(out, name, metric_text(value));
}

void run(const std::string& path) {
  std::ostringstream out;
  try {
    const AnyModel loaded = load_any_model(path);  // checks the configuration and the weights
    const Model& model = as_model(loaded);
    const ModelDescription description = model.describe();
    out << path << ": " << description.title << '\n';
    for (const auto& [name, value] : description.facts) field(out, name, value_text(value));
    for (const auto& [name, section] : description.sections) {
      out << name << '\n';
      fields(out, section);
    }
    print_training(out, model.training_summary(), description.examples.c_str());
  } catch (const nlohmann::json::exception& e) {
    throw ModelFormatError(path + ": invalid model configuration: " + e.what());
  }
  std::cout << out.str();
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("info", "Describe a model file: architecture, featurizer, training, metrics");
  command->add_option("model", *path, "Model file written by 'edgewise train'")->required()->check(CLI::ExistingFile);
  command->callback([path] { run(*path); });
}

}  // namespace edgewise::cli

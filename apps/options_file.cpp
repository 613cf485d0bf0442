#include "options_file.hpp"

#include <algorithm>
#include <fstream>

#include "cli_support.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/names.hpp"
#include "edgewise/tasks/common/model.hpp"
#include "edgewise/tasks/params.hpp"

namespace edgewise::cli {
namespace {

constexpr const char* kFormat = "edgewise options";
constexpr int kVersion = 1;

// The field's text; empty when it is absent or not a string.
std::string text_field(const nlohmann::json& file, const char* name) {
  const auto field = file.find(name);
  return field != file.end() && field->is_string() ? field->get<std::string>() : "";
}

// The option's value as a command line would give it.
std::string option_value(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

}  // namespace

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the " + what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not a JSON " + what + " (" + e.what() + ")");
  }
}

nlohmann::json read_options_file(const std::string& path, const std::string& task) {
  nlohmann::json file = read_json_file(path, "options file");
  if (!file.is_object() || text_field(file, "format") != kFormat)
    throw Error(path + ": not an edgewise options file (no \"format\": \"" + kFormat + "\")");
  if (!file.contains("version") || !file["version"].is_number_integer() || file["version"].get<int>() > kVersion)
    throw Error(path + ": options file version " + file.value("version", nlohmann::json()).dump() +
                " is not one this edgewise reads (up to " + std::to_string(kVersion) + ")");
  if (canonical_task_name(text_field(file, "task")) != task)
    throw Error(path + ": the options are for --task " + file.value("task", nlohmann::json()).dump() +
                ", not --task " + task);
  const nlohmann::json options = file.value("options", nlohmann::json());
  if (!options.is_object()) throw Error(path + ": \"options\" must be an object of option names and values");
  for (const auto& [name, value] : options.items())
    if (!value.is_primitive() || value.is_null())
      throw Error(path + ": option '" + name + "' must be a string, number or boolean, got " + value.dump());
  return options;
}

void write_options_file(const std::string& path, const std::string& task, const nlohmann::json& options,
                        const nlohmann::json& cross_validation, bool force) {
  const nlohmann::json file = {{"format", kFormat},
                               {"version", kVersion},
                               {"task", task},
                               {"options", options},
                               {"cross_validation", cross_validation}};
  write_file_atomically(path, file.dump(2) + '\n', overwrite_for(force));
}

nlohmann::json file_options(const CLI::App& command, const nlohmann::json& options, const std::string& source,
                            const std::string& task, bool tunable_only) {
  const std::vector<std::string> names = training_option_names(task, tunable_only);
  for (const auto& [name, value] : options.items()) {
    const std::string flag = name.starts_with("no-") ? name.substr(3) : name;
    if (std::ranges::find(names, name) != names.end() || std::ranges::find(names, flag) != names.end()) continue;
    const std::vector<std::string> readers = tasks_reading(name);
    if (!tunable_only && !readers.empty())
      throw ArgumentError(source + ": '" + name + "' applies to --task " + join(readers, " and ") + " only");
    const bool known = command.get_option_no_throw("--" + name) != nullptr;
    throw ArgumentError(source + ": '" + name + "' is not an option " + (known ? "this command takes from a file" : "of this command"));
  }
  return read_training_options(
      task, options, {.prefix = source + ": option '", .separator = '-', .task = "--task " + task, .suffix = "'"});
}

void add_options(nlohmann::json& given, const nlohmann::json& options) {
  for (const auto& [name, value] : options.items())
    if (!given.contains(name)) given[name] = value;
}

std::string options_text(const nlohmann::json& options) {
  std::string text;
  for (const auto& [name, value] : options.items()) {
    if (!text.empty()) text += ' ';
    text += "--" + name;
    if (value.is_boolean() && value.get<bool>()) continue;
    text += ' ' + option_value(value);
  }
  return text;
}

}  // namespace edgewise::cli

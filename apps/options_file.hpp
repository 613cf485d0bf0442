// Options files: the options `edgewise tune` chose, as JSON that `edgewise train --options FILE`
// reads, and tune's grids of candidates, read through the parameter tables (tasks/params.hpp).
//
//   {"format": "edgewise options", "version": 1, "task": "graph",
//    "options": {"hidden": 64, "readout": "mean", "descriptors": true},
//    "cross_validation": {...}}
//
// "options" maps long option names (without "--") to values; "cross_validation" records how they
// were chosen and is not read back.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgewise::cli {

// The JSON text of a file; `what` names it in errors ("cannot read the <what>", "not a JSON <what>").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// Reads the "options" object of an options file written for `task`. Throws ParseError naming the
// file for text that is not JSON, and Error for another format, a newer version, another task, or
// an option value that is not a string, number or boolean.
nlohmann::json read_options_file(const std::string& path, const std::string& task);

// Writes an options file atomically; an existing file is replaced only with `force`.
void write_options_file(const std::string& path, const std::string& task, const nlohmann::json& options,
                        const nlohmann::json& cross_validation, bool force);

// The training options of an options file or a grid `source` for --task `task`, each read by its
// row of the task's parameter table (edgewise::read_training_options), so that a file means what
// the same options mean on the command line and in Python; with `tunable_only`, those that tune's
// candidates may set. Throws ArgumentError naming `source` and the option for one that is not a
// training option of the task or a value the option refuses.
nlohmann::json file_options(const CLI::App& command, const nlohmann::json& options, const std::string& source,
                            const std::string& task, bool tunable_only = false);

// Sets `options` into `given` where the command line did not give them: it takes precedence.
void add_options(nlohmann::json& given, const nlohmann::json& options);

// "--hidden 64 --readout mean --descriptors": the options as a command line would give them.
std::string options_text(const nlohmann::json& options);

}  // namespace edgewise::cli

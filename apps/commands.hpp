// Subcommands of the `edgewise` tool. Each lives in its own file and registers itself on the root
// app with an add_<name>_command function declared here; main() calls every one of them.
// A subcommand does its work in a CLI11 callback and reports failures by throwing edgewise::Error.
#pragma once

#include <CLI/CLI.hpp>

namespace edgewise::cli {

// `edgewise bench attention|triad`: timings of one attention layer, and memory bandwidth.
void add_bench_command(CLI::App& app);

}  // namespace edgewise::cli

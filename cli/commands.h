// Registration of futexsim's subcommands: one file per command, each adding
// itself to the app and to the table run_selected() dispatches from.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>

namespace futexsim::cli {

// Bad input found after parsing (a value out of range for this machine, a
// flag that does not apply): reported as one line, exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Adds `sub` with the function that runs it once parsed.
void add_command(CLI::App* sub, std::function<int()> run);
int run_selected(CLI::App& app);

void register_demo(CLI::App& app);
void register_run(CLI::App& app);
void register_replay(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_sweep(CLI::App& app);
void register_report(CLI::App& app);

}  // namespace futexsim::cli

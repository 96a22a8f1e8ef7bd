// Registration of futexsim's subcommands: one file per command, each adding
// itself to the app and to the table run_selected() dispatches from.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>

namespace futexsim::cli {

// Bad input found after parsing (a value out of range for this machine, a
// flag that does not apply): reported as one line, exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// f(), with the std::invalid_argument of a parser or of a check in run/
// (run/run_checks.h) reported as a usage error.
template <class F>
auto usage_checked(F f) -> decltype(f())
{
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
}

// Standard output could not be written (a full disk, a closed descriptor):
// the result is lost, so this is an error too (one line, exit status 2).
struct output_error : usage_error {
    using usage_error::usage_error;
};

// A command stopped by SIGINT (or SIGTERM, SIGHUP, a closed progress
// stream) before it had anything to print but this line: exit 130 (or 128 +
// the signal).
struct interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Exit status of a command cut short by SIGINT (128 + SIGINT, as a shell
// reports it); what it had done is printed.
inline constexpr int interrupted_status = 130;

// Writes `line` and a newline to standard output, flushed; throws
// output_error if it did not get there.
void print_line(const std::string& line);
// Flushes standard output; throws output_error if anything written to it
// since the start was lost.
void check_output();

// Adds `sub` with the function that runs it once parsed.
void add_command(CLI::App* sub, std::function<int()> run);
int run_selected(CLI::App& app);

void register_demo(CLI::App& app);
void register_sensitivity(CLI::App& app);
void register_run(CLI::App& app);
void register_replay(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_probe(CLI::App& app);
void register_sweep(CLI::App& app);
void register_report(CLI::App& app);
void register_selftests(CLI::App& app);
void register_litmus(CLI::App& app);

}  // namespace futexsim::cli

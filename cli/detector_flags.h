// The progress detectors' bounds on the command line (sim/timed/progress_watch.h):
// `run` takes them for its simulated runs, `sweep` for every run of its
// grid and passes those given on to its children.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "sim/timed/progress_watch.h"

namespace futexsim::cli {

class detector_flags {
public:
    // --rcu-stall-timeout-ms, --watchdog-thresh-ms, --spin-limit-ms,
    // --max-events-per-ms, with the defaults of progress_limits.
    void add_to(CLI::App& sub);
    sim::progress_limits& limits() { return limits_; }
    // The options, for the simulator-only list of `run`.
    const std::vector<CLI::Option*>& options() const { return options_; }
    // The given flags and their values, as a child `futexsim run` takes
    // them; empty when none was given.
    std::vector<std::string> given_arguments() const;

private:
    sim::progress_limits limits_;
    std::vector<CLI::Option*> options_;
};

// What `--fail-on-warning` says in each command's help.
inline constexpr const char* fail_on_warning_help =
    "Exit with status 1 at the first warning (a progress detector's, the model's, a real run's); a "
    "simulated run stops there";

// How `run --fail-on-warning` begins the stderr line it stops with (a
// sweep tells a run that warned from one that failed by it).
inline constexpr std::string_view fail_on_warning_prefix = "futexsim: the run warned (--fail-on-warning): ";

}  // namespace futexsim::cli

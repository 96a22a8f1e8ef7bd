// `futexsim run`'s workload-specific flags, built from the workload
// registry (run/workloads/registry.h): each workload declares its flags,
// and this adds them to the command line, refuses one given to another
// workload, and hands the given values to the run.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "run/run_options.h"
#include "run/workloads/workload.h"

namespace futexsim::cli {

class workload_flags {
public:
    // Adds every registered workload's flags to `sub`, each name once, in
    // the registry's order.
    void add_to(CLI::App& sub);
    // After parsing: refuses a given flag that `wl` does not take (the
    // first in the registry's order). Throws usage_error (one line).
    void refuse_others(const workload_def& wl) const;
    // Checks the values of `wl`'s flags, puts the given ones into
    // opt.params and runs the workload's own check (run_options against
    // the flags). Throws usage_error (one line).
    void apply(const workload_def& wl, run_options& opt) const;

private:
    struct entry {
        std::string value;  // bound to the option: the given value, else the default
        CLI::Option* option = nullptr;
    };
    // By flag name; a std::map, so CLI11 can hold on to the strings.
    std::map<std::string, entry> flags_;
    std::vector<std::string> order_;  // the registry's, for which error comes first
};

}  // namespace futexsim::cli

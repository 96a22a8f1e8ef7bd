// The command line's workload flags (cli/workload_flags.h) parsed from
// `args` for `workload`, as `futexsim run` parses them: for the tests of a
// workload registered outside the production list.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/workload_flags.h"
#include "run/run_options.h"
#include "run/workloads/registry.h"

namespace futexsim::test {

inline run_options parse_workload_flags(std::vector<std::string> args, const std::string& workload)
{
    CLI::App app;
    cli::workload_flags flags;
    flags.add_to(app);
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
    run_options o;
    o.workload = workload;
    const workload_def& wl = find_workload(workload);
    flags.refuse_others(wl);
    flags.apply(wl, o);
    return o;
}

}  // namespace futexsim::test

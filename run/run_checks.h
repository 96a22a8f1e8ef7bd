// What every backend and every command refuses to run, each said once: a
// std::invalid_argument whose message names the problem (the command line
// turns it into a usage error, exit status 2).
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "model/policies/registry.h"
#include "run/run_options.h"

namespace futexsim {

// The id of the pivot policy called `name`; none: "unknown policy 'x'
// (valid: stock, ...)". Inline: a build that registers more policies (the
// mutants' replay tool, FUTEXSIM_EXTRA_POLICIES) checks against its own list.
inline int require_pivot_policy(const std::string& name)
{
    const auto id = model::pivot_policy_id(name);
    if (!id)
        throw std::invalid_argument(fmt::format("unknown policy '{}' (valid: {})", name, model::pivot_policy_names()));
    return *id;
}

// What no backend can run: no thread, no time, an unknown policy. A backend
// adds its own limits (real/run_real.cpp: thread and length caps).
void check_run_options(const run_options& opt);

}  // namespace futexsim

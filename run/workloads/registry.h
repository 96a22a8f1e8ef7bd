// Every workload a run can name: the built-in ones (registry.cpp, one line
// each), then any a program or test registers.
#pragma once

#include <deque>
#include <string>

#include "run/workloads/workload.h"

namespace futexsim {

// In the order --help and error messages list them.
const std::deque<workload_def>& workloads();
const workload_def& find_workload(const std::string& name);  // throws std::invalid_argument

// Adds `w` after the others (a test's toy workload, say); throws
// std::invalid_argument if its name is taken. Not thread-safe: register
// before any run starts.
void register_workload(workload_def w);

}  // namespace futexsim

#include "run/workloads/registry.h"

#include <fmt/format.h>

#include <stdexcept>

namespace futexsim {

// The built-in workloads, one line each, in the order they are listed:
// X(factory), where run/workloads/<name>.cpp defines `workload_def factory()`
// (CMake builds every file in run/workloads/).
#define FUTEXSIM_BUILTIN_WORKLOADS(X) \
    X(wake_nowaiters_workload)        \
    X(producer_consumer_workload)     \
    X(hash_bench_workload)            \
    X(mutex_workload)                 \
    X(mixed_wait_workload)            \
    X(pool_growth_workload)

#define FUTEXSIM_DECLARE_WORKLOAD(factory) workload_def factory();
FUTEXSIM_BUILTIN_WORKLOADS(FUTEXSIM_DECLARE_WORKLOAD)

namespace {

// A deque: registering one keeps references to the others valid.
std::deque<workload_def>& registry()
{
#define FUTEXSIM_MAKE_WORKLOAD(factory) factory(),
    static std::deque<workload_def> all = {FUTEXSIM_BUILTIN_WORKLOADS(FUTEXSIM_MAKE_WORKLOAD)};
#undef FUTEXSIM_MAKE_WORKLOAD
    return all;
}

}  // namespace

const std::deque<workload_def>& workloads()
{
    return registry();
}

const workload_def& find_workload(const std::string& name)
{
    std::string valid;
    for (const auto& w : workloads()) {
        if (w.name == name)
            return w;
        valid += (valid.empty() ? "" : ", ") + w.name;
    }
    throw std::invalid_argument(fmt::format("unknown workload '{}' (valid: {})", name, valid));
}

void register_workload(workload_def w)
{
    for (const auto& other : workloads())
        if (other.name == w.name)
            throw std::invalid_argument(fmt::format("workload '{}' is already registered", w.name));
    registry().push_back(std::move(w));
}

}  // namespace futexsim

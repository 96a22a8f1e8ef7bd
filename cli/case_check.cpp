#include "cli/case_check.h"

#include <fmt/format.h>

#include <algorithm>

namespace futexsim::cli {

std::string case_problem(const sim::explore::case_spec& c)
{
    if (c.threads.empty())
        return "no threads";
    // Threads start in order, each at the next `C` some running thread
    // executes: thread i exists only if the threads before it hold i `C`s.
    std::size_t created = 1;
    for (std::size_t i = 0; i < c.threads.size(); i++) {
        const auto& t = c.threads[i];
        if (t.ops.empty())
            return fmt::format("thread {} has no operations (threads are separated by '/', operations by '.')", i);
        if (i >= created)
            return fmt::format("thread {} is never created: the threads before it have {} 'C' (one per thread "
                               "after the main thread)",
                               i, created - 1);
        created += static_cast<std::size_t>(
            std::count_if(t.ops.begin(), t.ops.end(), [](const sim::explore::case_op& op) { return op.kind == 'C'; }));
    }
    return {};
}

}  // namespace futexsim::cli

// The sleeper check (on unless --no-sleeper-check): when the run ended with
// nobody able to run, every thread left is asleep in futex_wait(), not in a
// lock, wait_var_event() or synchronize_rcu(); otherwise it is a deadlock.
#pragma once

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class sleepers_check final : public explore_observer {
public:
    explicit sleepers_check(const run_context& ctx) : ctx_(ctx) {}

    void at_end() override;

private:
    const run_context& ctx_;
};

}  // namespace futexsim::sim::explore

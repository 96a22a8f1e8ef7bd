// Bounded liveness (`--liveness bounded`): every pivot completes within
// `pivot_bound_gps` grace periods of its request, whatever the load (the
// fixes' promise; stock breaks it). Checked after every step and at the end.
#pragma once

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class bounded_liveness_check final : public explore_observer {
public:
    explicit bounded_liveness_check(const run_context& ctx) : ctx_(ctx) {}

    void on_step(const explore_task&, const op_event&) override { check(false); }
    void at_end() override { check(true); }

private:
    void check(bool at_end);
    const run_context& ctx_;
};

}  // namespace futexsim::sim::explore

// Liveness after quiet (`--liveness after-quiet`, stock's promise): a pivot
// pending when the process goes quiet (no thread in a system call) for at
// least two full grace periods is installed by the end of the first futex
// operation after the quiet window.
#pragma once

#include <cstdint>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class after_quiet_check final : public explore_observer {
public:
    explicit after_quiet_check(const run_context& ctx) : ctx_(ctx) {}

    void before_call(const case_op& op) override;
    void call_returned(const case_op&, long) override;
    void after_call(const case_op& op, long ret) override;

private:
    const run_context& ctx_;
    int active_ = 0;  // threads inside a system call
    std::uint64_t quiet_since_ = 0;
    unsigned long quiet_gp_base_ = 0;  // the first grace period wholly inside the quiet window
    int owed_by_ = -1;                 // the task whose futex operation owes the pivot
    unsigned long owed_quiet_gps_ = 0;
};

}  // namespace futexsim::sim::explore

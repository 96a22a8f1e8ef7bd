// SET_SLOTS returns only after its hash is installed (docs/testing.md): a
// custom hash of that size was installed while the call ran. (It may be
// replaced again before the call returns.) A SET_SLOTS that raced with
// another may see the other's installed instead: a bigger one that won
// futex_hash_less(), or one that came after it; still a custom one.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class set_slots_check final : public explore_observer {
public:
    explicit set_slots_check(const run_context& ctx) : ctx_(ctx) {}

    void on_trace(const model::trace_point& tp) override;
    void call_entered(const case_op& op) override;
    void call_returned(const case_op& op, long ret) override;

private:
    // What a task's SET_SLOTS saw when it began.
    struct call {
        bool raced_at_start = false;
        unsigned long started_before = 0;
        std::size_t installs_before = 0;
    };

    const run_context& ctx_;
    int in_flight_ = 0;
    unsigned long started_ = 0;
    std::vector<unsigned> custom_installs_;  // slots of each custom hash installed, in order
    std::map<int, call> calls_;              // by task
};

}  // namespace futexsim::sim::explore

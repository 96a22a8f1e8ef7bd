// No lost wake-up (docs/testing.md): futex_wake(), futex_wake_op() and
// futex_requeue() against the sequential reference. The waiters asleep on
// the word when the call began are the queue a sequential futex would see:
// the count returned must be the tasks the call woke (plus, for requeue,
// those it moved), and a call that returned less than it asked for must
// have left none of them behind.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class lost_wakeup_check final : public explore_observer {
public:
    explicit lost_wakeup_check(const run_context& ctx) : ctx_(ctx) {}

    void on_op(const explore_task& t, const op_event& ev) override;
    void call_entered(const case_op& op) override;
    void call_returned(const case_op& op, long ret) override;

private:
    // A sleeper: its task and the number of that sleep (a task woken and
    // asleep again is another waiter).
    using sleeper = std::pair<int, std::uint64_t>;
    std::set<sleeper> sleepers_on(unsigned word) const;
    void check(const case_op& op, long ret, const std::set<sleeper>& before,
               const std::vector<int>& woken) const;

    const run_context& ctx_;
    std::map<int, std::set<sleeper>> queued_at_entry_;  // by task: the sleepers when its call began
    std::map<int, std::vector<int>> woken_by_;          // by task: whom its current call woke
};

}  // namespace futexsim::sim::explore

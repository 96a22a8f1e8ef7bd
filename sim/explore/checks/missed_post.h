// No missed post (docs/testing.md): user space stores a new value to a futex
// word and then wakes it (`V`, a semaphore's post); a waiter that compared
// the old value must then be woken, or must have seen the new one and not
// slept. With a single waiting task on the word, a run that ends with it asleep on
// a value the word no longer holds, after a post with a wake to spare
// returned, lost that wake-up: under sequential consistency the waiter's
// count (barrier A) and the waker's check (barrier B) forbid it, and under
// a weak memory model a missing barrier shows here (docs/findings.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class missed_post_check final : public explore_observer {
public:
    explicit missed_post_check(const run_context& ctx) : ctx_(ctx) {}

    void on_op(const explore_task& t, const op_event& ev) override;
    void call_entered(const case_op& op) override;
    void after_call(const case_op& op, long ret) override;
    void at_end() override;

private:
    const run_context& ctx_;
    std::map<int, unsigned> waiting_on_;         // by task: the word of its futex_wait() in flight
    std::map<int, std::uint32_t> compared_;      // by task: the value its futex_wait() last read
    std::map<unsigned, std::set<int>> waiters_;  // by word: the tasks that ever waited on it
    std::set<unsigned> posted_;                  // words a post with a wake to spare returned on
};

}  // namespace futexsim::sim::explore

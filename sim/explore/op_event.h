// What one environment call of the explorer did (an operation), for the
// observers and the trace, and the names the trace gives operations and
// the model functions that made them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace futexsim::sim::explore {

enum class op_kind : std::uint8_t {
    read,
    write,
    cmpxchg_ok,
    cmpxchg_fail,
    add_return,
    inc,
    dec,
    percpu_inc,
    percpu_dec,
    percpu_read,
    percpu_write,
    rcu_lock,
    rcu_unlock,
    preempt_off,
    preempt_on,
    mutex_lock,
    mutex_unlock,
    spin_lock,
    spin_unlock,
    wait_var,
    wake_var,
    wake_task,
    sleep,
    call_rcu,
    sync_rcu,
    user,
    syscall,
    drain,  // a buffered store reaches memory (sim/explore/store_buffers.h)
};
const char* op_name(op_kind k);

struct op_event {
    op_kind kind;
    const void* addr = nullptr;  // the word, counter or lock
    long before = 0, after = 0;  // the value (per-CPU: this CPU's counter)
    unsigned cpu = 0;
    const char* function = "";  // the model function that made the call
    std::string note;           // user-level steps: what the task did
};

// The bare name of the model function in a std::source_location's
// function_name() ("bool futexsim::model::futex_ref_get(...) [with ...]").
std::string_view bare_function(const char* pretty);

}  // namespace futexsim::sim::explore

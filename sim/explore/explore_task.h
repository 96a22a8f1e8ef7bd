// A task of the explorer: the kernel runtime's per-task state
// (sim/kernel/task.h) and what the explorer schedules it by: its fiber, its
// CPU, whether it can run, what it sleeps in, the operation it stopped at
// and the one its last step performed.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/hrtimer.h"
#include "sim/explore/op_event.h"
#include "sim/kernel/task.h"

namespace futexsim::sim::explore {

enum class task_state : std::uint8_t { runnable, blocked, exited };

struct explore_task : kernel::task_struct {
    int id = 0;
    std::string name;
    unsigned cpu = 0;
    bool kernel = false;
    bool cloned = false;  // spawned by a task (clone()), not by the harness
    task_state state = task_state::runnable;
    const char* blocked_in = "";  // what it sleeps in, for the deadlock report
    const void* blocked_on = nullptr;
    std::int64_t wake_at = -1;      // a timeout or a nanosleep
    model::hrtimer_sleeper* hrtimer = nullptr;  // armed (a PI timeout): it fires when a sleep of its times out
    std::uint64_t rcu_cookie = 0;   // synchronize_rcu(): sleeps until completed >= cookie
    // A barrier or a read-modify-write waits until its CPU's store buffer
    // holds nothing for this word (nullptr: nothing at all).
    bool awaiting_drain = false;
    const void* drain_word = nullptr;
    // arm64: the word the operation it stopped at loads (load_views.h), and
    // which of its values the schedule picked (0: the newest).
    const void* load_cell = nullptr;
    unsigned load_size = 0;
    std::size_t load_choice = 0;
    const void* futex_q = nullptr;  // while asleep in futex_sleep()
    std::uint64_t sleeps = 0;       // futex_sleep() calls so far: tells one sleep from the next
    // current->__state as the kernel keeps it (model/env.h): set before a
    // futex sleep, TASK_UNINTERRUPTIBLE while it sleeps in a lock, a
    // wait_var_event() or synchronize_rcu(), TASK_RUNNING once any sleep
    // ends or a wake_up_state() found it sleeping or about to.
    unsigned kstate = 0;
    op_event pending{op_kind::user, nullptr, 0, 0, 0, "", "start"};  // performed when next picked
    std::uint64_t section_gen = 0;   // bumps each time it leaves its outermost section
    op_event last;                   // the operation its last step performed
    std::vector<std::string> notes;  // what else happened in its last step
    std::function<void()> body;
    boost::context::fiber fib;
    void* stack_base = nullptr;  // its pooled stack (sim/explore/fiber_stack_pool.h)
};

}  // namespace futexsim::sim::explore

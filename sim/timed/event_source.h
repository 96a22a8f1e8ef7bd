// What registers with the engine (sim/timed/engine.h) to take part in a run
// besides the tasks: the cache model (sim/timed/cache.h) queues line services,
// RCU (sim/timed/rcu.h) hears of context switches and ticks and queues its grace
// periods' work. The engine knows them only through this interface, so it
// includes neither; each includes the engine.
#pragma once

#include <cstdint>

#include "run/vtime.h"

namespace futexsim::sim {

struct task;

class event_source {
public:
    virtual ~event_source() = default;

    // What the engine's event-storm alarm names as the busiest source
    // (sim/timed/progress_watch.h).
    virtual const char* name() const { return "an event source"; }

    // An event this source posted (engine::post()) is due, at the engine's
    // now(): `what` and `arg` as posted.
    virtual void on_event(std::uint8_t /*what*/, std::uint32_t /*arg*/) {}
    // Whether it still has work that will post events: a run whose tasks
    // have all exited or sleep for good ends once every source is idle.
    virtual bool idle() const { return true; }

    // The scheduler's hooks (the kernel's rcu_note_context_switch() and
    // rcu_sched_clock_irq()):
    // `cpu` switched tasks (or to or from idle) at `at`.
    virtual void context_switch(unsigned /*cpu*/, vtime /*at*/) {}
    // At tick instant `at`, `cpu` ran a task in a quiescent state (user
    // mode, or outside any read-side section where RCU is preemptible).
    virtual void tick_quiescent(unsigned /*cpu*/, vtime /*at*/) {}
    // At every tick instant `at` on `cpu`: the task running there, nullptr
    // when idle (the soft-lockup watchdog, sim/timed/progress_watch.h).
    virtual void tick_sample(unsigned /*cpu*/, vtime /*at*/, const task* /*t*/) {}
    // Tick number `k` has been taken on every CPU.
    virtual void tick(std::int64_t /*k*/) {}
    // The running task on `cpu` is at a preemption point outside any
    // read-side or non-preemptible section. Called only while the source has
    // asked for them (engine::want_preemption_points()).
    virtual void preemption_point(unsigned /*cpu*/, vtime /*at*/) {}
};

}  // namespace futexsim::sim

// The kernel's hrtimers as the timed simulator needs them: a sleeping timer
// (model/hrtimer.h's hrtimer_sleeper) armed for an instant of virtual time,
// which then does what hrtimer_wakeup() does, clears the sleeper's task
// and wakes it. An event source of the engine (sim/timed/event_source.h),
// made on the first timer a run arms, so that a run without one has the
// same sources, events and results as before timers existed.
#pragma once

#include <cstdint>
#include <vector>

#include "model/hrtimer.h"
#include "sim/timed/engine.h"

namespace futexsim::sim {

class hrtimers final : public event_source {
public:
    explicit hrtimers(engine& e) : eng_(e), source_(e.add_source(this)) {}
    const char* name() const override { return "hrtimers"; }

    // hrtimer_sleeper_start_expires(): arm `sl` for the running task at
    // sl->expires (at once if that has passed).
    void start(model::hrtimer_sleeper* sl);
    // hrtimer_cancel(): disarm `sl` if it has not fired.
    void cancel(model::hrtimer_sleeper* sl);

    void on_event(std::uint8_t what, std::uint32_t arg) override;
    bool idle() const override { return armed_ == 0; }

private:
    engine& eng_;
    std::uint8_t source_;
    // Every timer armed in this run, by id - 1; nullptr once fired or
    // cancelled (an id is never reused: a cancelled timer's event finds
    // nothing to do).
    std::vector<model::hrtimer_sleeper*> timers_;
    std::size_t armed_ = 0;
};

}  // namespace futexsim::sim

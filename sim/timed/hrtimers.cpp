// Sleeping timers on the engine's clock (sim/timed/hrtimers.h).
#include "sim/timed/hrtimers.h"

#include <algorithm>

namespace futexsim::sim {

void hrtimers::start(model::hrtimer_sleeper* sl)
{
    sl->task = &eng_.current();
    timers_.push_back(sl);
    sl->id = timers_.size();
    ++armed_;
    eng_.post(source_, std::max<vtime>(sl->expires, eng_.now()), 0, static_cast<std::uint32_t>(sl->id));
}

void hrtimers::cancel(model::hrtimer_sleeper* sl)
{
    if (sl->id == 0)
        return;
    if (timers_[sl->id - 1]) {
        timers_[sl->id - 1] = nullptr;
        --armed_;
    }
    sl->id = 0;
}

// hrtimer_wakeup(): clear the task, then wake it (wake_up_process()).
void hrtimers::on_event(std::uint8_t /*what*/, std::uint32_t arg)
{
    model::hrtimer_sleeper* sl = timers_[arg - 1];
    if (!sl)
        return;  // cancelled
    timers_[arg - 1] = nullptr;
    --armed_;
    sl->id = 0;
    auto* t = static_cast<task*>(sl->task);
    sl->task = nullptr;
    if (t)
        eng_.wake(*t, eng_.now());
}

}  // namespace futexsim::sim

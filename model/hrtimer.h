// include/linux/hrtimer.h (Linux 7.2.13): what the futex code uses of a
// sleeping timer, struct hrtimer_sleeper. The environment arms and cancels
// it (model/pi.h's futex_pi_env: hrtimer_sleeper_start_expires(),
// hrtimer_cancel()) and, when it fires, does what hrtimer_wakeup() does:
// clears `task`, then wakes that task. So `task == nullptr` on an armed
// timer means it has fired, which is how the PI sleeps tell a timeout from
// a wake-up (handle_early_requeue_pi_wakeup(), rt_mutex_slowlock_block()).
#pragma once

namespace futexsim::model {

struct hrtimer_sleeper {
    long expires = 0;       // hrtimer_set_expires(): when, on the environment's clock
    void* task = nullptr;   // set when armed, cleared when it fires
    unsigned long id = 0;   // a handle the environment may keep while armed (0: none)
};

// The `out:` of a function with a sleeper on its stack: hrtimer_cancel()
// whichever way it returns (destroy_hrtimer_on_stack() has nothing to do
// here). noexcept(false) as model/cleanup.h's guards, for the same reason.
template <class Env>
struct hrtimer_cancel_on_return {
    Env& env;
    hrtimer_sleeper* to;  // nullptr: no timeout
    ~hrtimer_cancel_on_return() noexcept(false)
    {
        if (to)
            env.hrtimer_cancel(to);
    }
};

}  // namespace futexsim::model

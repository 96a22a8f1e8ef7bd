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
    unsigned long id = 0;   // the environment's handle while armed (0: not armed)
};

}  // namespace futexsim::model

// SIGINT for the real backends: the handler only sets a flag; the run's
// watchdog sees it, tells the workload's threads to stop, and the main
// thread joins them all before the process exits. Worker threads are created
// with SIGINT blocked, so the signal always lands on the main thread.
#pragma once

#include <atomic>

namespace futexsim::real {

// Set by SIGINT (or by request_stop()); cleared by install_sigint_handler().
std::atomic<bool>& stop_requested();
void request_stop();

// Installs the handler for the life of the object, restores the old one after.
class sigint_scope {
public:
    sigint_scope();
    ~sigint_scope();
    sigint_scope(const sigint_scope&) = delete;
    sigint_scope& operator=(const sigint_scope&) = delete;
};

// Runs `f` with SIGINT blocked in the calling thread, so that threads `f`
// creates inherit a mask without it.
template <class F>
void with_sigint_blocked(F&& f);

}  // namespace futexsim::real

#include "real/stop_signal_impl.h"

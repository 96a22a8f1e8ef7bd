// SIGINT: the handler only sets flags; whatever runs long looks at them at
// a safe point and ends early with what it has (the simulator's engine
// between two events, a real run's watchdog, calibrate between rows,
// replay between steps). futexsim's main() installs the handler before
// anything else, so that an early SIGINT is never fatal; worker threads are
// created with SIGINT blocked, so the signal always lands on the main thread.
#pragma once

#include <atomic>

namespace futexsim {

// For the life of the process; clears sigint_received().
void install_sigint_handler();
// Set by SIGINT; stays set.
std::atomic<bool>& sigint_received();
// The first stop signal's number, from a handler (async-signal-safe): SIGINT's
// handler records it, and cli/stop_signals' for SIGTERM and SIGHUP.
void note_stop_signal(int sig);
// "SIGINT", "SIGTERM" or "SIGHUP": the first stop signal (SIGINT when none
// came, as for a closed progress stream), for what a stopped run says.
const char* stop_signal_name();
// 128 + the first stop signal (130 for SIGINT, or when none came).
int stop_status();

// A real run's stop: set by SIGINT, or by request_stop() (a worker failed);
// each real run starts it from sigint_received() (sigint_scope).
std::atomic<bool>& stop_requested();
void request_stop();

// For one real run: starts stop_requested() from sigint_received(), and
// installs the handler for its life if main() has not (tests, benchmarks).
class sigint_scope {
public:
    sigint_scope();
    ~sigint_scope();
    sigint_scope(const sigint_scope&) = delete;
    sigint_scope& operator=(const sigint_scope&) = delete;

private:
    bool installed_here_ = false;
};

// Runs `f` with SIGINT blocked in the calling thread, so that threads `f`
// creates inherit a mask without it.
template <class F>
void with_sigint_blocked(F&& f);

}  // namespace futexsim

#include "run/stop_signal_impl.h"

#include "cli/stop_signals.h"

#include <signal.h>

#include <atomic>

#include "run/stop_signal.h"

namespace futexsim::cli {

namespace {
std::atomic<int> first_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free int");

extern "C" void on_stop_signal(int sig)
{
    int none = 0;
    first_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
    // Plain stores on lock-free atomics: safe in a handler.
    sigint_received().store(true, std::memory_order_relaxed);
    stop_requested().store(true, std::memory_order_relaxed);
}
}  // namespace

void install_stop_signal_handlers()
{
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART, as for SIGINT: a sleep wakes up to look at the flags
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
}

int stop_status()
{
    const int sig = first_signal.load();
    return 128 + (sig ? sig : SIGINT);
}

const char* stop_signal_name()
{
    switch (first_signal.load()) {
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "SIGINT";
    }
}

void stop_as_if_interrupted()
{
    sigint_received().store(true);
    stop_requested().store(true);
}

}  // namespace futexsim::cli

#include "real/stop_signal.h"

#include <signal.h>

namespace futexsim::real {

namespace {
std::atomic<bool> stop_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");
struct sigaction previous;

extern "C" void on_sigint(int)
{
    stop_flag.store(true, std::memory_order_relaxed);
}
}  // namespace

std::atomic<bool>& stop_requested()
{
    return stop_flag;
}

void request_stop()
{
    stop_flag.store(true, std::memory_order_relaxed);
}

sigint_scope::sigint_scope()
{
    stop_flag.store(false);
    struct sigaction sa = {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a sleeping main thread wakes up to look at the flag
    sigaction(SIGINT, &sa, &previous);
}

sigint_scope::~sigint_scope()
{
    sigaction(SIGINT, &previous, nullptr);
}

}  // namespace futexsim::real

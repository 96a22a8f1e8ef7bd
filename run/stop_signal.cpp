#include "run/stop_signal.h"

#include <signal.h>

namespace futexsim {

namespace {
std::atomic<bool> sigint_flag{false};
std::atomic<bool> stop_flag{false};
std::atomic<int> first_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handlers need a lock-free int");
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");
bool handler_installed = false;  // main thread only
struct sigaction previous;

extern "C" void on_sigint(int)
{
    note_stop_signal(SIGINT);
    sigint_flag.store(true, std::memory_order_relaxed);
    stop_flag.store(true, std::memory_order_relaxed);
}

void set_handler(struct sigaction* old)
{
    struct sigaction sa = {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a sleeping main thread wakes up to look at the flag
    sigaction(SIGINT, &sa, old);
}
}  // namespace

void install_sigint_handler()
{
    sigint_flag.store(false);
    set_handler(nullptr);
    handler_installed = true;
}

std::atomic<bool>& sigint_received()
{
    return sigint_flag;
}

void note_stop_signal(int sig)
{
    int none = 0;
    first_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
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

int stop_status()
{
    const int sig = first_signal.load();
    return 128 + (sig ? sig : SIGINT);
}

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
    stop_flag.store(sigint_flag.load());
    if (!handler_installed) {
        set_handler(&previous);
        handler_installed = installed_here_ = true;
    }
}

sigint_scope::~sigint_scope()
{
    if (installed_here_) {
        sigaction(SIGINT, &previous, nullptr);
        handler_installed = false;
    }
}

}  // namespace futexsim

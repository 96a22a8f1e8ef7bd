#include "cli/stop_signals.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "run/stop_signal.h"

namespace futexsim::cli {

namespace {
extern "C" void on_stop_signal(int sig)
{
    note_stop_signal(sig);
    // Plain stores on lock-free atomics: safe in a handler.
    sigint_received().store(true, std::memory_order_relaxed);
    stop_requested().store(true, std::memory_order_relaxed);
}
// Whether descriptor `fd` is a pipe (or socket) with no reader left: poll()
// says POLLERR for it. Both calls are async-signal-safe.
bool reader_gone(int fd)
{
    pollfd p = {fd, POLLOUT, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

extern "C" void on_sigpipe(int)
{
    if (reader_gone(STDOUT_FILENO) || reader_gone(STDERR_FILENO))
        _exit(closed_pipe_status);
}
}  // namespace

void install_sigpipe_handler()
{
    struct sigaction sa = {};
    sa.sa_handler = on_sigpipe;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &sa, nullptr);
}

void install_stop_signal_handlers()
{
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART, as for SIGINT: a sleep wakes up to look at the flags
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
}

void stop_as_if_interrupted()
{
    sigint_received().store(true);
    stop_requested().store(true);
}

}  // namespace futexsim::cli

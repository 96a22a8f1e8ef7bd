// with_sigint_blocked(): a template, so here rather than in stop_signal.cpp.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace futexsim {

template <class F>
void with_sigint_blocked(F&& f)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    struct restore {
        sigset_t* old;
        ~restore() { pthread_sigmask(SIG_SETMASK, old, nullptr); }
    } guard{&old};
    f();
}

}  // namespace futexsim

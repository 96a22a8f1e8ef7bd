// The scope guards of include/linux/cleanup.h as the model uses them:
// guard(rcu)(), guard(preempt)() and scoped_guard(mutex, &m), each an RAII
// type over the environment's calls.
//
// Every guard's destructor is noexcept(false): an environment may switch
// tasks inside any of its calls (the simulator does, at a shared word), and
// a run torn down while a task is switched out there (SIGINT) unwinds that
// task's stack from the switch with an exception (Boost.Context's
// forced_unwind). From a noexcept destructor that would be std::terminate.
// (While a stack unwinds, the environment's calls do not switch, so no
// destructor throws a second exception.)
#pragma once

namespace futexsim::model {

// guard(rcu)() / scoped_guard(rcu)
template <class Env>
struct rcu_guard {
    Env& env;
    explicit rcu_guard(Env& e) : env(e) { env.rcu_read_lock(); }
    ~rcu_guard() noexcept(false) { env.rcu_read_unlock(); }
    rcu_guard(const rcu_guard&) = delete;
    rcu_guard& operator=(const rcu_guard&) = delete;
};

// guard(preempt)()
template <class Env>
struct preempt_guard {
    Env& env;
    explicit preempt_guard(Env& e) : env(e) { env.preempt_disable(); }
    ~preempt_guard() noexcept(false) { env.preempt_enable(); }
    preempt_guard(const preempt_guard&) = delete;
    preempt_guard& operator=(const preempt_guard&) = delete;
};

// scoped_guard(mutex, &m)
template <class Env>
struct mutex_guard {
    Env& env;
    typename Env::mutex_t& m;
    mutex_guard(Env& e, typename Env::mutex_t& mtx) : env(e), m(mtx) { env.mutex_lock(m); }
    ~mutex_guard() noexcept(false) { env.mutex_unlock(m); }
    mutex_guard(const mutex_guard&) = delete;
    mutex_guard& operator=(const mutex_guard&) = delete;
};

}  // namespace futexsim::model

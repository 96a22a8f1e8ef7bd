// The entry function of a task's fiber, for both fiber schedulers (the timed
// engine, sim/timed/engine.cpp, and the explorer, sim/explore/explore_env.cpp):
// remember who resumed the task, run its body, keep the first exception
// that escapes it for the scheduler to rethrow, let the scheduler retire the
// task, and hand control back.
#pragma once

#include <exception>
#include <functional>
#include <utility>

#include <boost/context/fiber.hpp>

namespace futexsim::sim::kernel {

// `adopt` keeps the fiber that started the task (the scheduler's, or, where
// tasks switch to each other, the task it came from); `finish` runs on the
// task's stack after its body returned; then the task ends by resuming
// `scheduler`.
template <class Adopt, class Finish>
auto task_fiber_main(boost::context::fiber& scheduler, const bool& tearing_down,
                     std::function<void()>& body, std::exception_ptr& error, Adopt adopt, Finish finish)
{
    namespace ctx = boost::context;
    return [&scheduler, &tearing_down, &body, &error, adopt, finish](ctx::fiber&& from) mutable {
        adopt(std::move(from));
        // Torn down before it ever ran (a run ended by SIGINT at its start):
        // Boost's ucontext fibers (the ASan build) enter the function to
        // unwind it, and the body would run against what the caller has
        // already destroyed.
        if (tearing_down)
            return std::move(scheduler);
        try {
            body();
        } catch (const ctx::detail::forced_unwind&) {
            throw;  // the scheduler is tearing the fiber down
        } catch (...) {
            error = std::current_exception();
        }
        finish();
        return std::move(scheduler);
    };
}

}  // namespace futexsim::sim::kernel

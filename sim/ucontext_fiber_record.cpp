// Built in the asan preset only (sim/CMakeLists.txt). There the fibers use
// Boost.Context's ucontext implementation, whose switches tell ASan about
// each new stack (BOOST_USE_ASAN); fcontext's do not. That implementation is
// header-only but for one function, the calling thread's current activation
// record, which Debian's libboost_context (built for fcontext) does not
// contain. This is that function: each thread's current record starts as a
// record of the thread's own context, made on first use and freed when the
// thread exits.
#include <boost/context/fiber.hpp>

#if !defined(BOOST_USE_UCONTEXT)
#error "ucontext_fiber_record.cpp is for builds with BOOST_USE_UCONTEXT (the asan preset)"
#endif

namespace boost::context::detail {

namespace {
struct thread_context_record {
    fiber_activation_record* own = new fiber_activation_record();  // getcontext() of this thread
    fiber_activation_record* current = own;
    ~thread_context_record() { delete own; }
};
}  // namespace

fiber_activation_record*& fiber_activation_record::current() noexcept
{
    thread_local thread_context_record record;
    return record.current;
}

}  // namespace boost::context::detail

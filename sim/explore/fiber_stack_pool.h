// The explorer's fiber stacks, from a pool: runs are short and many, and a
// task left unfinished at the end of a run is abandoned, not unwound
// (explore_env::shutdown()), so its stack is handed back here instead of
// being freed by the fiber.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>

namespace futexsim::sim::explore {

inline constexpr std::size_t fiber_stack_bytes = 256 * 1024;

// A Boost.Context stack allocator over the pool.
struct pooled_stack {
    boost::context::stack_context allocate();
    void deallocate(boost::context::stack_context& sc);
};

// The stack of an abandoned task, whose fiber never deallocates it.
void return_stack(void* base);

}  // namespace futexsim::sim::explore

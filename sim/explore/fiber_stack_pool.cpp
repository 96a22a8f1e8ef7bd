#include "sim/explore/fiber_stack_pool.h"

#include <cstdlib>
#include <new>
#include <vector>

namespace futexsim::sim::explore {

namespace {

// Every stack not in use, freed when the program ends (so a leak checker
// sees none: an abandoned task's stack is back here by then).
struct free_stacks {
    std::vector<void*> stacks;
    ~free_stacks()
    {
        for (void* s : stacks)
            std::free(s);
    }
};

std::vector<void*>& stack_pool()
{
    static free_stacks pool;
    return pool.stacks;
}

}  // namespace

boost::context::stack_context pooled_stack::allocate()
{
    void* base = nullptr;
    if (stack_pool().empty()) {
        base = std::malloc(fiber_stack_bytes);
        if (!base)
            throw std::bad_alloc();
    } else {
        base = stack_pool().back();
        stack_pool().pop_back();
    }
    boost::context::stack_context sc;
    sc.size = fiber_stack_bytes;
    sc.sp = static_cast<char*>(base) + fiber_stack_bytes;
    return sc;
}

void pooled_stack::deallocate(boost::context::stack_context& sc)
{
    stack_pool().push_back(static_cast<char*>(sc.sp) - sc.size);
}

void return_stack(void* base) { stack_pool().push_back(base); }

}  // namespace futexsim::sim::explore

#include "sim/explore/quarantine.h"

namespace futexsim::sim::explore {

bool quarantine::holds(const void* p) const
{
    const char* c = static_cast<const char*>(p);
    for (const range& r : freed_)
        if (c >= r.lo && c < r.hi)
            return true;
    return false;
}

void quarantine::release()
{
    for (auto& d : deleters_)
        d();
    deleters_.clear();
    freed_.clear();
}

}  // namespace futexsim::sim::explore

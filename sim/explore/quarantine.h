// The use-after-free quarantine: memory the model frees (kvfree(),
// kvfree_rcu()) is marked freed and kept, never reused, so that the
// explorer can report any later access to it before it happens; it is
// deleted only when the explorer goes.
#pragma once

#include <functional>
#include <vector>

namespace futexsim::sim::explore {

class quarantine {
public:
    quarantine() = default;
    ~quarantine() { release(); }
    quarantine(const quarantine&) = delete;
    quarantine& operator=(const quarantine&) = delete;

    // Keeps `p` (and a hash's bucket array, which it owns) as freed memory.
    template <class T>
    void keep(T* p)
    {
        const char* lo = reinterpret_cast<const char*>(p);
        freed_.push_back({lo, lo + sizeof(T)});
        if constexpr (requires { p->queues.data(); }) {
            const char* q = reinterpret_cast<const char*>(p->queues.data());
            freed_.push_back({q, q + p->queues.size() * sizeof(p->queues[0])});
        }
        deleters_.push_back([p] { delete p; });
    }
    // Is `p` inside memory kept here?
    bool holds(const void* p) const;
    // Deletes what was kept, in the order it was kept.
    void release();

private:
    struct range {
        const char* lo;
        const char* hi;
    };
    std::vector<range> freed_;
    std::vector<std::function<void()>> deleters_;
};

}  // namespace futexsim::sim::explore

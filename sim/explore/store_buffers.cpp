// The store buffers' rules (store_buffers.h): what may drain when, and
// what a CPU's own load sees.
#include "sim/explore/store_buffers.h"

#include <cstring>

namespace futexsim::sim::explore {

void store_buffers::fence(unsigned cpu)
{
    if (model_ == memory_model::arm64 && !buffers_[cpu].empty() &&
        buffers_[cpu].back().what != buffered_store::kind::fence)
        buffers_[cpu].push_back(buffered_store{buffered_store::kind::fence});
}

store_buffers::forwarded store_buffers::forward(unsigned cpu, const void* addr, unsigned size,
                                                std::uint64_t& bits) const
{
    const std::vector<buffered_store>& b = buffers_[cpu];
    for (std::size_t i = b.size(); i-- > 0;) {
        if (b[i].addr != addr)
            continue;
        if (b[i].what == buffered_store::kind::add)
            return forwarded::add_pending;
        bits = 0;
        std::memcpy(&bits, &b[i].bits, size);
        return forwarded::value;
    }
    return forwarded::none;
}

bool store_buffers::holds(unsigned cpu, const void* addr) const
{
    for (const buffered_store& e : buffers_[cpu])
        if (e.what != buffered_store::kind::fence && (!addr || e.addr == addr))
            return true;
    return false;
}

std::uint64_t store_buffers::settled(const void* addr, unsigned size, std::uint64_t memory) const
{
    std::uint64_t v = memory;
    for (const auto& b : buffers_)
        for (const buffered_store& e : b) {
            if (e.addr != addr)
                continue;
            if (e.what == buffered_store::kind::store)
                v = e.bits;
            else if (e.what == buffered_store::kind::add)
                v += e.bits;
        }
    if (size == 4)
        v &= 0xffffffffu;
    return v;
}

bool store_buffers::all_empty() const
{
    for (const auto& b : buffers_)
        if (!b.empty())
            return false;
    return true;
}

void store_buffers::drain_all(unsigned cpu)
{
    for (const buffered_store& e : buffers_[cpu])
        commit(cpu, e);
    buffers_[cpu].clear();
}

bool store_buffers::may_drain(unsigned cpu, std::size_t i) const
{
    const std::vector<buffered_store>& b = buffers_[cpu];
    if (b[i].what == buffered_store::kind::fence)
        return false;
    if (i == 0)
        return true;
    if (model_ != memory_model::arm64 || b[i].release)
        return false;
    for (std::size_t j = 0; j < i; j++)
        if (b[j].what == buffered_store::kind::fence || b[j].addr == b[i].addr)
            return false;
    return true;
}

std::vector<std::pair<unsigned, std::size_t>> store_buffers::drainable() const
{
    std::vector<std::pair<unsigned, std::size_t>> out;
    for (unsigned cpu = 0; cpu < buffers_.size(); cpu++)
        for (std::size_t i = 0; i < buffers_[cpu].size(); i++)
            if (may_drain(cpu, i))
                out.emplace_back(cpu, i);
    return out;
}

void store_buffers::drain_one(unsigned cpu, std::size_t i)
{
    std::vector<buffered_store>& b = buffers_[cpu];
    commit(cpu, b[i]);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
    drop_leading_fences(cpu);
}

void store_buffers::drop_leading_fences(unsigned cpu)
{
    std::vector<buffered_store>& b = buffers_[cpu];
    std::size_t n = 0;
    while (n < b.size() && b[n].what == buffered_store::kind::fence)
        ++n;
    b.erase(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

// A store writes its bytes; an add reads the word as a signed integer of
// its size, adds with wrap-around, and writes it back.
void store_buffers::commit(unsigned cpu, const buffered_store& e)
{
    if (e.what == buffered_store::kind::fence)
        return;
    std::uint64_t before = 0;
    std::memcpy(&before, e.addr, e.size);
    write(e);
    if (on_commit_)
        on_commit_(cpu, e, before);
}

void store_buffers::write(const buffered_store& e)
{
    switch (e.what) {
    case buffered_store::kind::store:
        std::memcpy(e.addr, &e.bits, e.size);
        break;
    case buffered_store::kind::add:
        if (e.size == 4) {
            std::uint32_t v;
            std::memcpy(&v, e.addr, 4);
            v += static_cast<std::uint32_t>(e.bits);
            std::memcpy(e.addr, &v, 4);
        } else {
            std::uint64_t v;
            std::memcpy(&v, e.addr, 8);
            v += e.bits;
            std::memcpy(e.addr, &v, 8);
        }
        break;
    case buffered_store::kind::fence:
        break;
    }
}

}  // namespace futexsim::sim::explore

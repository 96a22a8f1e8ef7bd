// The views of load_views.h: each word's versions and what each CPU may
// still read of them.
#include "sim/explore/load_views.h"

#include <algorithm>

namespace futexsim::sim::explore {

namespace {
std::uint64_t masked(std::uint64_t bits, unsigned size)
{
    return size >= 8 ? bits : bits & ((1ull << (8 * size)) - 1);
}
}  // namespace

void load_views::wrote(unsigned cpu, const void* addr, unsigned size, std::uint64_t before,
                       std::uint64_t after)
{
    word_history& h = words_[addr];
    h.size = size;
    // The first write here, or one after memory changed behind the views
    // (a plain initialisation): what was there is the oldest version.
    if (h.versions.empty() || masked(h.versions.back().bits, size) != masked(before, size))
        h.versions.push_back(version{h.versions.empty() ? 0 : now_, before});
    h.versions.push_back(version{++now_, after});
    coherence_[cpu][addr] = h.versions.size() - 1;
}

const load_views::word_history* load_views::history(const void* addr, std::uint64_t memory) const
{
    const auto it = words_.find(addr);
    if (it == words_.end() || it->second.versions.empty() ||
        masked(it->second.versions.back().bits, it->second.size) != masked(memory, it->second.size))
        return nullptr;
    return &it->second;
}

std::size_t load_views::oldest(unsigned cpu, const void* addr, const word_history& h) const
{
    std::size_t lo = 0;
    if (const auto c = coherence_[cpu].find(addr); c != coherence_[cpu].end())
        lo = c->second;
    // The version current at the floor's time: the last one no newer.
    std::size_t at_floor = 0;
    for (std::size_t i = 0; i < h.versions.size() && h.versions[i].ts <= floor_[cpu]; i++)
        at_floor = i;
    return std::max(lo, at_floor);
}

std::size_t load_views::choices(unsigned cpu, const void* addr, std::uint64_t memory) const
{
    const word_history* h = history(addr, memory);
    return h ? h->versions.size() - oldest(cpu, addr, *h) : 1;
}

std::uint64_t load_views::read(unsigned cpu, const void* addr, std::size_t j, std::uint64_t memory)
{
    const word_history* h = history(addr, memory);
    if (!h) {
        // Never written here since the start (time 0), or changed behind
        // the views (then as new as anything).
        last_read_[cpu] = words_.count(addr) ? now_ : 0;
        return memory;
    }
    const std::size_t newest = h->versions.size() - 1;
    const std::size_t i = std::max(oldest(cpu, addr, *h), newest - std::min(j, newest));
    std::size_t& seen = coherence_[cpu][addr];
    seen = std::max(seen, i);
    read_view_[cpu] = std::max(read_view_[cpu], h->versions[i].ts);
    last_read_[cpu] = h->versions[i].ts;
    return h->versions[i].bits;
}

void load_views::all_full()
{
    for (auto& f : floor_)
        f = now_;
}

void load_views::rmb(unsigned cpu) { floor_[cpu] = std::max(floor_[cpu], read_view_[cpu]); }

void load_views::after_ordered_load(unsigned cpu)
{
    floor_[cpu] = std::max(floor_[cpu], last_read_[cpu]);
}

}  // namespace futexsim::sim::explore

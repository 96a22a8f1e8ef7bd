#include "sim/timed/cache.h"

#include <algorithm>

namespace futexsim::sim {

cache_model::cache_model(engine& e) : eng_(e), source_(e.add_source(this)), arb_(e.mach().arbitration) {}

void cache_model::on_event(std::uint8_t what, std::uint32_t arg)
{
    if (what == request) {
        cache_line& l = *pending_[arg].line;
        l.waiters.push_back(arg);
        if (!l.service_scheduled) {
            if (l.busy_until <= eng_.now())
                serve(l);
            else
                schedule_line_free(l, l.busy_until);
        }
        return;
    }
    cache_line& l = lines_[arg];
    l.service_scheduled = false;
    serve(l);
}

// The core takes an interrupt at an instruction boundary: a locked
// instruction still waiting for its line is squashed, and issued again once
// the handler has run. The request leaves the queue now and comes back
// tick_irq_ns later, behind whoever asked meanwhile. (A task executing when
// the tick fires pays the handler in engine::charge_slow().)
void cache_model::tick_sample(unsigned /*cpu*/, vtime at, const task* t)
{
    const vtime irq = static_cast<vtime>(eng_.mach().tick_irq_ns);
    if (!t || irq <= 0 || t->id >= pending_.size() || !pending_[t->id].line)
        return;
    cache_line& l = *pending_[t->id].line;
    const auto it = std::find(l.waiters.begin(), l.waiters.end(), t->id);
    if (it == l.waiters.end())
        return;
    if (it == l.waiters.begin())
        l.snoop_arrived = false;  // the snoop was for this request
    l.waiters.erase(it);
    ++stats_.squashed;
    eng_.post(source_, at + irq, request, t->id);
}

void cache_model::schedule_line_free(cache_line& l, vtime at)
{
    l.service_scheduled = true;
    eng_.post(source_, at, line_free, l.id);
}

void cache_model::spin_prepare(cache_line& l)
{
    eng_.spin_prepare();
    l.spinners.push_back(eng_.current().id);
}

void cache_model::spin_cancel(cache_line& l)
{
    std::erase(l.spinners, eng_.current().id);
}

void cache_model::release_spinners(cache_line& l, vtime at)
{
    const machine& m = eng_.mach();
    for (std::uint32_t id : l.spinners) {
        task& t = eng_.task_by_id(id);
        eng_.end_spin(t, at + static_cast<vtime>(m.transfer(static_cast<unsigned>(t.cpu), l.home_cpu)));
    }
    l.spinners.clear();
}

cache_line& cache_model::line_for(const void* addr)
{
    const auto key = reinterpret_cast<std::uintptr_t>(addr) / 64;
    auto [it, inserted] = by_addr_.try_emplace(key, static_cast<std::uint32_t>(lines_.size()));
    if (inserted) {
        cache_line& l = lines_.emplace_back();
        l.id = it->second;
        // Memory is interleaved over nodes; where the line's home is only
        // matters on machines with far atomics. Deterministic in the line id.
        const unsigned ncpu = eng_.mach().num_cpus();
        l.home_cpu = static_cast<unsigned>((l.id * 2654435761u) % ncpu);
    }
    return lines_[it->second];
}


void cache_model::access(cache_line& l, bool is_write, void (*fn)(void*), void* ctx)
{
    const task& t = eng_.current();
    if (pending_.size() <= t.id)
        pending_.resize(t.id + 1);
    pending_[t.id] = {&l, fn, ctx, is_write};
    ++stats_.misses;
    eng_.post_now(source_, request, t.id);
    eng_.suspend();
}

// Where the data comes from and how far it travels to `cpu`.
double cache_model::source_latency(const cache_line& l, unsigned cpu, bool is_write) const
{
    const machine& m = eng_.mach();
    if (m.arch == atomic_arch::arm64_lse && is_write)
        return m.transfer(cpu, l.home_cpu);  // a far atomic: to the home and back
    if (l.owner >= 0)
        return m.transfer(static_cast<unsigned>(l.owner), cpu);
    if (l.sharers.empty())
        return m.transfer(l.home_cpu, cpu);  // from memory / the home LLC slice
    double lat = 0;
    if (is_write) {
        // Upgrade: every other sharer's copy must be invalidated.
        for (auto s : l.sharers)
            if (s != cpu)
                lat = std::max(lat, m.transfer(s, cpu));
        return lat;
    }
    lat = 1e18;
    for (auto s : l.sharers)
        lat = std::min(lat, m.transfer(s, cpu));
    return lat;
}

std::size_t cache_model::pick_waiter(const cache_line& l) const
{
    if (arb_ == line_arbitration::fifo || l.owner < 0 || l.waiters.size() == 1)
        return 0;
    // nearest: the interconnect serves the requester closest to the holder.
    const machine& m = eng_.mach();
    std::size_t best = 0;
    double best_lat = 1e18;
    for (std::size_t i = 0; i < l.waiters.size(); i++) {
        const task& t = eng_.task_by_id(l.waiters[i]);
        const double lat = m.transfer(static_cast<unsigned>(l.owner), static_cast<unsigned>(t.cpu));
        if (lat < best_lat) {
            best_lat = lat;
            best = i;
        }
    }
    return best;
}

// A contended hand-off in two legs: the next request's snoop travels to the
// holder (half the one-way transfer latency), and the holder keeps using the
// line until it arrives; then the data travels to the requester (the other
// half). So the holder of a just-arrived line gets a short window in which
// its own next accesses (a failed cmpxchg's retry, a put right after a get)
// are local, and the line's throughput is one transfer per hand-off.
void cache_model::serve(cache_line& l)
{
    if (l.waiters.empty())
        return;
    const std::size_t idx = pick_waiter(l);
    task& t = eng_.task_by_id(l.waiters[idx]);
    const pending_access& op = pending_[t.id];
    const machine& m = eng_.mach();
    const unsigned cpu = static_cast<unsigned>(t.cpu);
    const bool far = m.arch == atomic_arch::arm64_lse && op.is_write;
    const double lat = source_latency(l, cpu, op.is_write);
    const vtime now = eng_.now();

    // Mesh latency varies with traffic: the snoop leg is drawn from the seed.
    vtime leg = 0;
    if (m.snoop_leg_fraction > 0 && !l.snoop_arrived) {
        l.leg = static_cast<vtime>(lat * m.snoop_leg_fraction * eng_.jitter_rng().spread(m.timing_jitter) + 0.5);
    }
    leg = l.leg;
    if (!far && leg > 0 && l.owner >= 0 && l.owner != static_cast<int>(cpu) && !l.snoop_arrived) {
        l.held_until = std::max(l.held_until, now + leg);
        l.snoop_arrived = true;
        schedule_line_free(l, now + leg);
        return;
    }
    const bool after_snoop = l.snoop_arrived;
    l.snoop_arrived = false;
    if (idx == 0)
        l.waiters.pop_front();
    else
        l.waiters.erase(l.waiters.begin() + static_cast<std::ptrdiff_t>(idx));
    const double remaining = after_snoop ? lat - static_cast<double>(leg) : lat;

    // The access takes effect now, in service order.
    op.fn(op.ctx);
    ++l.accesses;
    ++l.transfers;
    eng_.mix_trace((static_cast<std::uint64_t>(l.id) << 32) ^ (static_cast<std::uint64_t>(cpu) << 1) ^
                   static_cast<std::uint64_t>(op.is_write));

    vtime done;
    if (far) {
        // Executed at the home: the line does not move; the home serializes.
        done = now + static_cast<vtime>(2 * lat + m.far_atomic_ns);
        l.busy_until = now + static_cast<vtime>(m.far_atomic_ns);
        l.owner = -1;
        l.dirty = false;
        l.sharers.clear();
    } else if (op.is_write) {
        // The writer owns the line once the data arrives and the locked op ran.
        done = now + static_cast<vtime>(remaining + m.local_rmw_ns);
        l.held_from = done;
        l.held_until = done + static_cast<vtime>(m.lock_hold_ns);
        l.busy_until = l.held_until;
        l.owner = static_cast<int>(cpu);
        l.dirty = true;
        l.sharers.clear();
    } else if (m.modified_read == modified_read_rule::migrate && l.dirty && l.owner >= 0 &&
               l.owner != static_cast<int>(cpu)) {
        // The owner of a Modified line gives it up to the reader, which holds
        // it exclusive and clean: a locked op right after the load is local
        // if it comes before the next request's snoop. The reads queued
        // behind take it in turn (the first finds it clean and shares it).
        const vtime arrival = now + static_cast<vtime>(remaining);
        done = arrival + static_cast<vtime>(m.local_hit_ns);
        l.held_from = arrival;
        l.held_until = arrival;
        l.busy_until = arrival;
        l.owner = static_cast<int>(cpu);
        l.dirty = false;
        l.sharers.clear();
    } else {
        done = now + static_cast<vtime>(remaining + m.local_hit_ns);
        l.busy_until = now + static_cast<vtime>(remaining);
        if (l.owner >= 0 && l.owner != static_cast<int>(cpu))
            l.sharers.add(static_cast<unsigned>(l.owner));
        if (l.owner != static_cast<int>(cpu)) {
            l.owner = -1;
            l.dirty = false;
            l.sharers.add(cpu);
        }
        // Once the line is shared, the reads queued right behind this one are
        // answered together from the shared copy (the forwarding cache or the
        // LLC), each after its own distance: reads do not serialize.
        while (!l.waiters.empty() && !pending_[l.waiters.front()].is_write) {
            task& r = eng_.task_by_id(l.waiters.front());
            l.waiters.pop_front();
            const unsigned rcpu = static_cast<unsigned>(r.cpu);
            const double rlat = source_latency(l, rcpu, false);
            pending_[r.id].fn(pending_[r.id].ctx);
            ++l.accesses;
            l.sharers.add(rcpu);
            eng_.mix_trace((static_cast<std::uint64_t>(l.id) << 32) ^ (static_cast<std::uint64_t>(rcpu) << 1));
            eng_.resume(r, now + static_cast<vtime>(rlat + m.local_hit_ns));
        }
    }
    if (op.is_write && !l.spinners.empty())
        release_spinners(l, done);
    eng_.resume(t, done);
    if (!l.waiters.empty())
        schedule_line_free(l, l.busy_until);
}

}  // namespace futexsim::sim

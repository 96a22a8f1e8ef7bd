#include "probe/probe.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace futexsim::probe {

namespace {

std::string range(const summary& s, int digits = 1)
{
    return fmt::format("{:.{}f} (95% CI {:.{}f}-{:.{}f}; p10-p90 {:.{}f}-{:.{}f}; n={})", s.median,
                       digits, s.ci_lo, digits, s.ci_hi, digits, s.p10, digits, s.p90, digits, s.n);
}

}  // namespace

const summary& futex_path(const syscall_split& s)
{
    return s.have_private_hash ? s.path_private : s.path_global;
}

probe_result run_probe(const probe_options& opt,
                       const std::function<void(const std::string&)>& progress,
                       const std::function<bool()>& stop)
{
    auto say = [&](const std::string& line) {
        if (progress)
            progress(line);
    };
    probe_result r;
    r.topo = read_host_topology(opt.sysfs_root);
    const auto totals = count_pairs(r.topo);
    auto picked = sample_pairs(r.topo, opt.pairs_per_class);
    // Only CPUs this process may run on can be pinned (taskset, a cgroup's
    // cpuset): pairs with another are left out, and the table says so.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        std::size_t dropped = 0;
        for (auto& cls : picked)
            dropped += static_cast<std::size_t>(
                std::erase_if(cls, [&](const std::pair<unsigned, unsigned>& p) {
                    return p.first >= CPU_SETSIZE || p.second >= CPU_SETSIZE ||
                           !CPU_ISSET(p.first, &allowed) || !CPU_ISSET(p.second, &allowed);
                }));
        if (dropped > 0)
            r.topo.approximations.push_back(
                fmt::format("{} sampled pairs were left out: a CPU of theirs is outside this "
                            "process's affinity mask",
                            dropped));
    }
    for (unsigned c = 0; c < num_pair_classes; c++) {
        class_result cr;
        cr.cls = static_cast<pair_class>(c);
        cr.pairs_total = totals[c];
        std::vector<double> medians;
        for (const auto& [a, b] : picked[c]) {
            if (stop && stop()) {
                r.interrupted = true;
                r.classes.push_back(cr);
                return r;
            }
            pair_result p{a, b, pingpong_one_way_ns(a, b, opt.pingpong)};
            say(fmt::format("ping-pong {} CPUs {}-{}: {:.1f} ns one way", pair_class_name(cr.cls),
                            a, b, p.one_way_ns.median));
            if (p.one_way_ns.n > 0)
                medians.push_back(p.one_way_ns.median);
            cr.pairs.push_back(p);
        }
        cr.of_pairs = summarize(medians);
        r.classes.push_back(cr);
    }
    if (stop && stop()) {
        r.interrupted = true;
        return r;
    }
    r.locked_rmw = locked_rmw_ns();
    r.ghz = core_ghz();
    say(fmt::format("locked RMW {:.1f} ns, core clock {:.2f} GHz", r.locked_rmw.median,
                    r.ghz.median));
    // The nearest pair of distinct cores (SMT siblings share the L1).
    for (unsigned c = static_cast<unsigned>(pair_class::same_llc);
         c < num_pair_classes && !r.read_rmw; c++)
        if (!r.classes[c].pairs.empty()) {
            r.read_rmw_a = r.classes[c].pairs.front().a;
            r.read_rmw_b = r.classes[c].pairs.front().b;
            r.read_rmw = measure_read_then_rmw(r.read_rmw_a, r.read_rmw_b);
            say(fmt::format("load then cmpxchg on a line CPU {} wrote, on CPU {}: the load {:.1f} "
                            "ns, the cmpxchg "
                            "{:.1f} ns more",
                            r.read_rmw_a, r.read_rmw_b, r.read_rmw->load_transfer_ns(),
                            r.read_rmw->cmpxchg_after_load_ns()));
            if (stop && stop())
                break;
            r.hold = measure_hold_window(r.read_rmw_a, r.read_rmw_b);
            say(fmt::format(
                "CPU {} keeps a line CPU {} asks for {:.1f} ns after its locked op (median)",
                r.read_rmw_a, r.read_rmw_b, r.hold->window_ns()));
        }
    if (stop && stop()) {
        r.interrupted = true;
        return r;
    }
    r.split = measure_syscall_split(opt.syscall_rounds, opt.syscall_calls);
    say(fmt::format("system call {:.0f} ns, futex path {:.0f} ns", r.split.invalid_op.median,
                    futex_path(r.split).median));
    return r;
}

double pair_one_way_ns(const probe_result& r, unsigned a, unsigned b)
{
    for (const auto& c : r.classes)
        for (const auto& p : c.pairs)
            if ((p.a == a && p.b == b) || (p.a == b && p.b == a))
                return p.one_way_ns.median;
    return 0;
}

probed_machine machine_from_probe(const probe_result& r, const machine& base)
{
    probed_machine out;
    machine& m = out.m;
    m = base;
    out.shape = r.topo.shape;
    m.cpus = build_topology(out.shape);
    m.name = "probed";
    const auto& sh = out.shape;
    m.description = fmt::format(
        "this machine as `futexsim probe` measured it: {} sockets x {} LLC domains x {} cores "
        "x {} threads, {} nodes per socket; kernel {}",
        sh.sockets, sh.dies_per_socket, sh.cores_per_die, sh.threads_per_core, sh.nodes_per_socket,
        r.split.kernel);
    for (const auto& a : r.topo.approximations)
        m.description += "; " + a;
    auto& src = out.sources;
    const std::string by = "measured: futexsim probe";

    src["topology"] =
        fmt::format("{}, from /sys/devices/system/cpu (online, physical_package_id, "
                    "thread_siblings_list; LLC domains: {}) and /sys/devices/system/node",
                    by, r.topo.llc_source);
    // Transfer latencies: the median over the measured pairs of each class.
    // A class without pairs here is one no run of this topology uses; it
    // takes the nearest measured class's value (the farther one on a tie).
    const char* field[num_pair_classes] = {"smt_sibling", "same_die", "other_die", "other_die",
                                           "other_socket"};
    std::optional<double> value[num_pair_classes];
    for (unsigned c = 0; c < num_pair_classes && c < r.classes.size(); c++)
        if (r.classes[c].of_pairs.n > 0)
            value[c] = r.classes[c].of_pairs.median;
    auto describe = [&](unsigned c) {
        const class_result& cr = r.classes[c];
        return fmt::format(
            "{}, compare-and-swap ping-pong between pinned threads, half the round trip, median of "
            "{} of the {} {} pairs (pair medians {:.1f}-{:.1f} ns)",
            by, cr.of_pairs.n, cr.pairs_total, pair_class_name(cr.cls), cr.of_pairs.p10,
            cr.of_pairs.p90);
    };
    double* target[num_pair_classes] = {&m.transfer_ns.smt_sibling, &m.transfer_ns.same_die,
                                        &m.transfer_ns.other_die, &m.transfer_ns.other_die,
                                        &m.transfer_ns.other_socket};
    // other_die: the other-LLC pairs of one node, else those across nodes of a socket.
    const unsigned other_die_class = value[2] ? 2 : 3;
    for (unsigned c = 0; c < num_pair_classes; c++) {
        if (c == 2 || c == 3) {
            if (c != other_die_class)
                continue;
        }
        const std::string key = std::string("transfer_ns.") + field[c];
        if (value[c]) {
            *target[c] = value[c].value();
            src[key] = describe(c);
            continue;
        }
        // The nearest measured class, farther first on a tie.
        std::optional<unsigned> near;
        for (unsigned d = 1; d < num_pair_classes && !near; d++) {
            if (c + d < num_pair_classes && value[c + d])
                near = c + d;
            else if (c >= d && value[c - d])
                near = c - d;
        }
        const char* name = pair_class_name(static_cast<pair_class>(c));
        const std::string why =
            c < r.classes.size() && r.classes[c].pairs_total > 0
                ? fmt::format("no {} pair was measured (outside this process's affinity mask, or "
                              "cut short)",
                              name)
                : fmt::format(
                      "this machine has no {} pair, so no run of this file's topology uses it",
                      name);
        if (near) {
            *target[c] = value[*near].value();
            src[key] = fmt::format("assumed: {}; set to the nearest measured class ({})", why,
                                   pair_class_name(static_cast<pair_class>(*near)));
        } else {
            src[key] = fmt::format("assumed: {}, nor any other; the host preset's value", why);
        }
    }
    // per_die_hop: the slope of other-die latency over the LLC-domain
    // distance, where pairs at two distances or more were measured.
    {
        std::vector<std::pair<double, double>> pts;  // (hops, ns)
        for (unsigned c = 2; c <= 3 && c < r.classes.size(); c++)
            for (const auto& p : r.classes[c].pairs) {
                const auto find = [&](unsigned id) {
                    return *std::find_if(r.topo.cpus.begin(), r.topo.cpus.end(),
                                         [&](const host_cpu& h) { return h.id == id; });
                };
                const host_cpu a = find(p.a), b = find(p.b);
                const double hops =
                    std::abs(static_cast<double>(a.llc) - static_cast<double>(b.llc));
                if (p.one_way_ns.n > 0)
                    pts.emplace_back(hops, p.one_way_ns.median);
            }
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto& [x, y] : pts) {
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        const double n = static_cast<double>(pts.size());
        const double den = n * sxx - sx * sx;
        if (pts.size() >= 2 && den > 1e-9) {
            m.transfer_ns.per_die_hop = std::max(0.0, (n * sxy - sx * sy) / den);
            src["transfer_ns.per_die_hop"] =
                fmt::format("{}, least-squares slope of the {} other-LLC pairs' one-way latency "
                            "over their distance "
                            "in LLC domains (clamped at 0)",
                            by, pts.size());
        } else {
            m.transfer_ns.per_die_hop = 0;
            src["transfer_ns.per_die_hop"] =
                "assumed: 0; no other-LLC pairs at two distances were measured";
        }
    }
    if (r.locked_rmw.n > 0) {
        m.local_rmw_ns = r.locked_rmw.median;
        src["local_rmw_ns"] =
            fmt::format("{}, an uncontended seq_cst fetch_add (lock xadd on x86) on an owned line, "
                        "median of {} batches of 10^5",
                        by, r.locked_rmw.n);
        if (m.arch == atomic_arch::x86) {
            m.full_barrier_ns = r.locked_rmw.median;
            src["full_barrier_ns"] = fmt::format(
                "{}: smp_mb() on x86 is a locked add to the stack, so the locked RMW above", by);
        }
    }
    if (r.ghz.n > 0 && r.ghz.median >= 0.5 && r.ghz.median <= 6.5) {
        m.core_ghz = r.ghz.median;
        src["core_ghz"] =
            fmt::format("{}, a chain of dependent register-register adds (one cycle each), median "
                        "of {} batches",
                        by, r.ghz.n);
    } else {
        src["core_ghz"] = "assumed: the host preset's (no core clock measured in 0.5-6.5 GHz)";
    }
    if (r.read_rmw) {
        const auto& x = *r.read_rmw;
        const bool migrates = x.migrates(r.locked_rmw.median);
        m.modified_read = migrates ? modified_read_rule::migrate : modified_read_rule::share;
        src["modified_read"] = fmt::format(
            "{}, CPUs {} and {}: a load of a line the other CPU had just written took {:.1f} ns, a "
            "cmpxchg right "
            "after it {:.1f} ns more against {:.1f} ns for a locked RMW on an owned line ({}), "
            "medians of {} "
            "hand-offs",
            by, r.read_rmw_a, r.read_rmw_b, x.load_transfer_ns(), x.cmpxchg_after_load_ns(),
            r.locked_rmw.median,
            migrates ? "the excess is under half the load's: the load brought the line writable"
                     : "the excess is at least half the load's: a second transfer",
            x.load.n);
    }
    const double hold_one_way = pair_one_way_ns(r, r.read_rmw_a, r.read_rmw_b);
    if (r.hold && r.hold->window_ns() >= 0 && hold_one_way > 0) {
        // The model's holder keeps the line lock_hold_ns after its locked op,
        // then until the next request's snoop arrives, snoop_leg_fraction of
        // the transfer later (sim/timed/cache.cpp, cache_model::serve()).
        const double w = r.hold->window_ns();
        m.snoop_leg_fraction = std::clamp((w - m.lock_hold_ns) / hold_one_way, 0.0, 1.0);
        src["snoop_leg_fraction"] =
            fmt::format("{}, CPUs {} and {}: CPU {} kept a line that CPU {} was incrementing "
                        "without pause {:.1f} ns after its "
                        "own increment in half of {} tries (the delay at which a second increment "
                        "no longer followed the first "
                        "directly), less lock_hold_ns ({:.1f}), over the pair's one-way transfer "
                        "({:.1f} ns): the model's holder "
                        "keeps the line lock_hold_ns + snoop_leg_fraction x the transfer",
                        by, r.read_rmw_a, r.read_rmw_b, r.read_rmw_a, r.read_rmw_b, w,
                        r.hold->pairs_per_delay, m.lock_hold_ns, hold_one_way);
    }
    // What the probe does not measure, or reads from the kernel.
    const std::pair<const char*, const char*> rest[] = {
        // The caller derives these from the split with the simulator
        // (compare::values_from_split()) and says so; without it, the host preset's.
        {"kernel_cpi", "assumed: the host preset's, measured on a Zen 5 host (no system-call split "
                       "measured here)"},
        {"syscall_entry_ns",
         "assumed: the host preset's, the nearest preset CPU's counted entry path at kernel_cpi "
         "(no system-call split measured)"},
        {"syscall_exit_ns", "assumed: as syscall_entry_ns, the counted exit path"},
        {"local_hit_ns", "assumed: an L1 hit, the parser's default"},
        {"lock_hold_ns", "assumed: a few cycles after a locked instruction, the parser's default"},
        {"snoop_leg_fraction",
         "assumed: the request leg of a one-way transfer, the parser's default (no two "
         "distinct cores to measure the holder's window on)"},
        {"timing_jitter", "assumed: +/-30% on syscall entry and exit, the parser's default"},
        {"far_atomic_ns", m.arch == atomic_arch::x86
                              ? "assumed: x86 has no far atomics, so no run uses it"
                              : "assumed: the parser's default"},
        {"arch", "measured: futexsim probe, the architecture it was built for"},
        {"arbitration", "assumed: requests are served in arrival order"},
        {"modified_read",
         "assumed: share (MESI as textbooks give it); no two distinct cores to measure"},
        {"hz", "measured: futexsim probe, CONFIG_HZ from /boot/config-$(uname -r), else 250 "
               "(Debian's default)"},
        {"rcu_preemptible",
         "measured: futexsim probe, CONFIG_PREEMPT_RCU from /boot/config-$(uname -r), else yes"},
        {"rcu_fqs_jiffies",
         "measured: futexsim probe, /sys/module/rcutree/parameters/jiffies_till_first_fqs"},
        {"preempt_full", "assumed: distributions boot preempt=voluntary"},
        {"idle_states",
         "measured: futexsim probe, /sys/devices/system/cpu/cpu0/cpuidle (the kernel's table)"},
        {"clone_ns", "assumed: a typical pthread_create()"},
        {"thread_exit_ns", "assumed: a typical do_exit() up to mm_release()"},
        {"context_switch_ns", "assumed: a typical context switch"},
        {"tick_irq_ns", "assumed: a typical scheduler-tick interrupt, the parser's default"},
    };
    for (const auto& [key, text] : rest)
        src.emplace(key, text);
    if (!r.read_rmw)
        m.modified_read = modified_read_rule::share;  // what its source says
    // The host's own entry and exit are measured (the split), not a
    // preset CPU's counted path; until the caller derives them from the
    // split, they are what the host preset charges for that path.
    m.syscall_entry_ns = m.syscall_entry_cost_ns();
    m.syscall_exit_ns = m.syscall_exit_cost_ns();
    m.kernel_sites_cpu.clear();
    return out;
}

std::string split_table(const syscall_split& s, double ghz)
{
    std::string out = fmt::format(
        "system-call split (kernel {}; {} rounds of {} calls per row, interleaved; ns per "
        "call: median, 95% CI of the median, p10-p90 over rounds):\n",
        s.kernel, s.rounds, s.calls);
    auto row = [&](const char* what, const summary& v) {
        out += fmt::format("  {:<46} {}\n", what, range(v));
    };
    row("getppid()", s.getppid);
    row("futex(invalid op): entry + exit", s.invalid_op);
    if (s.have_private_hash)
        row("FUTEX_WAKE_PRIVATE, private hash (16 slots)", s.wake_private);
    row("FUTEX_WAKE_PRIVATE, global hash (no private)", s.wake_global);
    row("FUTEX_WAKE, shared key (global hash)", s.wake_shared);
    if (s.have_private_hash)
        row("futex path, private hash (wake - invalid)", s.path_private);
    row("futex path, global hash (wake - invalid)", s.path_global);
    const summary& path = futex_path(s);
    const double total = path.median + s.invalid_op.median;
    // One decimal, as the rows above and the entry+exit `probe` derives from it.
    out += fmt::format(
        "  split of one FUTEX_WAKE_PRIVATE: entry+exit {:.1f} ns ({:.0f}%), futex path {:.1f} ns "
        "({:.0f}%){}\n",
        s.invalid_op.median, total > 0 ? 100 * s.invalid_op.median / total : 0, path.median,
        total > 0 ? 100 * path.median / total : 0,
        s.have_private_hash ? "" : " (global hash: no PR_FUTEX_HASH on this kernel)");
    if (ghz > 0)
        out += fmt::format("  at the measured core clock of {:.2f} GHz: entry+exit {:.0f} cycles, "
                           "futex path {:.0f} "
                           "cycles\n",
                           ghz, s.invalid_op.median * ghz, path.median * ghz);
    return out;
}

std::string probe_table(const probe_result& r)
{
    const auto& sh = r.topo.shape;
    std::string out = fmt::format(
        "topology: {} CPUs; {} sockets x {} LLC domains x {} cores x {} threads, {} nodes "
        "per socket (LLC: {})\n",
        r.topo.cpus.size(), sh.sockets, sh.dies_per_socket, sh.cores_per_die, sh.threads_per_core,
        sh.nodes_per_socket, r.topo.llc_source);
    for (const auto& a : r.topo.approximations)
        out += "  note: " + a + "\n";
    out += "one-way transfer latency (CAS ping-pong, half the round trip), ns:\n";
    out += fmt::format("  {:<13} {:>7} {:>8} {:>8} {:>17}  {}\n", "class", "pairs", "measured",
                       "median", "pair medians", "pairs (median, p10-p90 over batches)");
    for (const auto& c : r.classes) {
        if (c.pairs_total == 0) {
            out += fmt::format("  {:<13} {:>7} {:>8} {:>8} {:>17}  no pair of this class here\n",
                               pair_class_name(c.cls), 0, 0, "-", "-");
            continue;
        }
        std::string pairs;
        bool noisy = false;
        for (const auto& p : c.pairs) {
            pairs += fmt::format("{}{}-{}: {:.1f} ({:.1f}-{:.1f})", pairs.empty() ? "" : ", ", p.a,
                                 p.b, p.one_way_ns.median, p.one_way_ns.p10, p.one_way_ns.p90);
            noisy = noisy || p.one_way_ns.n == 0 || p.one_way_ns.p90 > 2 * p.one_way_ns.median;
        }
        if (noisy)
            pairs +=
                "  [noisy: a p90 over twice the median, or no batch; was a CPU of the pair busy?]";
        out += fmt::format("  {:<13} {:>7} {:>8} {:>8.1f} {:>8.1f}-{:<8.1f}  {}\n",
                           pair_class_name(c.cls), c.pairs_total, c.pairs.size(), c.of_pairs.median,
                           c.of_pairs.p10, c.of_pairs.p90, pairs);
    }
    if (r.locked_rmw.n > 0)
        out += fmt::format("locked RMW on an owned line: {} ns\n", range(r.locked_rmw, 2));
    if (r.read_rmw) {
        const auto& x = *r.read_rmw;
        out += fmt::format(
            "a line CPU {} wrote, read on CPU {} (ns per hand-off, the clock's cost included):\n",
            r.read_rmw_a, r.read_rmw_b);
        out += fmt::format("  {:<28} {}\n", "nothing (the clock)", range(x.empty));
        out += fmt::format("  {:<28} {}\n", "load", range(x.load));
        out += fmt::format("  {:<28} {}\n", "load, then lock cmpxchg", range(x.load_cmpxchg));
        out += fmt::format("  {:<28} {}\n", "lock cmpxchg alone", range(x.cmpxchg));
        out += fmt::format("  the cmpxchg adds {:.1f} ns to the load's {:.1f} (a locked RMW on an "
                           "owned line: {:.1f}): "
                           "modified_read = {}\n",
                           x.cmpxchg_after_load_ns(), x.load_transfer_ns(), r.locked_rmw.median,
                           x.migrates(r.locked_rmw.median) ? "migrate" : "share");
    }
    if (r.hold) {
        const auto& h = *r.hold;
        std::string steps;
        for (std::size_t i = 0; i < h.kept.size(); i++)
            if (h.kept[i] > 0.05 && h.kept[i] < 0.95)
                steps += fmt::format("{}{:.0f} ns: {:.2f}", steps.empty() ? "" : ", ",
                                     h.delay_ns[i], h.kept[i]);
        out += fmt::format("a line CPU {} increments without pause, kept by CPU {} after its own "
                           "increment (share of "
                           "{} tries per delay kept through the delay; between 0.95 and 0.05: {}): "
                           "half at {:.1f} ns, "
                           "against a one-way transfer of {:.1f} ns\n",
                           r.read_rmw_b, r.read_rmw_a, h.pairs_per_delay,
                           steps.empty() ? "none" : steps, h.window_ns(),
                           pair_one_way_ns(r, r.read_rmw_a, r.read_rmw_b));
    }
    if (r.ghz.n > 0)
        out += fmt::format("core clock (dependent register adds): {} GHz\n", range(r.ghz, 2));
    if (r.split.rounds > 0)
        out += split_table(r.split, r.ghz.median);
    if (r.interrupted)
        out += fmt::format(
            "interrupted by {}: the rows above are those measured before it; no file written\n",
            r.stopped_by);
    return out;
}

}  // namespace futexsim::probe

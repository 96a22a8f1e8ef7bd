// The kernel's instructions between the model's accesses (sim/site_costs.h):
// the sites the simulator charges on FUTEX_WAKE with nobody waiting are
// exactly the counted segments of experiments/kernel/sites-7.2.13.json, on
// both builds and in both reference-count modes, and a segment costs its
// counted instructions at kernel_cpi / core_ghz.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "machine/kernel_sites.h"
#include "model/core.h"
#include "sim/process.h"

using namespace futexsim;

namespace {

using segment = std::pair<std::string, std::string>;

// The segments the table counts on `path`, as the simulator names them.
std::set<segment> table_segments(const kernel_sites_build& b, const std::string& path)
{
    std::set<segment> out;
    for (const auto& s : b.segments)
        if (s.path == path)
            out.insert({sim::site_costs::table_key(s.from), sim::site_costs::table_key(s.to)});
    return out;
}

// The segments one task charges over `wakes` FUTEX_WAKE_PRIVATE calls
// with nobody waiting, after a private hash is set up, in FR_ATOMIC when
// `atomic` (the state a pivot leaves the hash in until its grace periods
// end: the calls here come long before the first ends).
std::map<segment, bool> charged_by_wakes(const std::string& preset, bool atomic, int wakes)
{
    sim::sim_process p(load_machine_preset(preset), 1);
    const std::uint64_t word = p.alloc_futex_word(0);
    std::map<segment, bool> out;
    p.eng().spawn("waker", {0}, [&] {
        REQUIRE(p.sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, 16) == 0);
        if (atomic)
            model::__futex_ref_atomic_begin(p.mm().futex_phash.v);
        p.env().sites().forget();
        for (int i = 0; i < wakes; i++)
            REQUIRE(p.sys_futex_wake(word, 1) == 0);
        out = p.env().sites().charged();
    }, 0);
    p.eng().run_until(1'000'000'000);
    return out;
}

}  // namespace

TEST_CASE("site costs: FUTEX_WAKE with nobody waiting charges exactly the table's segments", "[sim][sites]")
{
    for (const char* preset : {"xeon-6975p-snc3", "graviton4"}) {
        const machine m = load_machine_preset(preset);
        const kernel_sites_build& b = kernel_sites_for(m.arch);
        for (const bool atomic : {false, true}) {
            const std::string path = atomic ? "wake-nowaiters-atomic" : "wake-nowaiters-percpu";
            INFO(preset << ", " << path);
            const std::set<segment> want = table_segments(b, path);
            REQUIRE(!want.empty());
            const auto got = charged_by_wakes(preset, atomic, 20);
            for (const auto& [seg, counted] : got) {
                INFO("charged " << seg.first << " -> " << seg.second);
                CHECK(counted);          // the model charges no segment the table lacks
                CHECK(want.count(seg));  // and none of another path
            }
            for (const auto& seg : want) {
                INFO("the table's " << seg.first << " -> " << seg.second);
                CHECK(got.count(seg));  // the table names no segment the model never reaches
            }
        }
    }
}

TEST_CASE("site costs: a segment costs its counted instructions, the access's own taken off", "[sim][sites]")
{
    machine m = load_machine_preset("xeon-6975p-snc3");
    m.kernel_cpi = 2;
    m.core_ghz = 4;  // half a nanosecond per instruction
    sim::site_costs c(m);
    const kernel_sites_build& b = kernel_sites_for(m.arch);
    for (const auto& s : b.segments) {
        if (s.path != "wake-nowaiters-atomic")
            continue;
        INFO(s.from << " -> " << s.to);
        // Named as the simulator names them, through the same interning.
        const auto from = s.from == "entry" ? sim::site_costs::entry : c.intern_for_test(sim::site_costs::table_key(s.from));
        const auto to = s.to == "exit" ? sim::site_costs::exit : c.intern_for_test(sim::site_costs::table_key(s.to));
        const unsigned between = s.to == "exit" ? s.instructions : s.instructions - 1;
        CHECK(c.segment_ps(from, to) == between * 500u);
    }
    // Anything else: the build's mean counted segment, less its access.
    const auto a = c.intern_for_test("somewhere:atomic_read");
    const auto z = c.intern_for_test("elsewhere:atomic_read");
    CHECK(c.segment_ps(a, z) == static_cast<std::uint64_t>((b.uncounted_segment_instructions - 1) * 500 + 0.5));
}

TEST_CASE("site costs: a preset's system-call entry and exit are its CPU's counted paths", "[sim][sites]")
{
    machine m = load_machine_preset("epyc-9r45");
    m.kernel_cpi = 1;
    m.core_ghz = 2;
    m.syscall_insn_cycles = 100;
    const kernel_sites_build& b = kernel_sites_for(m.arch);
    CHECK(m.syscall_entry_cost_ns() == Approx(b.syscall_entry_instructions("epyc-9r45") / 2.0 + 25));
    CHECK(m.syscall_exit_cost_ns() == Approx(b.syscall_exit_instructions("epyc-9r45") / 2.0 + 25));
    CHECK(b.syscall_entry_instructions("epyc-9r45") == 180);
    CHECK_THROWS_WITH(b.syscall_entry_instructions("pentium"), Catch::Contains("xeon-6975p"));
}

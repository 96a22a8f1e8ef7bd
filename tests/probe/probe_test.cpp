// futexsim probe without measuring: the machine-file writer reads back to
// the same machine, the sysfs reader on a fake tree, the pair sampling,
// and the rules that turn measurements into a file's fields.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "probe/host_topology.h"
#include "probe/probe.h"
#include "tests/machine/machine_describe.h"

using namespace futexsim;
namespace fs = std::filesystem;

TEST_CASE("the machine-file writer writes what the parser reads back, field by field", "[probe]")
{
    for (const auto& p : embedded_machine_presets()) {
        INFO(p.name);
        const machine m = load_machine_preset(std::string(p.name));
        const auto t = nlohmann::json::parse(p.json).at("topology");
        const topology_shape shape{t.at("sockets"), t.at("dies_per_socket"), t.at("nodes_per_socket"),
                                   t.at("cores_per_die"), t.at("threads_per_core")};
        const std::string text = machine_file_json(m, shape, {{"hz", "assumed: a test"}});
        const machine back = parse_machine_json(text, "test");
        CHECK(test::describe(back) == test::describe(m));
        CHECK(nlohmann::json::parse(text).at("sources").at("hz") == "assumed: a test");
    }
}

TEST_CASE("the writer refuses what the parser would refuse", "[probe]")
{
    machine m = load_machine_preset("graviton4");
    CHECK_THROWS_WITH(machine_file_json(m, {2, 1, 1, 96, 1}, {{"hz", "guessed: no kind"}}),
                      Catch::Contains("'sources'.'hz'"));
    m.kernel_cpi = -1;
    CHECK_THROWS_WITH(machine_file_json(m, {2, 1, 1, 96, 1}, {}), Catch::Contains("kernel_cpi"));
}

namespace {

// A fake /sys: 2 sockets x 2 LLC domains x 2 cores x 2 threads, one node
// per socket, numbered as Linux does (first threads, then siblings).
struct fake_sysfs {
    fs::path root = fs::temp_directory_path() / fmt::format("futexsim_probe_test_{}", getpid());
    fake_sysfs(bool with_cache = true)
    {
        fs::remove_all(root);
        const auto write = [&](const fs::path& rel, const std::string& text) {
            fs::create_directories((root / rel).parent_path());
            std::ofstream(root / rel) << text << "\n";
        };
        write("devices/system/cpu/online", "0-15");
        write("devices/system/node/node0/cpulist", "0-3,8-11");
        write("devices/system/node/node1/cpulist", "4-7,12-15");
        for (unsigned cpu = 0; cpu < 16; cpu++) {
            const unsigned core = cpu % 8, socket = core / 4, llc = core / 2;
            const fs::path base = fmt::format("devices/system/cpu/cpu{}", cpu);
            write(base / "topology/physical_package_id", std::to_string(socket));
            write(base / "topology/thread_siblings_list", fmt::format("{},{}", core, core + 8));
            if (!with_cache)
                continue;
            write(base / "cache/index0/level", "1");
            write(base / "cache/index0/type", "Data");
            write(base / "cache/index0/shared_cpu_list", fmt::format("{},{}", core, core + 8));
            write(base / "cache/index3/level", "3");
            write(base / "cache/index3/type", "Unified");
            write(base / "cache/index3/shared_cpu_list",
                  fmt::format("{}-{},{}-{}", 2 * llc, 2 * llc + 1, 2 * llc + 8, 2 * llc + 9));
        }
    }
    ~fake_sysfs() { fs::remove_all(root); }
};

}  // namespace

TEST_CASE("the topology comes from sysfs: cores, LLC domains, nodes, sockets", "[probe]")
{
    fake_sysfs sys;
    const probe::host_topology t = probe::read_host_topology(sys.root.string());
    REQUIRE(t.cpus.size() == 16);
    CHECK(t.shape.sockets == 2);
    CHECK(t.shape.dies_per_socket == 2);
    CHECK(t.shape.nodes_per_socket == 1);
    CHECK(t.shape.cores_per_die == 2);
    CHECK(t.shape.threads_per_core == 2);
    CHECK(t.approximations.empty());  // Linux's numbering, the simulated machine's too
    CHECK(t.llc_source.find("level-3") != std::string::npos);
    using probe::pair_class;
    CHECK(probe::classify(t.cpus[0], t.cpus[8]) == pair_class::smt_sibling);
    CHECK(probe::classify(t.cpus[0], t.cpus[1]) == pair_class::same_llc);
    CHECK(probe::classify(t.cpus[0], t.cpus[2]) == pair_class::other_llc);
    CHECK(probe::classify(t.cpus[0], t.cpus[4]) == pair_class::other_socket);
    // 8 sibling pairs; per socket 4 same-LLC pairs x 2 LLCs... counted over all 120 pairs.
    const auto n = probe::count_pairs(t);
    CHECK(n[0] == 8);
    CHECK(n[0] + n[1] + n[2] + n[3] + n[4] == 120);
    CHECK(n[3] == 0);  // one node per socket: no other-node pair inside a socket
    // Bounded and spread: at most 3 a class, not all from CPU 0.
    const auto picked = probe::sample_pairs(t, 3);
    std::set<unsigned> firsts;
    for (const auto& cls : picked) {
        CHECK(cls.size() <= 3);
        for (const auto& [a, b] : cls) {
            CHECK(a < b);
            firsts.insert(a);
        }
    }
    CHECK(firsts.size() > 1);
    CHECK(probe::sample_pairs(t, 1000)[0].size() == 8);
}

TEST_CASE("without cache information the package is the LLC domain", "[probe]")
{
    fake_sysfs sys(false);
    const probe::host_topology t = probe::read_host_topology(sys.root.string());
    CHECK(t.shape.dies_per_socket == 1);
    CHECK(t.shape.cores_per_die == 4);
    CHECK(t.llc_source.find("no cache information") != std::string::npos);
}

TEST_CASE("a probe's measurements make a machine file run accepts, and classes with no pair say so", "[probe]")
{
    // A 2-CPU machine: one same-LLC pair, nothing else (this VM's shape).
    probe::probe_result r;
    r.topo.cpus = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 1}};
    r.topo.shape = {1, 1, 1, 2, 1};
    r.topo.llc_source = "test";
    for (unsigned c = 0; c < probe::num_pair_classes; c++)
        r.classes.push_back({static_cast<probe::pair_class>(c), c == 1 ? 1u : 0u, {}, {}});
    r.classes[1].pairs.push_back({0, 1, probe::summarize({30, 31, 32})});
    r.classes[1].of_pairs = probe::summarize({31});
    r.locked_rmw = probe::summarize({6, 6.5, 7});
    r.split.invalid_op = probe::summarize({900, 902, 904});
    r.split.path_private = probe::summarize({80, 90, 100});
    r.split.have_private_hash = true;
    r.split.rounds = 3;
    r.split.calls = 100;
    const probe::probed_machine pm = probe::machine_from_probe(r, load_machine_preset("xeon-6975p-snc3"));
    CHECK(pm.m.transfer_ns.same_die == 31);
    CHECK(pm.m.transfer_ns.smt_sibling == 31);  // nearest measured class
    CHECK(pm.m.transfer_ns.other_socket == 31);
    CHECK(pm.m.local_rmw_ns == 6.5);
    CHECK(pm.sources.at("kernel_cpi").rfind("assumed:", 0) == 0);  // derived by the caller
    CHECK(pm.sources.at("transfer_ns.same_die").rfind("measured: futexsim probe", 0) == 0);
    CHECK(pm.sources.at("transfer_ns.smt_sibling").rfind("assumed: this machine has no smt_sibling pair", 0) == 0);
    CHECK(pm.m.modified_read == modified_read_rule::share);  // not measured: the default, said so
    CHECK(pm.sources.at("modified_read").rfind("assumed:", 0) == 0);
    const std::string text = machine_file_json(pm.m, pm.shape, pm.sources);
    const machine back = parse_machine_json(text, "probed");
    CHECK(back.num_cpus() == 2);
    CHECK(back.transfer(0, 1) == 31);
    // Every field written names its source.
    const auto j = nlohmann::json::parse(text);
    for (const auto& [key, value] : j.items()) {
        if (key == "name" || key == "description" || key == "sources")
            continue;
        INFO(key);
        if (key == "transfer_ns") {
            for (const auto& [sub, _] : value.items())
                CHECK(j.at("sources").contains("transfer_ns." + sub));
            continue;
        }
        CHECK(j.at("sources").contains(key));
    }
}

namespace {
// A probe of two CPUs, one pair of distinct cores (0 and 1), a locked RMW
// of 6 ns; the pair's measurements are the test's.
probe::probe_result pair_probe()
{
    probe::probe_result r;
    r.topo.cpus = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 1}};
    r.topo.shape = {1, 1, 1, 2, 1};
    r.locked_rmw = probe::summarize({6});
    r.read_rmw_a = 0;
    r.read_rmw_b = 1;
    return r;
}
}  // namespace

TEST_CASE("a load then a cmpxchg that costs one transfer makes modified_read migrate; two, share", "[probe]")
{
    probe::probe_result r = pair_probe();
    const machine base = load_machine_preset("xeon-6975p-snc3");
    // The clock costs 20 ns; the load's transfer 100.
    const auto with = [&](double load_cmpxchg) {
        probe::read_then_rmw x;
        x.empty = probe::summarize({20});
        x.load = probe::summarize({120});
        x.cmpxchg = probe::summarize({120});
        x.load_cmpxchg = probe::summarize({load_cmpxchg});
        r.read_rmw = x;
        return probe::machine_from_probe(r, base);
    };
    const auto one = with(128);  // the cmpxchg adds a local RMW and a little
    CHECK(one.m.modified_read == modified_read_rule::migrate);
    CHECK(one.sources.at("modified_read").rfind("measured: futexsim probe, CPUs 0 and 1", 0) == 0);
    const auto two = with(225);  // a second transfer
    CHECK(two.m.modified_read == modified_read_rule::share);
    CHECK(two.sources.at("modified_read").find("a second transfer") != std::string::npos);
}

TEST_CASE("summaries: median, percentiles and the median's interval", "[probe]")
{
    const probe::summary s = probe::summarize({5, 1, 4, 2, 3});
    CHECK(s.median == 3);
    CHECK(s.n == 5);
    CHECK(s.ci_lo <= s.median);
    CHECK(s.ci_hi >= s.median);
    CHECK(probe::summarize({}).n == 0);
    CHECK(probe::summarize({1, 2}).median == 1.5);
}

TEST_CASE("the holder's window is where kept falls through 1/2, and gives snoop_leg_fraction", "[probe]")
{
    probe::hold_window h;
    h.delay_ns = {0, 10, 20, 30, 40};
    h.kept = {1.0, 0.9, 0.7, 0.3, 0.0};
    CHECK(h.window_ns() == Approx(25));  // half way from 0.7 at 20 to 0.3 at 30
    probe::hold_window never = h;
    never.kept = {1, 1, 1, 0.6, 0.5};
    CHECK(never.window_ns() == -1);
    probe::hold_window at_once = h;
    at_once.kept = {0.4, 0.1, 0, 0, 0};
    CHECK(at_once.window_ns() == 0);

    probe::probe_result r = pair_probe();
    machine base = load_machine_preset("xeon-6975p-snc3");
    base.lock_hold_ns = 5;
    // Not measured: the parser's default, said so.
    const auto none = probe::machine_from_probe(r, base);
    CHECK(none.m.snoop_leg_fraction == base.snoop_leg_fraction);
    CHECK(none.sources.at("snoop_leg_fraction").rfind("assumed:", 0) == 0);
    // A window of 25 ns on a pair 100 ns apart: (25 - 5) / 100.
    r.hold = h;
    r.classes.push_back({probe::pair_class::same_llc, 1, {{0, 1, probe::summarize({100})}}, probe::summarize({100})});
    const auto got = probe::machine_from_probe(r, base);
    CHECK(got.m.snoop_leg_fraction == Approx(0.2));
    CHECK(got.sources.at("snoop_leg_fraction").rfind("measured: futexsim probe, CPUs 0 and 1", 0) == 0);
    // A window that never closed within the delays tried measures nothing.
    r.hold = never;
    CHECK(probe::machine_from_probe(r, base).sources.at("snoop_leg_fraction").rfind("assumed:", 0) == 0);
}

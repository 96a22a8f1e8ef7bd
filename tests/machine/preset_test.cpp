// The machine presets are JSON files (machine/presets/) read by the
// machine-file parser: each gives exactly the machine the C++ preset it
// replaced gave, field by field, and every parameter says where it comes
// from.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "tests/machine/machine_describe.h"

using namespace futexsim;

namespace {

// The C++ presets as they were before the JSON files replaced them
// (sim/machine.cpp), with their topology builder: the reference.
std::vector<cpu_topology> old_topology(unsigned sockets, unsigned dies_per_socket, unsigned nodes_per_socket,
                                       unsigned cores_per_die)
{
    std::vector<cpu_topology> cpus;
    const unsigned cores_per_socket = dies_per_socket * cores_per_die;
    for (unsigned sock = 0; sock < sockets; sock++)
        for (unsigned c = 0; c < cores_per_socket; c++) {
            cpu_topology cpu;
            cpu.socket = sock;
            cpu.die = sock * dies_per_socket + c / cores_per_die;
            cpu.node = sock * nodes_per_socket + c / (cores_per_socket / nodes_per_socket);
            cpu.core = sock * cores_per_socket + c;
            cpus.push_back(cpu);
        }
    return cpus;
}

machine xeon_6975p_snc3()
{
    machine m;
    m.name = "xeon-6975p-snc3";
    m.description = "Intel Xeon 6975P-C (Granite Rapids-AP), 2 sockets x 96 cores, SNC=3, SMT off";
    m.arch = atomic_arch::x86;
    m.cpus = old_topology(2, 3, 3, 32);
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 60;
    m.transfer_ns.other_die = 95;
    m.transfer_ns.per_die_hop = 20;
    m.transfer_ns.other_socket = 140;
    // intel_idle's gnr_cstates (exit latency, target residency), measured by
    // Intel with wult and pbe.
    m.idle_states = {{"C1", 1'000, 1'000}, {"C1E", 4'000, 4'000}, {"C6", 170'000, 650'000},
                     {"C6P", 210'000, 1'000'000}};
    m.hz = 1000;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

machine epyc_9r45()
{
    machine m;
    m.name = "epyc-9r45";
    m.description = "AMD EPYC 9R45 (Turin, Zen 5), 2 sockets x 96 cores in 12 CCDs, NPS1, SMT off";
    m.arch = atomic_arch::x86;
    m.cpus = old_topology(2, 12, 1, 8);
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 45;
    m.transfer_ns.other_die = 150;
    m.transfer_ns.per_die_hop = 0;
    m.transfer_ns.other_socket = 260;
    m.hz = 1000;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

machine graviton4()
{
    machine m;
    m.name = "graviton4";
    m.description = "AWS Graviton4 (Neoverse V2), 2 sockets x 96 cores, flat mesh, LSE atomics";
    m.arch = atomic_arch::arm64_lse;
    m.cpus = old_topology(2, 1, 1, 96);
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 45;
    m.transfer_ns.other_die = 45;
    m.transfer_ns.per_die_hop = 0;
    m.transfer_ns.other_socket = 139;
    m.far_atomic_ns = 9;
    m.hz = 250;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

}  // namespace

TEST_CASE("each JSON preset is the C++ preset it replaced, field by field", "[machine]")
{
    CHECK(test::describe(load_machine_preset("xeon-6975p-snc3")) == test::describe(xeon_6975p_snc3()));
    CHECK(test::describe(load_machine_preset("epyc-9r45")) == test::describe(epyc_9r45()));
    CHECK(test::describe(load_machine_preset("graviton4")) == test::describe(graviton4()));
}

TEST_CASE("every parameter of every preset names its source", "[machine]")
{
    for (const auto& p : embedded_machine_presets()) {
        INFO(p.name);
        const auto j = nlohmann::json::parse(p.json);
        CHECK(j.at("name") == p.name);
        const auto& sources = j.at("sources");
        for (const auto& [key, value] : j.items()) {
            if (key == "name" || key == "description" || key == "sources")
                continue;
            if (key == "transfer_ns") {
                for (const auto& [sub, _] : value.items())
                    CHECK(sources.contains("transfer_ns." + sub));
                continue;
            }
            INFO(key);
            CHECK(sources.contains(key));
        }
        // Left out so that the parser takes the kernel's default, and said so.
        CHECK_FALSE(j.contains("rcu_fqs_jiffies"));
        CHECK(sources.contains("rcu_fqs_jiffies"));
    }
}

TEST_CASE("a machine file's sources name parameters and a kind of provenance", "[machine]")
{
    const std::string topology =
        R"("topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2, "threads_per_core": 1})";
    const auto parse = [&](const std::string& sources) {
        return parse_machine_json("{" + topology + R"(, "sources": )" + sources + "}", "test");
    };
    CHECK(parse(R"({"hz": "assumed: Debian", "transfer_ns.same_die": "measured: here"})").num_cpus() == 2);
    CHECK_THROWS_WITH(parse(R"({"hz": "a guess"})"), Catch::Contains("published:, measured:, fitted: or assumed:"));
    CHECK_THROWS_WITH(parse(R"({"hz": 3})"), Catch::Contains("'sources'.'hz' must be a text"));
    CHECK_THROWS_WITH(parse(R"({"speed": "assumed: fast"})"), Catch::Contains("'speed', which is no parameter"));
    CHECK_THROWS_WITH(parse(R"({"transfer_ns.far": "assumed: x"})"), Catch::Contains("no parameter"));
    CHECK_THROWS_WITH(parse(R"(["hz"])"), Catch::Contains("'sources' must be an object"));
}

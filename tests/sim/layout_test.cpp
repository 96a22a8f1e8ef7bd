// The model's shared words sit on the cache lines Linux 7.2.13 puts the
// same fields on (experiments/kernel/layout-7.2.13.tsv, read from the
// compiled amd64 and arm64 builds; docs/kernel-layout.md): two modelled
// fields share a line in the simulator exactly when they share one in the
// kernel, on both architectures. The simulator finds a word's line from its
// address, so the model's struct layout is what decides it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "model/futex.h"
#include "sim/timed/sim_env.h"

using namespace futexsim;

namespace {

// arch -> "struct.field" -> (first line, last line), from the table.
std::map<std::string, std::map<std::string, std::pair<int, int>>> read_layout()
{
    std::ifstream in(FUTEXSIM_LAYOUT_TSV);
    REQUIRE(in);
    std::map<std::string, std::map<std::string, std::pair<int, int>>> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream row(line);
        std::string arch, type, field;
        long offset = 0, size = 0;
        int first = 0, last = 0;
        REQUIRE(row >> arch >> type >> field >> offset >> size >> first >> last);
        out[arch][type + "." + field] = {first, last};
    }
    return out;
}

std::uintptr_t line_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p) / 64; }

}  // namespace

TEST_CASE("layout: the model's words share cache lines as 7.2.13's fields do", "[sim][layout]")
{
    const auto layout = read_layout();
    REQUIRE(layout.count("amd64"));
    REQUIRE(layout.count("arm64"));

    auto mm = std::make_unique<model::mm_struct<sim::sim_env>>();
    model::private_hash<sim::sim_env> fph(4);
    // The kernel's field (as the table names it) and the model's word for it.
    const std::vector<std::pair<std::string, const void*>> modelled = {
        {"mm_struct.mm_lock_seq", &mm->mm_lock_seq},
        {"mm_struct.futex.phash.lock.owner", &mm->futex_hash_lock.owner},
        {"mm_struct.futex.phash.hash", &mm->futex_phash},
        {"mm_struct.futex.phash.atomic", &mm->futex_atomic},
    };
    const std::vector<std::pair<std::string, const void*>> bucket = {
        {"futex_hash_bucket.waiters", &fph.queues[0].waiters},
        {"futex_hash_bucket.lock", &fph.queues[0].lock.val},
    };

    for (const auto& [arch, fields] : layout) {
        for (const auto* group : {&modelled, &bucket}) {
            for (const auto& [a, pa] : *group) {
                for (const auto& [b, pb] : *group) {
                    INFO(arch << ": " << a << " and " << b);
                    REQUIRE(fields.count(a));
                    REQUIRE(fields.count(b));
                    // Each of these fits in one line in the kernel.
                    REQUIRE(fields.at(a).first == fields.at(a).second);
                    const bool kernel_shares = fields.at(a).first == fields.at(b).first;
                    CHECK(kernel_shares == (line_of(pa) == line_of(pb)));
                }
            }
        }
    }
    // fph->state is on the private hash's first line, away from its buckets.
    for (const auto& [arch, fields] : layout) {
        INFO(arch);
        CHECK(fields.at("futex_private_hash.state").first == 0);
        CHECK(fields.at("futex_private_hash.queues").first == 1);
    }
    CHECK(line_of(&fph.state) != line_of(&fph.queues[0].waiters));
}

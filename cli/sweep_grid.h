// A sweep's grid: the lists `futexsim sweep` crosses, their cells in a fixed
// order, and the runs (cell x seed) a shard owns. Pure data and parsing:
// nothing here runs a simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace futexsim::cli {

// The grid's version in every result line; `report` refuses other versions.
inline constexpr int sweep_format_version = 1;

// The largest --arms presize:N, as `run --presize` takes it.
inline constexpr unsigned max_sweep_presize = 1048576;

struct sweep_grid {
    std::vector<std::string> machines{"xeon-6975p-snc3"};  // preset names, or machine_file_cell(PATH)
    // Per machine, content_hash() of its file's bytes ("" for a preset): in
    // the id, so that a machine file changed under the same path makes
    // another grid (a resume then refuses to mix the two machines' runs).
    std::vector<std::string> machine_hashes;
    std::vector<std::string> policies{"stock"};
    std::vector<std::string> workloads{"wake-nowaiters"};
    std::vector<std::string> kernels{"v6.17"};
    std::vector<unsigned> threads{96};
    std::vector<double> ramp_ms{0};
    std::vector<std::string> arms{"auto"};  // auto | presize:N | global
    std::vector<std::string> cpus{""};      // taskset lists; "" = every CPU
    std::vector<bool> prechecks{false};
    double seconds = 1.0;
    double interval_ms = 10;
    unsigned runs = 1;        // seeds per cell: seed, seed+1, ...
    std::uint64_t seed = 1;
    bool exact = false;       // every run --exact (no fast-forward)
    // The progress detectors' bounds given to the sweep, as `run` takes
    // them ("--rcu-stall-timeout-ms", "50", ...): every run gets them, and
    // they change its warnings, so they are part of the grid's id (none
    // given: the id of a sweep from before they existed).
    std::vector<std::string> detector_args;
    bool fail_on_warning = false;  // every run --fail-on-warning; not in the id (see sweep_command.cpp)

    std::size_t cell_count() const;
    std::size_t run_count() const { return cell_count() * runs; }
    // The hash of machine `name`'s file, "" for a preset.
    std::string machine_hash(const std::string& name) const;
    // A hash of everything above: the lines of one sweep (and its shards)
    // carry it, so that `report` can refuse a mix of grids.
    std::string id() const;
};

// The most runs a sweep takes without --large-grid: about a day of
// 10 ms runs on 100 CPUs, and what a resume or a shard enumerates at once.
inline constexpr std::size_t max_sweep_runs = 1000000;

// A stable fingerprint of `text` (FNV-1a, 64 bits) as 16 hex digits.
std::string content_hash(const std::string& text);

// One cell: a value of every list.
struct sweep_cell {
    std::size_t index = 0;
    std::string machine, policy, workload, kernel, arm, cpus;
    unsigned threads = 0;
    double ramp_ms = 0;
    bool precheck = false;
};

sweep_cell cell_at(const sweep_grid& g, std::size_t index);

// A machine file as a grid names it: "file:" and its path relative to the
// working directory where it lies under it (so that a sweep of a
// repository's files resumes in any clone of it, and its results name no
// folder outside it), else its absolute path. The runs are started in the
// same directory.
std::string machine_file_cell(const std::string& path);

// The `futexsim run` arguments of run `run_index` (cell run_index / runs,
// seed seed + run_index % runs), without the program name.
std::vector<std::string> run_arguments(const sweep_grid& g, std::size_t run_index);

// "K/N": this process runs the runs whose index is K-1 modulo N.
struct shard_spec {
    unsigned k = 1, n = 1;
    bool owns(std::size_t run_index) const { return run_index % n == k - 1; }
};

// How many runs of [from, to) shard K/N owns: those whose index is K-1
// modulo N.
std::size_t owned_in(std::size_t from, std::size_t to, const shard_spec& shard);
// How many cells the shard owns a run of.
std::size_t cells_owned(const sweep_grid& g, std::size_t total, const shard_spec& shard);

// This shard's runs not yet in --out, in index order, one at a time.
class run_cursor {
public:
    run_cursor(const shard_spec& shard, std::size_t total, const std::set<std::size_t>& done)
        : next_(shard.k - 1), step_(shard.n), total_(total), done_(done)
    {
        skip_done();
    }
    bool exhausted() const { return next_ >= total_; }
    std::size_t take()
    {
        const std::size_t i = next_;
        advance();
        skip_done();
        return i;
    }

private:
    void advance() { next_ = total_ - next_ <= step_ ? total_ : next_ + step_; }
    void skip_done()
    {
        while (!exhausted() && done_.count(next_))
            advance();
    }
    std::size_t next_, step_, total_;
    const std::set<std::size_t>& done_;
};

// Parsers for the command line; each throws std::invalid_argument with a
// one-line message naming the flag.
std::vector<unsigned> parse_uint_grid(const std::string& flag, const std::string& text);  // 16,32,48:96:8
std::vector<double> parse_number_grid(const std::string& flag, const std::string& text);   // 0,100,1000
std::vector<std::string> parse_name_list(const std::string& flag, const std::string& text, char sep = ',');
std::vector<std::string> parse_arms(const std::string& text);                             // auto,presize:512,global
std::vector<bool> parse_prechecks(const std::string& text);                               // off,on
shard_spec parse_shard(const std::string& text);

}  // namespace futexsim::cli

// A pool of child processes, J at a time, each a `futexsim` run: the
// threads that start them and wait for them, and the main thread that
// watches and passes a stop on to the children. What a run is and what
// its end means belong to the caller (sweep_command.cpp), through hooks
// the pool calls under its one lock.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "cli/child_run.h"

namespace futexsim::cli {

struct child_pool_hooks {
    // The work: whether any is left, and the next item.
    std::function<bool()> exhausted;
    std::function<std::size_t()> take;
    // The program's arguments for an item.
    std::function<std::vector<std::string>(std::size_t)> arguments;
    // A child ended, or could not be started.
    std::function<void(std::size_t, const child_result&)> ended;
    std::function<void(std::size_t, const std::system_error&)> unstartable;
    // Whether the pool stops taking work and waits for the children in
    // flight (a failure), and whether it also stops those as SIGINT does
    // (a warning under --fail-on-warning). sigint_received() does both.
    std::function<bool()> stopped;
    std::function<bool()> interrupting;
    // Called every 200 ms while children run, and once at the end (true).
    std::function<void(bool final)> progress;
};

// Runs `program` on the items `hooks` give, at most `jobs` at a time and
// at most `items` children in all, until the work is exhausted or stopped,
// and every child has ended.
void run_child_pool(const std::string& program, std::size_t jobs, std::size_t items,
                    const child_pool_hooks& hooks);

}  // namespace futexsim::cli

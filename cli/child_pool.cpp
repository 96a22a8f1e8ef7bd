// The child-process pool (cli/child_pool.h): worker threads that each run
// one child at a time, and the main thread that watches for the end and
// forwards a stop to the children in flight.
#include "cli/child_pool.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "run/stop_signal.h"

namespace futexsim::cli {

void run_child_pool(const std::string& program, std::size_t jobs, std::size_t items,
                    const child_pool_hooks& h)
{
    std::mutex mu;
    std::condition_variable cv;
    std::size_t running = 0;
    std::set<pid_t> children;

    auto worker = [&] {
        for (;;) {
            std::size_t item = 0;
            {
                std::lock_guard lock(mu);
                if (h.exhausted() || h.stopped() || h.interrupting() || sigint_received())
                    return;
                item = h.take();
                running++;
            }
            child_result r;
            try {
                r = run_child(program, h.arguments(item), [&](pid_t pid) {
                    std::lock_guard lock(mu);
                    children.insert(pid);
                });
            } catch (const std::system_error& e) {
                // No child (the executable replaced under the pool, no pipes
                // left): the caller decides; this thread takes no more.
                std::lock_guard lock(mu);
                running--;
                h.unstartable(item, e);
                cv.notify_all();
                return;
            }
            std::lock_guard lock(mu);
            running--;
            h.ended(item, r);
            cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    with_sigint_blocked([&] {
        for (std::size_t i = 0; i < std::min(jobs, items); i++)
            pool.emplace_back(worker);
    });

    // The main thread watches: progress, SIGINT (passed on to the children),
    // and the end.
    {
        std::unique_lock lock(mu);
        bool signalled = false;
        while (!(h.exhausted() && running == 0) && !(h.stopped() && running == 0) &&
               !(h.interrupting() && running == 0) && !(sigint_received() && running == 0)) {
            cv.wait_for(lock, std::chrono::milliseconds(200));
            // The first interruption stops the children in flight as SIGINT does.
            if ((sigint_received() || h.interrupting()) && !signalled) {
                signalled = true;
                for (pid_t pid : children)
                    kill(pid, SIGINT);
            }
            h.progress(false);
        }
        h.progress(true);
    }
    for (auto& t : pool)
        t.join();
}

}  // namespace futexsim::cli

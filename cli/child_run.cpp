#include "cli/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "run/stop_signal.h"

extern char** environ;

namespace futexsim::cli {

std::string self_executable()
{
    std::array<char, 4096> buf{};
    const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0)
        throw std::system_error(errno, std::generic_category(), "readlink /proc/self/exe");
    return std::string(buf.data(), static_cast<std::size_t>(n));
}

namespace {

// The child's side of the fork, up to execve(): only async-signal-safe calls
// (the parent has threads). It dies with the thread that started it, so a
// parent killed by SIGKILL leaves no run computing to its end; its stop
// signals are default, and it gets them only once they are (one sent
// between the fork and here stays pending and then ends it, as it would
// have ended the program). On failure it writes errno to `report`.
[[noreturn]] void child_failed(int report, int e)
{
    if (write(report, &e, sizeof e) < 0) {
    }
    _exit(127);
}

[[noreturn]] void exec_child(const char* program, char* const* argv, pid_t parent, int out, int err,
                             int report)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        child_failed(report, errno);
    if (getppid() != parent)
        child_failed(report, ESRCH);  // the parent died before the line above
    const int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) != 0 || dup2(out, 1) != 1 || dup2(err, 2) != 2)
        child_failed(report, errno);
    if (null != 0)
        close(null);
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    // A parent that ignores SIGPIPE must not pass that on either.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(program, argv, environ);
    child_failed(report, errno);
}

}  // namespace

child_result run_child_impl(const std::string& program, const std::vector<std::string>& args,
                            void (*on_start)(void*, pid_t), void* ctx)
{
    int out_pipe[2], err_pipe[2], exec_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        pipe2(exec_pipe, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");

    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    // Every signal blocked across the fork, so that none reaches the child
    // while it still runs this program's handlers.
    const pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t pid = fork();
    if (pid == 0)
        exec_child(program.c_str(), argv.data(), parent, out_pipe[1], err_pipe[1], exec_pipe[1]);
    const int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(exec_pipe[1]);
    // The exec pipe closes on a successful execve(); else it holds errno.
    int exec_errno = 0;
    if (pid > 0)
        while (read(exec_pipe[0], &exec_errno, sizeof exec_errno) < 0 && errno == EINTR) {
        }
    close(exec_pipe[0]);
    if (pid < 0 || exec_errno != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        if (pid > 0)
            while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
            }
        throw std::system_error(pid < 0 ? fork_errno : exec_errno, std::generic_category(),
                                (pid < 0 ? "fork for " : "exec ") + program);
    }
    on_start(ctx, pid);

    // Both pipes at once, so that a child filling one cannot block on it.
    child_result r;
    std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
    std::array<std::string*, 2> sinks{&r.out, &r.err};
    int open_fds = 2;
    std::array<char, 65536> buf{};
    bool passed_on = false;
    while (open_fds > 0) {
        // A stop (SIGINT, SIGTERM, SIGHUP) reaches the child too, however
        // the parent waits: it stops at its safe point and the parent sees
        // its status, so no child outlives the command.
        if (!passed_on && sigint_received()) {
            passed_on = true;
            kill(pid, SIGINT);
        }
        if (poll(fds.data(), fds.size(), 200) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (std::size_t i = 0; i < fds.size(); i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = read(fds[i].fd, buf.data(), buf.size());
            if (n > 0) {
                sinks[i]->append(buf.data(), static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace futexsim::cli

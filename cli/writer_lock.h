// One writer per results file: a sweep holds a lock on its --out for its
// life, `sensitivity` one on its --out-dir, so that the same command
// started twice is refused in one line instead of both appending (a file
// with every run twice, which resume and report then refuse for good).
// The lock is an open-file-description lock (F_OFD_SETLK): it stays held
// however many times the process opens and closes the file meanwhile (a
// classic POSIX lock would go with the first close()), it is released by
// the kernel when the process dies however it dies, and it works over NFS.
#pragma once

#include <string>

namespace futexsim::cli {

class writer_lock {
public:
    // Creates `path` if it is missing (mode 0644, as the writer would) and
    // locks it for writing; a usage_error naming `what` and `shown` (the
    // path the user gave: a folder, for a lock on a file in it) if another
    // process holds it.
    writer_lock(const std::string& what, const std::string& path, const std::string& shown = "");
    ~writer_lock();
    writer_lock(const writer_lock&) = delete;
    writer_lock& operator=(const writer_lock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace futexsim::cli

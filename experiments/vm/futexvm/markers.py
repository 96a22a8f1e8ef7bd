"""The markers the guest's init prints on the serial console around each
command, and the parser that turns the console back into per-command
output and exit statuses. The console is the only channel out of the guest
(no 9p, no network), so everything the host learns goes through here.

A marker may follow a command's last output on the same line (output that
ends without a newline); the text before it is the command's."""

import re

PREFIX = "@@futexvm"
_MARKER = re.compile(re.escape(PREFIX) + r" (BOOTED|BEGIN|END|DONE)\b ?(.*)$")
_END = re.compile(r"^(\d+) rc=(\d+)$")
_BEGIN = re.compile(r"^(\d+)$")
# What the kernel prints when it panics (kernel/panic.c); the console shows
# it whatever the loglevel, as it is KERN_EMERG.
_PANIC = re.compile(r"Kernel panic - not syncing: ?(.*)$")


def begin(i):
    return f"{PREFIX} BEGIN {i}"


def end(i, rc_expr):
    return f"{PREFIX} END {i} rc={rc_expr}"


BOOTED = f"{PREFIX} BOOTED"
DONE = f"{PREFIX} DONE"


class Command:
    def __init__(self, index):
        self.index = index
        self.lines = []
        self.rc = None  # None: no END marker seen (cut short)


class Console:
    """Fed the console line by line; each feed returns the events worth
    showing as they come: ("booted", info), ("begin", i), ("output", i,
    line), ("end", i, rc), ("done",), ("panic", message)."""

    def __init__(self):
        self.booted = None
        self.commands = {}
        self.current = None
        self.done = False
        self.panic = None
        self.errors = []

    def feed(self, line):
        line = line.rstrip("\r\n").replace("\r", "")
        events = []
        m = _MARKER.search(line)
        text = line[:m.start()] if m else line
        if self.current is not None and (text or not m):
            self.current.lines.append(text)
            events.append(("output", self.current.index, text))
        p = _PANIC.search(line)
        if p and self.panic is None:
            self.panic = p.group(1).strip() or "(no message)"
            events.append(("panic", self.panic))
        if not m:
            return events
        kind, rest = m.group(1), m.group(2).strip()
        if kind == "BOOTED":
            self.booted = rest
            events.append(("booted", rest))
        elif kind == "BEGIN":
            b = _BEGIN.match(rest)
            if not b:
                self.errors.append(f"malformed marker: {line!r}")
                return events
            i = int(b.group(1))
            self.current = self.commands.setdefault(i, Command(i))
            events.append(("begin", i))
        elif kind == "END":
            e = _END.match(rest)
            if not e or self.current is None or int(e.group(1)) != self.current.index:
                self.errors.append(f"malformed or unexpected marker: {line!r}")
                return events
            self.current.rc = int(e.group(2))
            events.append(("end", self.current.index, self.current.rc))
            self.current = None
        elif kind == "DONE":
            self.done = True
            events.append(("done",))
        return events

    def feed_text(self, text):
        for line in text.splitlines():
            self.feed(line)
        return self

    def verdict(self, expected):
        """(status, message) once the guest is gone, for `expected` commands:
        0 every command ran and exited 0; 1 a command exited non-zero;
        3 the guest ended before reporting every command (a panic, output
        cut short, no boot)."""
        if self.panic is not None:
            return 3, f"the guest kernel panicked: {self.panic}"
        if self.booted is None:
            return 3, "the guest never reached its init script (no BOOTED marker)"
        for i in range(1, expected + 1):
            c = self.commands.get(i)
            if c is None:
                return 3, f"the guest ended before command {i} began"
            if c.rc is None:
                return 3, f"the output of command {i} is cut short (no END marker)"
        if not self.done:
            return 3, "the guest ended before its DONE marker"
        if self.errors:
            return 3, self.errors[0]
        failed = [i for i in range(1, expected + 1) if self.commands[i].rc != 0]
        if failed:
            return 1, "command(s) " + ", ".join(map(str, failed)) + " exited non-zero"
        return 0, f"all {expected} command(s) exited 0"

"""Bad input as one line on stderr and exit status 2, for both scripts:
the error, the argument parser, and the reading of a text or JSON file
the user named."""

import argparse
import json
import os
import sys


class Bad(Exception):
    """Input the script refuses; main() prints it as one line, exit status 2."""


def fail(tool, message):
    print(f"{tool}: {message}", file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    """argparse's usage errors as the scripts' other bad input: one line
    naming the script (argparse would print the usage too), exit status 2."""

    def __init__(self, tool, **kwargs):
        super().__init__(**kwargs)
        self.tool = tool

    def error(self, message):
        fail(self.tool, f"{message} (see --help)")


def read_text(path, label):
    """The file at path as UTF-8 text; Bad naming it as label (the path, or
    the flag and the path) when it cannot be read or decoded."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as e:
        raise Bad(f"cannot read {label}: {e.strerror}")
    except UnicodeDecodeError as e:
        raise Bad(f"{label} is not UTF-8 text (byte {e.start})")


def read_named(path, what):
    """A file a flag of count_sites names (~ expanded: the defaults are
    under ~/.cache), Bad naming the flag too."""
    return read_text(os.path.expanduser(path), f"{what} {path}")


def load_json(path, label):
    """read_text, parsed as JSON; Bad naming it as label when it is not."""
    try:
        return json.loads(read_text(path, label))
    except json.JSONDecodeError as e:
        raise Bad(f"{label} is not JSON: {e}")

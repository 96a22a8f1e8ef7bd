"""A gzip-compressed cpio archive in the "newc" format, the one the kernel
unpacks as an initramfs (Documentation/driver-api/early-userspace/
buffer-format.rst). Written here rather than with cpio(1) so that building
an initramfs needs nothing beyond Python, and so that its contents can be
listed back in the tests without a tool either."""

import gzip
import stat

_MAGIC = b"070701"
_TRAILER = "TRAILER!!!"


def _pad4(n):
    return (4 - n % 4) % 4


def _header(name, mode, size, ino, rdev=(0, 0)):
    # ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor
    # rdevminor namesize check
    fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
    return _MAGIC + b"".join(b"%08X" % f for f in fields)


class Writer:
    """Entries are added in order; a directory must be added before what is
    in it (the kernel creates each path as it reads it)."""

    def __init__(self):
        self._out = bytearray()
        self._ino = 1

    def _entry(self, name, mode, data, rdev=(0, 0)):
        name_b = name.lstrip("/").encode()
        hdr = _header(name_b, mode, len(data), self._ino, rdev)
        self._ino += 1
        self._out += hdr + name_b + b"\0"
        self._out += b"\0" * _pad4(len(hdr) + len(name_b) + 1)
        self._out += data + b"\0" * _pad4(len(data))

    def directory(self, name, perm=0o755):
        self._entry(name, stat.S_IFDIR | perm, b"")

    def file(self, name, data, perm=0o644):
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, perm=0o600):
        self._entry(name, stat.S_IFCHR | perm, b"", (major, minor))

    def gzipped(self):
        """The archive, trailer included, gzip-compressed (mtime 0 so that the
        same contents give the same bytes)."""
        out = bytes(self._out)
        hdr = _header(_TRAILER.encode(), 0, 0, 0)
        out += hdr + _TRAILER.encode() + b"\0" + b"\0" * _pad4(len(hdr) + len(_TRAILER) + 1)
        return gzip.compress(out, compresslevel=6, mtime=0)


def entries(gz_bytes):
    """Lists an archive written by Writer (or any newc archive): a list of
    (name, mode, data), the trailer left out."""
    raw = gzip.decompress(gz_bytes)
    pos, out = 0, []
    while pos + 110 <= len(raw):
        if raw[pos:pos + 6] != _MAGIC:
            raise ValueError(f"not a newc cpio header at offset {pos}")
        f = [int(raw[pos + 6 + 8 * i: pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        name_start = pos + 110
        name = raw[name_start:name_start + namesize - 1].decode()
        data_start = name_start + namesize + _pad4(110 + namesize)
        data = raw[data_start:data_start + size]
        pos = data_start + size + _pad4(size)
        if name == _TRAILER:
            break
        out.append((name, mode, data))
    return out

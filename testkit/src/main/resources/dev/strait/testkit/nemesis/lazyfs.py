#!/usr/bin/env python3
"""A lazy disk for the nemesis: a FUSE passthrough that forgets unsynced writes on command (a power loss).

Usage: lazyfs.py BACKING_DIR MOUNT_POINT [--write-back-age-ms MS]

The mount shows BACKING_DIR. Data written to a file (write, truncate) is not put in the backing file at once: it is
kept in memory, per file, as an ordered list of pending operations, and reads see the backing file with those
operations laid over it. Pending operations reach the backing file when
  * the file is fsynced or fdatasynced (fsync(2), fdatasync(2), msync(2) of a mapping of it), or
  * the file's oldest pending operation is older than the write-back age (default 30 s: the kernel's
    dirty_expire_centisecs; like the kernel, which writes back an inode whose first dirtying expired, the whole
    file's pending list goes then).
The command "lose" drops every pending operation of every file: what was neither synced nor written back is gone,
as after a power cut. Namespace operations (create, mkdir, unlink, rename, link, symlink, rmdir, chmod) go to the
backing directory at once and survive a loss, as on a file system with synchronous metadata journalling; only file
contents (writes, truncates, O_TRUNC) are lazy. A rename moves the pending contents with the file, so a file
renamed over another before it was synced comes back empty or short after a loss (ext4 without auto_da_alloc).

Shared writable mmap works (no direct_io): the kernel writes dirty mapped pages back to this daemon as ordinary
writes (on msync, munmap, fsync, or its own write-back), and from then on they are pending like any write; msync
with MS_SYNC arrives as an fsync. Mapped pages the kernel has not written back yet belong to the page cache; the
harness runs `sync -f` on the mount after killing the node and before "lose", which pushes them here as plain
(unsynced) writes, so they are lost too. The mount uses zero attribute and entry timeouts, and files are opened
without keep_cache, so a process opening a file after a loss does not see cached pages of lost data.

Commands, one per line on stdin, each answered with one line on stdout:
  lose   -> "lost <bytes> bytes in <files> files"   drop every pending operation
  flush  -> "flushed <files> files"                  write every pending operation to the backing files
  stats  -> "pending <bytes> bytes in <files> files"
  quit   -> "bye", then unmount
"ready" is printed once the file system is mounted. End of stdin unmounts too (the harness died).
Diagnostics go to stderr.
"""

import errno
import os
import subprocess
import sys
import threading
import time

try:
    from fusepy import FUSE, FuseOSError, Operations  # Debian's python3-fusepy
except ImportError:
    from fuse import FUSE, FuseOSError, Operations  # fusepy from PyPI


class Pending:
    """The unsynced contents of one file: ordered writes and truncates over the backing file."""

    def __init__(self, size, now):
        self.ops = []  # ("w", offset, bytearray) or ("t", size)
        self.size = size  # the file's size as seen through the mount
        self.since = now  # when the oldest pending operation was made

    def write(self, offset, data):
        last = self.ops[-1] if self.ops else None
        if last is not None and last[0] == "w" and last[1] + len(last[2]) == offset:
            last[2].extend(data)  # an append to the previous write: one operation, same age
        else:
            self.ops.append(("w", offset, bytearray(data)))
        self.size = max(self.size, offset + len(data))

    def truncate(self, size):
        self.ops.append(("t", size))
        self.size = size

    def bytes(self):
        return sum(len(op[2]) if op[0] == "w" else 0 for op in self.ops)

    def overlay(self, buf, offset):
        """Lays the pending operations over buf, which holds the backing bytes from offset on."""
        end = offset + len(buf)
        for op in self.ops:
            if op[0] == "t":
                cut = op[1] - offset
                if cut < len(buf):
                    start = max(0, cut)
                    buf[start:] = bytes(len(buf) - start)
            else:
                w_off, data = op[1], op[2]
                lo = max(offset, w_off)
                hi = min(end, w_off + len(data))
                if lo < hi:
                    buf[lo - offset:hi - offset] = data[lo - w_off:hi - w_off]


class LazyFs(Operations):
    def __init__(self, backing, write_back_age_s):
        self.backing = os.path.realpath(backing)
        self.age = write_back_age_s
        self.mutex = threading.RLock()
        self.pending = {}  # mount path -> Pending
        self.next_fh = 1
        self.ready = threading.Event()

    def real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    # ---- pending state -------------------------------------------------------------------------------------------

    def _pending_for(self, path):
        p = self.pending.get(path)
        if p is None:
            p = Pending(os.lstat(self.real(path)).st_size, time.monotonic())
            self.pending[path] = p
        return p

    def _apply(self, path, sync):
        """Writes path's pending operations to its backing file (and fsyncs it if sync)."""
        p = self.pending.pop(path, None)
        if p is None and not sync:
            return
        fd = os.open(self.real(path), os.O_WRONLY)
        try:
            if p is not None:
                for op in p.ops:
                    if op[0] == "t":
                        os.ftruncate(fd, op[1])
                    else:
                        os.pwrite(fd, op[2], op[1])
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def write_back_expired(self):
        while True:
            time.sleep(0.5)
            with self.mutex:
                now = time.monotonic()
                for path in [k for k, v in self.pending.items() if now - v.since >= self.age]:
                    try:
                        self._apply(path, False)
                    except OSError as e:
                        print("lazyfs: write-back of %s failed: %s" % (path, e), file=sys.stderr, flush=True)

    def command(self, line):
        with self.mutex:
            if line == "lose":
                files = len(self.pending)
                lost = sum(p.bytes() for p in self.pending.values())
                self.pending.clear()
                return "lost %d bytes in %d files" % (lost, files)
            if line == "flush":
                files = len(self.pending)
                for path in list(self.pending):
                    self._apply(path, False)
                return "flushed %d files" % files
            if line == "stats":
                return "pending %d bytes in %d files" % (
                    sum(p.bytes() for p in self.pending.values()), len(self.pending))
        return "error: unknown command '%s' (lose, flush, stats, quit)" % line

    # ---- FUSE operations -----------------------------------------------------------------------------------------

    def init(self, path):
        self.ready.set()

    def getattr(self, path, fh=None):
        with self.mutex:
            st = os.lstat(self.real(path))
            attrs = {k: getattr(st, k) for k in (
                "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")}
            p = self.pending.get(path)
            if p is not None:
                attrs["st_size"] = p.size
            return attrs

    def access(self, path, amode):
        if not os.access(self.real(path), amode):
            raise FuseOSError(errno.EACCES)

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self.real(path))

    def readlink(self, path):
        return os.readlink(self.real(path))

    def statfs(self, path):
        sv = os.statvfs(self.real(path))
        return {k: getattr(sv, k) for k in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
            "f_frsize", "f_namemax")}

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self.real(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self.real(path), times)

    def mkdir(self, path, mode):
        os.mkdir(self.real(path), mode)

    def rmdir(self, path):
        os.rmdir(self.real(path))

    def symlink(self, target, source):
        os.symlink(source, self.real(target))

    def link(self, target, source):
        with self.mutex:
            # A hard link is made of the synced contents; the pending ones are written first so both names agree.
            if source in self.pending:
                self._apply(source, False)
            os.link(self.real(source), self.real(target))

    def unlink(self, path):
        with self.mutex:
            os.unlink(self.real(path))
            self.pending.pop(path, None)

    def rename(self, old, new):
        with self.mutex:
            os.rename(self.real(old), self.real(new))
            self.pending.pop(new, None)
            prefix = old.rstrip("/") + "/"
            for key in list(self.pending):
                if key == old:
                    self.pending[new] = self.pending.pop(key)
                elif key.startswith(prefix):
                    self.pending[new.rstrip("/") + "/" + key[len(prefix):]] = self.pending.pop(key)

    def _open(self, path, flags):
        if flags & os.O_TRUNC:
            self._pending_for(path).truncate(0)
        fh = self.next_fh
        self.next_fh += 1
        return fh

    def create(self, path, mode, fi=None):
        with self.mutex:
            real = self.real(path)
            existed = os.path.exists(real)
            fd = os.open(real, os.O_WRONLY | os.O_CREAT, mode)
            os.close(fd)
            return self._open(path, os.O_TRUNC if existed else 0)

    def open(self, path, flags):
        with self.mutex:
            fd = os.open(self.real(path), flags & ~(os.O_TRUNC | os.O_CREAT | os.O_EXCL | os.O_APPEND))
            os.close(fd)  # permissions and existence checked by the backing file system
            return self._open(path, flags)

    def read(self, path, size, offset, fh):
        with self.mutex:
            p = self.pending.get(path)
            fd = os.open(self.real(path), os.O_RDONLY)
            try:
                if p is None:
                    return os.pread(fd, size, offset)
                n = max(0, min(size, p.size - offset))
                buf = bytearray(n)
                got = os.pread(fd, n, offset)
                buf[:len(got)] = got
                p.overlay(buf, offset)
                return bytes(buf)
            finally:
                os.close(fd)

    def write(self, path, data, offset, fh):
        with self.mutex:
            self._pending_for(path).write(offset, data)
            return len(data)

    def truncate(self, path, length, fh=None):
        with self.mutex:
            self._pending_for(path).truncate(length)

    def fsync(self, path, datasync, fh):
        with self.mutex:
            self._apply(path, True)

    def fsyncdir(self, path, datasync, fh):
        return 0  # namespace operations are already durable

    def flush(self, path, fh):
        return 0  # close(2) does not sync

    def release(self, path, fh):
        return 0


def main():
    args = sys.argv[1:]
    age_ms = 30_000
    if "--write-back-age-ms" in args:
        i = args.index("--write-back-age-ms")
        age_ms = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    backing, mount = args
    fs = LazyFs(backing, age_ms / 1000.0)

    def control():
        fs.ready.wait()
        print("ready", flush=True)
        for raw in sys.stdin:
            line = raw.strip()
            if line == "quit":
                print("bye", flush=True)
                break
            if line:
                try:
                    answer = fs.command(line)
                except OSError as e:
                    answer = "error: %s" % e
                print(answer, flush=True)
        if subprocess.run(["umount", mount], check=False).returncode != 0:
            # Busy (a live mapping, an open file): detach it now and go; later access fails with ENOTCONN.
            subprocess.run(["umount", "-l", mount], check=False)
            os._exit(0)

    threading.Thread(target=fs.write_back_expired, daemon=True).start()
    threading.Thread(target=control, daemon=True).start()
    FUSE(fs, mount, foreground=True, nothreads=False, allow_other=True, attr_timeout=0, entry_timeout=0,
         negative_timeout=0, big_writes=True, fsname="lazyfs")


if __name__ == "__main__":
    main()

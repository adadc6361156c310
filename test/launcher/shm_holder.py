#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# For t_harness_shm.sh: make N objects <dir>/locus-hold<i>-0-<16 hex>/rings,
# hold each open and mapped for SECS seconds (as a concurrent job's ranks
# hold their segments during MPI_Init), then remove them.  Prints "held"
# once all are in place.  With "unnamed", each is made the way the library
# makes a ring segment (lc_shm.c): unnamed in <dir> (O_TMPFILE), then
# linked into its new directory, so that the descriptor and the mapping
# that hold it read "<dir>/#<inode> (deleted)" in /proc, not its name;
# and locked (an fcntl write lock on the whole object, taken before it is
# linked), as lc_shm_hold locks a segment for its creator's life.
import fcntl
import mmap
import os
import shutil
import sys
import time

where, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
unnamed = len(sys.argv) > 4 and sys.argv[4] == "unnamed"
keep, made = [], []
for i in range(n):
    d = os.path.join(where, "locus-hold%d-0-%016x" % (i, i))
    if unnamed:
        fd = os.open(where, os.O_TMPFILE | os.O_RDWR, 0o600)
        os.ftruncate(fd, 4096)
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.mkdir(d, 0o700)
        # dst_dir_fd makes Python call linkat(AT_SYMLINK_FOLLOW), not link()
        dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        os.link("/proc/self/fd/%d" % fd, "rings", dst_dir_fd=dfd, follow_symlinks=True)
        os.close(dfd)
    else:
        os.mkdir(d, 0o700)
        fd = os.open(os.path.join(d, "rings"), os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, 4096)
    made.append(d)
    keep.append((fd, mmap.mmap(fd, 4096)))
print("held", flush=True)
time.sleep(secs)
for d in made:
    shutil.rmtree(d, ignore_errors=True)

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# For t_harness_shm.sh: make N objects <dir>/locus-hold<i>-0-<16 hex>/rings,
# hold each open and mapped for SECS seconds (as a concurrent job's ranks
# hold their segments during MPI_Init), then remove them.  Prints "held"
# once all are in place.
import mmap
import os
import shutil
import sys
import time

where, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
keep, made = [], []
for i in range(n):
    d = os.path.join(where, "locus-hold%d-0-%016x" % (i, i))
    os.mkdir(d, 0o700)
    made.append(d)
    fd = os.open(os.path.join(d, "rings"), os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, 4096)
    keep.append((fd, mmap.mmap(fd, 4096)))
print("held", flush=True)
time.sleep(secs)
for d in made:
    shutil.rmtree(d, ignore_errors=True)

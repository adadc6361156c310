#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Another user's process against a starting job's shared-memory segments
(t_shm_preempt.sh, run as nobody).

    shm_attacker.py DIR PREFIX READY STOP

Watches DIR for names starting with PREFIX (locus-lc<mpiexec pid>x): the
first one gives the job's kvsname.  Then, at once, it takes the names the
job would use if they were predictable (locus-<kvsname>-<rank>, and the
window segments locus-<kvsname>-w0-<n>: files, and a symbolic link), and
it tries every object of the job it sees: a segment's directory
(locus-<kvsname>-<rank>-<token>, mode 0700) it tries to list, to create a
file in, and to open the segment in it ("rings", "win") for reading and
for writing; a file (the form before the directories) it tries to open.
Prints KVS <name>, PLANTED <path>, TRIED <path> <errors>, and for what
worked LISTED / WROTE / OPENED <path>.  Touches READY once it watches;
ends when STOP exists (or after 60 s)."""
import errno
import os
import sys
import time

d, prefix, ready, stop = sys.argv[1:5]
open(ready, "w").close()
kvs = None
tried = set()
deadline = time.time() + 60
while time.time() < deadline and not os.path.exists(stop):
    try:
        names = os.listdir(d)
    except OSError:
        names = []
    for n in names:
        if not n.startswith(prefix):
            continue
        if kvs is None:
            rest = n[len("locus-"):]
            kvs = rest[: rest.index("-")]
            print("KVS", kvs, flush=True)
            for x in ["0", "1", "2", "w0-0", "w0-1", "w0-2"]:
                p = os.path.join(d, "locus-%s-%s" % (kvs, x))
                try:
                    os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o666))
                    print("PLANTED", p, flush=True)
                except OSError:
                    pass
            p = os.path.join(d, "locus-%s-3" % kvs)
            try:
                os.symlink("/etc/passwd", p)
                print("PLANTED", p, flush=True)
            except OSError:
                pass
        p = os.path.join(d, n)
        if n in tried:
            continue
        try:
            if os.lstat(p).st_uid == os.getuid():
                continue  # planted by us
        except OSError:
            continue  # already unlinked by the job
        tried.add(n)
        why = []

        def failed(e):
            why.append(errno.errorcode.get(e.errno, str(e.errno)))

        targets = [p]
        try:
            isdir = os.path.isdir(p) and not os.path.islink(p)
        except OSError:
            isdir = False
        if isdir:
            try:
                print("LISTED", p, os.listdir(p), flush=True)
            except OSError as e:
                failed(e)
            try:
                os.close(os.open(os.path.join(p, "planted"), os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o666))
                print("WROTE", os.path.join(p, "planted"), flush=True)
            except OSError as e:
                failed(e)
            targets = [os.path.join(p, "rings"), os.path.join(p, "win")]
        for t in targets:
            for how in (os.O_RDONLY, os.O_RDWR):
                try:
                    os.close(os.open(t, how | os.O_NOFOLLOW))
                    print("OPENED", t, flush=True)
                except OSError as e:
                    failed(e)
        print("TRIED", "directory" if isdir else "file", p, " ".join(why), flush=True)
    time.sleep(0.0005)
print("SEEN", len(tried), flush=True)

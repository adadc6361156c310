#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""kill_on_create.py DIR PIDFILE: once a file appears in DIR (inotify),
stop and then SIGKILL the process whose pid PIDFILE holds and every process
below it, all at once: a job killed whole while its segments still have
names (during MPI_Init).  Prints WATCHING once the watch is set, then
KILLED <n> (processes) or NONE (no file appeared within 30 s)."""
import ctypes
import os
import select
import signal
import sys
import time

IN_CREATE = 0x100


def tree(root):
    """root and every process below it (one pass over /proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def main():
    directory, pidfile = sys.argv[1], sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0 or libc.inotify_add_watch(fd, directory.encode(), IN_CREATE) < 0:
        print("NOINOTIFY", flush=True)
        return 1
    print("WATCHING", flush=True)
    ready, _, _ = select.select([fd], [], [], 30)
    if not ready:
        print("NONE", flush=True)
        return 0
    deadline = time.time() + 5
    while not os.path.exists(pidfile) and time.time() < deadline:
        time.sleep(0.001)
    with open(pidfile) as f:
        root = int(f.read().split()[0])
    procs = tree(root)
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for p in procs:
            try:
                os.kill(p, sig)
            except OSError:
                pass
    print(f"KILLED {len(procs)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""trust_attacker.py: what another user of a node can try against a Locus
job's launcher (issue 12, points 1 and 2).  The launcher tests run it as
`nobody` (setpriv); each command prints what it achieved and exits 0 when
the launcher held, 1 when the attack worked, 2 on bad usage.

    scrape                         print every launch secret visible in
                                   /proc/*/cmdline and /proc/*/environ:
                                   the words after `--proxy ADDR PORT INDEX`
    scan                           exit 1 if any secret (one a line on stdin,
                                   so not on our own command line) appears in
                                   a readable /proc/*/cmdline or environ
    impersonate ADDR PORT INDEX [TOKEN...]
                                   connect as the proxy of host INDEX with each
                                   TOKEN (scraped, or none), in the old (token
                                   in HELLO) and new (HMAC proof) handshakes;
                                   exit 1 if mpiexec sends the job
    bigframe ADDR PORT PID         announce a 64 MiB frame before any
                                   authentication and stream its bytes; exit 1
                                   if the connection stays open for more than
                                   1 s or mpiexec (PID) grew by 16 MiB or more
    flood ADDR PORT N SECONDS      hold N unauthenticated connections (opening
                                   new ones as they are closed) for SECONDS,
                                   saying every second how it goes
    refused ADDR PORT              exit 1 if a connection to ADDR PORT succeeds
    fake-mpiexec PORTFILE MODE [KEYHEX]
                                   listen on 127.0.0.1, write the port to
                                   PORTFILE, and answer one proxy as an
                                   impostor mpiexec: MODE `forged` sends a
                                   challenge with a wrong proof, then a job;
                                   `direct` sends the job at once, with no
                                   challenge; `bigframe` announces a 64 MiB
                                   frame;
                                   `honest` proves KEYHEX correctly (the
                                   control: it shows a well-formed job is
                                   obeyed).  The job runs `touch MARKER`
                                   (MARKER = $LC_MARKER).
    rogue-proxy ADDR PORT INDEX RANK
                                   a proxy that knows its host's key (the
                                   agent's key line on stdin: a host whose
                                   proxy is compromised) and passes the
                                   handshake as host INDEX, then relays for
                                   its own first rank (STARTED, a line of
                                   output: the control) and, 0.5 s later, a
                                   line of output and a PMI put for RANK, a
                                   rank of another host; exit 1 if mpiexec
                                   keeps the connection for 5 s after that
"""

import hashlib
import hmac
import os
import re
import select
import socket
import struct
import sys
import time

OLD_MAGIC = b"locus-mpiexec-proxy-1"
NEW_MAGIC = b"locus-mpiexec-proxy-2"
HELLO, PROOF, JOB, CHALLENGE, END = 1, 15, 64, 71, 70
MPIEXEC_LABEL = b"locus-mpiexec-key-proof\0"
PROXY_LABEL = b"locus-proxy-key-proof\0"


def frame(ftype, payload, rank=-1):
    return struct.pack(">IiI", ftype, rank, len(payload)) + payload


def s(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack(">I", len(b) + 1) + b + b"\0"


def blob(b):
    return struct.pack(">I", len(b)) + b


def u32(v):
    return struct.pack(">I", v)


def read_frame(sock, timeout):
    """(type, payload) or None on EOF/timeout."""
    sock.settimeout(timeout)
    buf = b""
    try:
        while len(buf) < 12:
            got = sock.recv(12 - len(buf))
            if not got:
                return None
            buf += got
        ftype, _, length = struct.unpack(">IiI", buf)
        if length > 1 << 20:
            return (ftype, None)
        payload = b""
        while len(payload) < length:
            got = sock.recv(length - len(payload))
            if not got:
                return None
            payload += got
        return (ftype, payload)
    except (socket.timeout, OSError):
        return None


def proc_texts():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for what in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, what), "rb") as f:
                    yield pid, what, f.read()
            except OSError:
                pass


def cmd_scrape(_args):
    found = set()
    for _, _, text in proc_texts():
        flat = text.replace(b"\0", b" ").decode(errors="replace")
        for m in re.finditer(r"--proxy\s+(\S+)\s+(\S+)\s+(\S+)((?:\s+[^\s'\"]+)*)", flat):
            for w in m.group(4).split():
                found.add(w)
    for w in sorted(found):
        print(w)
    return 0


def cmd_scan(_args):
    leaked = 0
    secrets = [line.strip().encode() for line in sys.stdin if line.strip()]
    for pid, what, text in proc_texts():
        for sec in secrets:
            if sec in text:
                print("LEAK: /proc/%s/%s holds the secret %s..." % (pid, what, sec[:8].decode()))
                leaked = 1
    if not leaked:
        print("no secret readable in /proc (%d secrets checked)" % len(secrets))
    return leaked


def try_old(addr, port, index, token):
    sock = socket.create_connection((addr, port), timeout=3)
    sock.sendall(frame(HELLO, s(OLD_MAGIC) + s(token) + u32(index) + s("attacker") + u32(os.getpid())))
    got = read_frame(sock, 2)
    sock.close()
    return got


def try_new(addr, port, index, token):
    sock = socket.create_connection((addr, port), timeout=3)
    nonce_p = os.urandom(32)
    sock.sendall(frame(HELLO, s(NEW_MAGIC) + u32(index) + blob(nonce_p)))
    got = read_frame(sock, 2)
    if got is None or got[0] != CHALLENGE or got[1] is None or len(got[1]) < 4 + 32:
        sock.close()
        return got
    nonce_m = got[1][4:36]
    key = bytes.fromhex(token) if re.fullmatch(r"([0-9a-f]{2})+", token or "") else (token or "").encode()
    mac = hmac.new(key, PROXY_LABEL + u32(index) + nonce_p + nonce_m, hashlib.sha256).digest()
    sock.sendall(frame(PROOF, blob(mac) + s("attacker") + u32(os.getpid())))
    got = read_frame(sock, 2)
    sock.close()
    return got


def cmd_impersonate(args):
    addr, port, index = args[0], int(args[1]), int(args[2])
    tokens = args[3:] or [""]
    won = 0
    for token in tokens:
        for name, attempt in (("old", try_old), ("new", try_new)):
            try:
                got = attempt(addr, port, index, token)
            except OSError as e:
                print("%s handshake with token '%s': %s" % (name, token[:8], e))
                continue
            if got is not None and got[0] == JOB:
                print("BROKEN: %s handshake with token '%s...' received the job (%d bytes)"
                      % (name, token[:8], len(got[1] or b"")))
                won = 1
            else:
                print("%s handshake with token '%s': refused" % (name, token[:8]))
    return won


def vm_kib(pid, field):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cmd_bigframe(args):
    addr, port, pid = args[0], int(args[1]), args[2]
    before = vm_kib(pid, "VmHWM")
    sock = socket.create_connection((addr, port), timeout=3)
    size = 64 << 20
    sock.sendall(struct.pack(">IiI", HELLO, -1, size))
    chunk = b"\0" * 65536
    sent, t0, closed = 0, time.monotonic(), False
    sock.setblocking(False)
    while sent < size and time.monotonic() - t0 < 6:
        r, w, _ = select.select([sock], [sock], [], 0.2)
        if r:
            try:
                if not sock.recv(4096):
                    closed = True
                    break
            except OSError:
                closed = True
                break
        if w:
            try:
                sent += sock.send(chunk)
            except BlockingIOError:
                pass
            except OSError:
                closed = True
                break
    open_s = time.monotonic() - t0
    sock.close()
    time.sleep(0.2)
    grew = (vm_kib(pid, "VmHWM") - before) // 1024
    print("64 MiB frame header: connection %s after %.2f s, %d KiB sent, mpiexec's peak memory grew %d MiB"
          % ("closed" if closed else "still open", open_s, sent // 1024, grew))
    return 0 if closed and open_s < 1.0 and grew < 16 else 1


def cmd_flood(args):
    addr, port, n, secs = args[0], int(args[1]), int(args[2]), float(args[3])
    socks, opened, closed, t_end = [], 0, 0, time.monotonic() + secs
    t_say = time.monotonic()
    while time.monotonic() < t_end:
        try:
            socket.create_connection((addr, port), timeout=1).close()
            opened += 1
        except ConnectionRefusedError:
            print("flood: the listener is closed; stopping")
            break
        except OSError:
            pass
        if time.monotonic() >= t_say:
            print("flood: %d connections opened, %d closed by the other side, %d held"
                  % (opened, closed, len(socks)), flush=True)
            t_say += 1
        while len(socks) < n:
            try:
                c = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
                c.setblocking(False)
                c.connect_ex((addr, port))
                socks.append(c)
                opened += 1
            except OSError:
                break
        r, _, _ = select.select(socks, [], [], 0.05)
        for c in r:
            try:
                if c.recv(4096):
                    continue
            except OSError:
                pass
            c.close()
            socks.remove(c)
            closed += 1
        time.sleep(0.001)  # at most ~1000 new connections a second
    print("flood: %d connections opened, %d closed by the other side, %d held at the end"
          % (opened, closed, len(socks)))
    return 0


def cmd_refused(args):
    try:
        c = socket.create_connection((args[0], int(args[1])), timeout=2)
    except OSError as e:
        print("connection to %s port %s refused: %s" % (args[0], args[1], e))
        return 0
    c.close()
    print("BROKEN: connection to %s port %s accepted" % (args[0], args[1]))
    return 1


def job_payload(marker):
    argv = ["/bin/sh", "-c", "touch '%s'" % marker]
    return (s("lcattack") + u32(1) + u32(0) + s("/") + u32(len(argv)) + b"".join(s(a) for a in argv)
            + u32(1) + s("PATH=/usr/bin:/bin") + u32(1) + u32(0))


def cmd_fake_mpiexec(args):
    portfile, mode = args[0], args[1]
    key = bytes.fromhex(args[2]) if len(args) > 2 else os.urandom(32)
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    lsock.settimeout(15)
    conn, _ = lsock.accept()
    hello = read_frame(conn, 5)
    if hello is None:
        print("fake mpiexec: no HELLO")
        return 0
    if mode == "bigframe":
        try:
            conn.sendall(struct.pack(">IiI", CHALLENGE, -1, 64 << 20))
            conn.settimeout(0.2)
            sent, t0 = 0, time.monotonic()
            while time.monotonic() - t0 < 5:
                try:
                    sent += conn.send(b"\0" * 65536)
                except socket.timeout:
                    pass
        except OSError:
            pass
        print("fake mpiexec: bigframe, the proxy hung up after %.2f s" % (time.monotonic() - t0))
        return 0
    if mode == "direct":
        try:
            conn.sendall(frame(JOB, job_payload(os.environ["LC_MARKER"])))
            serve_job(conn)
        except OSError as e:
            print("fake mpiexec: %s" % e)
        return 0
    p = hello[1] or b""
    # HELLO: str magic, u32 index, blob nonce_p
    mlen = struct.unpack(">I", p[:4])[0]
    index = struct.unpack(">I", p[4 + mlen:8 + mlen])[0]
    nonce_p = p[12 + mlen:44 + mlen]
    nonce_m = os.urandom(32)
    mac = hmac.new(key, MPIEXEC_LABEL + u32(index) + nonce_p + nonce_m, hashlib.sha256).digest()
    if mode == "forged":
        mac = os.urandom(32)
    try:
        conn.sendall(frame(CHALLENGE, blob(nonce_m) + blob(mac)))
        proof = read_frame(conn, 5)
        print("fake mpiexec: %s" % ("got the proxy's proof" if proof and proof[0] == PROOF else "no proof"))
        conn.sendall(frame(JOB, job_payload(os.environ["LC_MARKER"])))
        serve_job(conn)
    except OSError as e:
        print("fake mpiexec: %s" % e)
    return 0


def serve_job(conn):
    """Until the proxy hangs up: END once the rank exited."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        got = read_frame(conn, 5)
        if got is None:
            break
        if got[0] == 10:  # EXITED
            conn.sendall(frame(END, b""))


def cmd_rogue_proxy(args):
    addr, port, index, victim = args[0], int(args[1]), int(args[2]), int(args[3])
    words = sys.stdin.readline().split()
    key = bytes.fromhex(words[1]) if len(words) == 2 else b""
    sock = socket.create_connection((addr, port), timeout=3)
    nonce_p = os.urandom(32)
    sock.sendall(frame(HELLO, s(NEW_MAGIC) + u32(index) + blob(nonce_p)))
    got = read_frame(sock, 5)
    if got is None or got[0] != CHALLENGE or got[1] is None or len(got[1]) < 36:
        print("rogue proxy: no challenge")
        return 2
    nonce_m = got[1][4:36]
    mac = hmac.new(key, PROXY_LABEL + u32(index) + nonce_p + nonce_m, hashlib.sha256).digest()
    sock.sendall(frame(PROOF, blob(mac) + s("rogue") + u32(os.getpid())))
    got = read_frame(sock, 5)
    if got is None or got[0] != JOB:
        print("rogue proxy: no job (the key was not accepted)")
        return 2
    # JOB: str kvsname, u32 size, u32 flags, ..., the host's ranks at the end.
    p = got[1]
    klen = struct.unpack(">I", p[:4])[0]
    kvsname = p[4:4 + klen - 1].decode()
    own = struct.unpack(">I", p[-4:])[0]  # the last of its ranks
    print("rogue proxy: in, job %s, own rank %d" % (kvsname, own), flush=True)
    STARTED, PMI, OUT = 2, 4, 6
    sock.sendall(frame(STARTED, u32(os.getpid()), own) + frame(OUT, b"GENUINE output of rank %d\n" % own, own))
    time.sleep(0.5)
    try:
        sock.sendall(frame(OUT, b"FORGED output of rank %d\n" % victim, victim)
                     + frame(PMI, ("cmd=put kvsname=%s key=lc-ofi-%d value=forged\n" % (kvsname, victim)).encode(),
                             victim))
    except OSError as e:
        print("rogue proxy: connection closed before the forged frames (%s)" % e)
        return 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        got = read_frame(sock, 5 - (time.monotonic() - t0))
        if got is None:
            print("rogue proxy: mpiexec hung up %.2f s after the forged frames" % (time.monotonic() - t0))
            return 0
    print("BROKEN: mpiexec kept the connection of a proxy that relayed for rank %d" % victim)
    return 1


COMMANDS = {"scrape": cmd_scrape, "scan": cmd_scan, "impersonate": cmd_impersonate, "bigframe": cmd_bigframe,
            "flood": cmd_flood, "refused": cmd_refused, "fake-mpiexec": cmd_fake_mpiexec, "rogue-proxy": cmd_rogue_proxy}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))

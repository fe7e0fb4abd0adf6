#!/usr/bin/env python3
"""A reference takeover in Python, of Baton's design, to measure Baton's against.

Each window is a process on one home folder. The writer holds state.lock (flock, exclusive)
and replaces workflows.json durably: a temp file in the same folder (O_EXCL, 0600), write,
fsync, rename over, fsync the folder. A reader has read the document and blocks in flock;
when the writer dies it wakes, re-reads workflows.json, bumps the writer epoch and the
generation, names itself the writer, saves durably as above, and only then reports writer
(one JSON line on stdout with its own timestamp). It reaps nothing: the benchmark it is
compared with (BenchmarkTakeover/reap=0) has nothing to reap either.

    takeover_ref.py bench HOME N   # N takeovers on HOME (a Baton home); prints p50/p99 in ms
    takeover_ref.py window HOME    # one window (the bench starts these)

The bench is a chain like BenchmarkTakeover's: a writer and a reader that has read the
document; the writer records one save; the writer is killed with SIGKILL; the time from just
before the kill to the reader's writer event is measured; the reader is the next writer.
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time

DOC = "workflows.json"
LOCK = "state.lock"


def now_us():
    return time.time_ns() // 1000


def emit(**event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def save(home, doc):
    """Replace workflows.json durably, with the fsyncs Baton's save makes."""
    path = os.path.join(home, DOC)
    tmp = os.path.join(home, ".ref-tmp-%s-%d-%d" % (DOC, os.getpid(), time.time_ns()))
    data = (json.dumps(doc, indent=2) + "\n").encode()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)
    dfd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def load(home):
    with open(os.path.join(home, DOC), "rb") as f:
        return json.loads(f.read())


def become_writer(home, me):
    """The takeover, in Baton's order: the lock is held; re-read; bump the epoch; save."""
    doc = load(home)
    doc["epoch"] = doc.get("epoch", 0) + 1
    doc["generation"] = doc.get("generation", 0) + 1
    doc["writer"] = me
    save(home, doc)
    emit(event="role", role="writer", epoch=doc["epoch"], ts=now_us())
    return doc


def window(home):
    me = {"pid": os.getpid(), "start": 0, "boot": "ref", "instance": "ref-%d" % os.getpid()}
    lock = os.open(os.path.join(home, LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    load(home)  # a reader has read the document before it waits
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        emit(event="role", role="reader", ts=now_us())
        fcntl.flock(lock, fcntl.LOCK_EX)  # wakes when the writer's descriptor closes
    doc = become_writer(home, me)
    for line in sys.stdin:  # as the writer: "save" records one change
        if line.strip() == "save":
            doc["generation"] += 1
            doc["seq"] = doc.get("seq", 0) + 1
            save(home, doc)
            emit(reply="saved", generation=doc["generation"])
    return 0


class Child:
    def __init__(self, home):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "window", home],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def line(self):
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit("window %d exited" % self.p.pid)
        return json.loads(line)

    def role(self):
        while True:
            e = self.line()
            if e.get("event") == "role":
                return e

    def save(self):
        self.p.stdin.write("save\n")
        self.p.stdin.flush()
        while self.line().get("reply") != "saved":
            pass

    def kill9(self):
        os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait()


def pct(xs, p):
    s = sorted(xs)
    i = max(0, min(int(p * len(s) + 0.999999) - 1, len(s) - 1))
    return s[i]


def bench(home, n):
    w = Child(home)
    if w.role()["role"] != "writer":
        raise SystemExit("first window is not the writer")
    lat = []
    for _ in range(n):
        r = Child(home)
        if r.role()["role"] != "reader":
            raise SystemExit("second window is not a reader")
        w.save()
        t0 = now_us()
        w.kill9()
        e = r.role()
        if e["role"] != "writer":
            raise SystemExit("survivor reported %s" % e)
        lat.append((e["ts"] - t0) / 1000)
        w = r
    w.kill9()
    print(json.dumps({"n": n, "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99)}))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "window":
        return window(argv[2])
    if len(argv) == 4 and argv[1] == "bench":
        return bench(argv[2], int(argv[3]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

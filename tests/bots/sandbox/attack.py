#!/usr/bin/env python3
"""A bot that attacks its sandbox, for tests/tests/sandbox.rs.

Usage: attack.py ATTACK [--option=value ...] [--tag TAG]

It speaks the uttt protocol (answers `uttt 1` with `ready`, every `go` with the first
legal square). On its first `go` it performs ATTACK and reports what happened in an
`info string` line before its move, so the report lands in moves.csv (or, when the
attack ends the bot, in the game's transcript). Options are written `--name=value`
so the arena does not take them for files the bot needs.

Attacks:
  read --target=PATH ...    open and read each PATH; list it if it is a directory
  connect --port=N          TCP connect and UDP send to 127.0.0.1:N
  forkbomb --max=N          fork sleeping children until fork fails or N are made
  escape                    setsid + double fork a sleeper, then keep playing
  fill                      write a file in the working directory until stopped
  memory --mb=N             allocate N MiB at once
  cpu                       ignore SIGXCPU and spin
  signal [--really]         find the referee and signal it (signal 0 unless --really)
  ptrace                    PTRACE_ATTACH to the opponent (detaching at once if it works)
"""
import ctypes
import errno
import os
import signal
import socket
import sys
import time


def options():
    opts = {}
    for arg in sys.argv[2:]:
        if arg.startswith("--") and "=" in arg:
            key, value = arg[2:].split("=", 1)
            opts.setdefault(key, []).append(value)
        elif arg.startswith("--"):
            opts.setdefault(arg[2:], []).append("")
    return opts


def err_name(e):
    return errno.errorcode.get(getattr(e, "errno", None) or 0, type(e).__name__)


def tag():
    args = sys.argv
    return args[args.index("--tag") + 1] if "--tag" in args else None


def find_processes(needle, exclude_self=True):
    """Pids whose command line contains every word of `needle`."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or (exclude_self and int(name) == os.getpid()):
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if all(word in cmdline for word in needle):
            found.append(int(name))
    return found


def attack_read(opts):
    parts = []
    for i, path in enumerate(opts.get("target", [])):
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                with open(path, "rb") as f:
                    f.read(1)
            parts.append(f"{i}=ok")
        except OSError as e:
            parts.append(f"{i}={err_name(e)}")
    return " ".join(parts)


def attack_connect(opts):
    port = int(opts["port"][0])
    parts = []
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(b"escaped\n")
        s.close()
        parts.append("tcp=ok")
    except OSError as e:
        parts.append(f"tcp={err_name(e)}")
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(b"escaped\n", ("127.0.0.1", port))
        parts.append("udp=ok")
    except OSError as e:
        parts.append(f"udp={err_name(e)}")
    return " ".join(parts)


def attack_forkbomb(opts):
    limit = int(opts.get("max", ["200"])[0])
    made = 0
    failure = "none"
    while made < limit:
        try:
            pid = os.fork()
        except OSError as e:
            failure = err_name(e)
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        made += 1
    return f"forked={made} failure={failure}"


def attack_escape(_opts):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            # Free the pipes, as a daemon would, so only the sandbox can catch it.
            devnull = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            time.sleep(60)
        os._exit(0)
    os.waitpid(pid, 0)
    return "escaped=yes"


def attack_fill(_opts):
    send(f"info string cwd={os.getcwd()}")
    block = b"x" * 65536
    with open("fill.bin", "wb") as f:
        while True:
            f.write(block)
            f.flush()


def attack_memory(opts):
    mb = int(opts.get("mb", ["1024"])[0])
    send(f"info string allocating={mb}MiB")
    data = bytearray(mb * 1024 * 1024)
    return f"allocated={len(data)}"


def attack_cpu(_opts):
    signal.signal(signal.SIGXCPU, lambda *_: send("info string caught=SIGXCPU"))
    send("info string spinning")
    x = 0
    while True:
        x += 1


def attack_signal(opts):
    me = tag()
    sig = signal.SIGKILL if "really" in opts else 0
    parts = []
    referees = find_processes(["match", me]) if me else []
    parts.append(f"referee_found={'yes' if referees else 'no'}")
    for pid in referees + [os.getppid()]:
        try:
            os.kill(pid, sig)
            parts.append(f"kill{pid}=ok")
        except OSError as e:
            parts.append(f"kill{pid}={err_name(e)}")
    # Belt and braces for the test machine: kill(-1) as root outside a PID
    # namespace would hit every process there, so it is only tried as another uid
    # or inside bwrap (whose pid 1 is bwrap).
    try:
        with open("/proc/1/cmdline", "rb") as f:
            in_namespace = b"bwrap" in f.read()
    except OSError:
        in_namespace = False
    if "really" in opts and (os.getuid() != 0 or in_namespace):
        try:
            os.kill(-1, signal.SIGTERM)
            parts.append("killall=ok")
        except OSError as e:
            parts.append(f"killall={err_name(e)}")
    return " ".join(parts)


def attack_ptrace(_opts):
    me = tag()
    victims = find_processes(["player.py", me]) if me else []
    if not victims:
        return "opponent=notfound"
    libc = ctypes.CDLL(None, use_errno=True)
    PTRACE_ATTACH, PTRACE_DETACH = 16, 17
    pid = victims[0]
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
        time.sleep(0.05)
        libc.ptrace(PTRACE_DETACH, pid, None, None)
        return "opponent=found ptrace=ok"
    return f"opponent=found ptrace={errno.errorcode.get(ctypes.get_errno(), '?')}"


ATTACKS = {
    "read": attack_read,
    "connect": attack_connect,
    "forkbomb": attack_forkbomb,
    "escape": attack_escape,
    "fill": attack_fill,
    "memory": attack_memory,
    "cpu": attack_cpu,
    "signal": attack_signal,
    "ptrace": attack_ptrace,
}


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    attack = ATTACKS[sys.argv[1]]
    opts = options()
    attacked = False
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uttt":
            send("id name attacker")
            send("ready")
        elif words[0] == "go":
            if not attacked:
                attacked = True
                report = attack(opts)
                send(f"info string {sys.argv[1]}: {report}")
            fields = dict(zip(words[1::2], words[2::2]))
            send(fields["legal"].split(",")[0])
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()

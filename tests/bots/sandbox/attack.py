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
  files --count=N           open N descriptors at once (of /dev/null) and keep them
  cpu                       ignore SIGXCPU and spin
  signal [--really]         find the referee and signal it (signal 0 unless --really)
  ptrace                    PTRACE_ATTACH to the opponent (detaching at once if it works)
  privileges                report uid and capability sets; mknod a character device
                            (1,3: /dev/null's numbers) in the working directory; raise
                            its own hard RLIMIT_NOFILE (needs CAP_SYS_RESOURCE)
  fds                       list descriptors 3-63 it was given and read from fd 7
  sabotage                  prlimit (CPU 1 s), renice and pin the opponent to one CPU;
                            then the same on itself (which must keep working)
  ipc --key=N --name=NAME   make SysV shared memory, a message queue holding 'secret'
                            and a semaphore set with key N, and a POSIX queue /NAME
  unix --path=P             connect to the UNIX socket P and send a line
  inject                    write 'resign' into the opponent's stdout through
                            /proc/PID/fd/1, and a marker line into the referee's
  children --count=N --mb=M fork N children that each touch M MiB and sleep
  memfd --mb=M              write M MiB into a memfd and keep it open
  tty --text=T              open /dev/tty and push T into it as keystrokes (TIOCSTI);
                            then TIOCSTI and TIOCLINUX on its stdin (a socket: ENOTTY
                            unless a filter refuses the request first)
  peek --dir=D              read note.txt in every uttt-bot-* scratch directory in D
                            but its own (player.py --note TEXT leaves one)
  env                       report its PATH
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


def attack_files(opts):
    count = int(opts.get("count", ["64"])[0])
    send(f"info string opening={count}")
    kept = [os.open("/dev/null", os.O_RDONLY) for _ in range(count)]
    return f"opened={len(kept)}"


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
    # The opponent, never the referee: a referee attached and detached at once
    # can be left stopped for good (under mode none the attach succeeds).
    pid = find_opponent()
    if pid is None:
        return "opponent=notfound"
    libc = ctypes.CDLL(None, use_errno=True)
    PTRACE_ATTACH, PTRACE_DETACH = 16, 17
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
        time.sleep(0.05)
        libc.ptrace(PTRACE_DETACH, pid, None, None)
        return "opponent=found ptrace=ok"
    return f"opponent=found ptrace={errno.errorcode.get(ctypes.get_errno(), '?')}"


def capability_sets():
    """Effective, permitted, inheritable and bounding sets (hex) and no_new_privs,
    from capget and prctl (a sandbox may hide /proc)."""
    libc = ctypes.CDLL(None, use_errno=True)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    header = Header(0x20080522, 0)
    data = (Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return "capget=" + errno.errorcode.get(ctypes.get_errno(), "?")
    both = lambda field: getattr(data[0], field) | (getattr(data[1], field) << 32)
    bounding = 0
    for cap in range(64):
        if libc.prctl(23, cap, 0, 0, 0) == 1:  # PR_CAPBSET_READ
            bounding |= 1 << cap
    nnp = libc.prctl(39, 0, 0, 0, 0)  # PR_GET_NO_NEW_PRIVS
    return (
        f"eff={both('effective'):x} prm={both('permitted'):x} "
        f"inh={both('inheritable'):x} bnd={bounding:x} nnp={nnp}"
    )


def attack_privileges(_opts):
    parts = [f"uid={os.getuid()}", capability_sets()]
    try:
        os.mknod("dev-null-copy", 0o666 | 0o020000, os.makedev(1, 3))
        parts.append("mknod=ok")
    except OSError as e:
        parts.append(f"mknod={err_name(e)}")
    import resource
    # Lowering a hard limit is always allowed; raising it back needs
    # CAP_SYS_RESOURCE (Python reports EPERM here as ValueError).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, hard - 1), hard - 1))
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        parts.append("raise=ok")
    except (OSError, ValueError):
        parts.append("raise=EPERM")
    return " ".join(parts)


def attack_fds(_opts):
    open_fds = []
    for fd in range(3, 64):
        try:
            os.fstat(fd)
            open_fds.append(str(fd))
        except OSError:
            pass
    try:
        data = os.pread(7, 64, 0).decode(errors="replace").strip() or "empty"
        read7 = f"read7={data}"
    except OSError as e:
        read7 = f"read7={err_name(e)}"
    return f"open={','.join(open_fds) or 'none'} {read7}"


def find_opponent():
    """The opponent's pid: the process running player.py with our tag (not the
    referee, whose command line names both bots)."""
    me = tag()
    victims = find_processes(["player.py", me]) if me else []
    referees = set(find_processes(["match", me])) if me else set()
    victims = [pid for pid in victims if pid not in referees]
    return victims[0] if victims else None


def attack_sabotage(_opts):
    import resource
    victim = find_opponent()
    if victim is None:
        return "opponent=notfound"
    parts = ["opponent=found"]

    def attempt(name, call):
        try:
            call()
            parts.append(f"{name}=ok")
        except OSError as e:
            parts.append(f"{name}={err_name(e)}")

    attempt("prlimit", lambda: resource.prlimit(victim, resource.RLIMIT_CPU, (1, 1)))
    attempt("nice", lambda: os.setpriority(os.PRIO_PROCESS, victim, 19))
    attempt("affinity", lambda: os.sched_setaffinity(victim, {0}))
    attempt("idle", lambda: os.sched_setscheduler(victim, os.SCHED_IDLE, os.sched_param(0)))
    # Its own process, by 0 and by pid: runtimes do this, it must keep working.
    attempt(
        "self_prlimit",
        lambda: resource.prlimit(0, resource.RLIMIT_CORE, (0, 0)),
    )
    attempt("self_nice", lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
    attempt(
        "self_affinity",
        lambda: os.sched_setaffinity(os.getpid(), os.sched_getaffinity(0)),
    )
    attempt("read_limit", lambda: resource.prlimit(victim, resource.RLIMIT_CPU))
    return " ".join(parts)


def attack_ipc(opts):
    key = int(opts["key"][0])
    name = opts["name"][0]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.restype = ctypes.c_int
    libc.msgget.restype = ctypes.c_int
    libc.semget.restype = ctypes.c_int
    IPC_CREAT = 0o1000
    parts = []

    def result(name, value):
        if value >= 0:
            parts.append(f"{name}=ok")
        else:
            parts.append(f"{name}={errno.errorcode.get(ctypes.get_errno(), '?')}")
        return value

    result("shm", libc.shmget(key, ctypes.c_size_t(1 << 20), IPC_CREAT | 0o666))
    queue = result("msg", libc.msgget(key, IPC_CREAT | 0o666))
    if queue >= 0:
        class Message(ctypes.Structure):
            _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 16)]

        message = Message(1, b"secret")
        result("msgsnd", libc.msgsnd(queue, ctypes.byref(message), ctypes.c_size_t(6), 0))
    result("sem", libc.semget(key, 1, IPC_CREAT | 0o666))
    try:
        librt = ctypes.CDLL("librt.so.1", use_errno=True)
        librt.mq_open.restype = ctypes.c_int
        mq = librt.mq_open(f"/{name}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
        result("mq", mq)
    except OSError:
        parts.append("mq=nolib")
    return " ".join(parts)


def attack_unix(opts):
    path = opts["path"][0]
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as e:
        return f"socket={err_name(e)}"
    try:
        s.connect(path)
        s.sendall(b"escaped\n")
        s.close()
        return "socket=ok connect=ok"
    except OSError as e:
        return f"socket=ok connect={err_name(e)}"


def attack_inject(_opts):
    me = tag()
    parts = []
    victim = find_opponent()
    targets = [("opponent", victim, b"resign\n")]
    referees = find_processes(["match", me]) if me else []
    targets.append(("referee", referees[0] if referees else None, b"INJECTED-BY-ATTACKER\n"))
    for who, pid, line in targets:
        if pid is None:
            parts.append(f"{who}=notfound")
            continue
        try:
            fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY)
            os.write(fd, line)
            os.close(fd)
            parts.append(f"{who}=ok")
        except OSError as e:
            parts.append(f"{who}={err_name(e)}")
    return " ".join(parts)


def attack_children(opts):
    count = int(opts.get("count", ["8"])[0])
    mb = int(opts.get("mb", ["48"])[0])
    made = 0
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            try:
                block = bytearray(mb * 1024 * 1024)
                for i in range(0, len(block), 4096):
                    block[i] = 1
            except MemoryError:
                os._exit(3)
            time.sleep(60)
            os._exit(0)
        made += 1
    time.sleep(1.0)
    return f"children={made} each={mb}MiB"


def attack_memfd(opts):
    mb = int(opts.get("mb", ["256"])[0])
    try:
        fd = os.memfd_create("hoard")
    except OSError as e:
        return f"memfd={err_name(e)}"
    chunk = b"x" * (1 << 20)
    written = 0
    try:
        for _ in range(mb):
            os.write(fd, chunk)
            written += 1
    except OSError as e:
        return f"memfd=ok written={written}MiB stopped={err_name(e)}"
    time.sleep(1.0)
    return f"memfd=ok written={written}MiB"


def attack_tty(opts):
    import fcntl
    import termios

    text = opts.get("text", ["echo pwned"])[0] + "\n"
    parts = []
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        parts.append("open=ok")
        try:
            for ch in text.encode():
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
            parts.append("pushed=ok")
        except OSError as e:
            parts.append(f"pushed={err_name(e)}")
        os.close(fd)
    except OSError as e:
        parts.append(f"open={err_name(e)}")
    tioclinux = 0x541C
    for name, request in (("sti", termios.TIOCSTI), ("linux", tioclinux)):
        try:
            fcntl.ioctl(0, request, b"x")
            parts.append(f"{name}=ok")
        except OSError as e:
            parts.append(f"{name}={err_name(e)}")
    return " ".join(parts)


def attack_peek(opts):
    where = opts.get("dir", ["/tmp"])[0]
    own = os.path.realpath(os.getcwd())
    found, refused = [], set()
    try:
        names = os.listdir(where)
    except OSError as e:
        return f"list={err_name(e)}"
    for name in names:
        path = os.path.join(where, name)
        if not name.startswith("uttt-bot-") or os.path.realpath(path) == own:
            continue
        try:
            with open(os.path.join(path, "note.txt")) as f:
                found.append(f.read().strip())
        except FileNotFoundError:
            pass
        except OSError as e:
            refused.add(err_name(e))
    return f"notes=[{','.join(sorted(found))}] refused={','.join(sorted(refused)) or '-'}"


def attack_env(_opts):
    return f"PATH={os.environ.get('PATH', '')}"


ATTACKS = {
    "read": attack_read,
    "connect": attack_connect,
    "forkbomb": attack_forkbomb,
    "escape": attack_escape,
    "fill": attack_fill,
    "memory": attack_memory,
    "files": attack_files,
    "cpu": attack_cpu,
    "signal": attack_signal,
    "ptrace": attack_ptrace,
    "privileges": attack_privileges,
    "fds": attack_fds,
    "sabotage": attack_sabotage,
    "ipc": attack_ipc,
    "unix": attack_unix,
    "inject": attack_inject,
    "children": attack_children,
    "memfd": attack_memfd,
    "tty": attack_tty,
    "peek": attack_peek,
    "env": attack_env,
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

#!/usr/bin/env python3
"""The time left against the real end of a run (BENCHMARKS.md, "The time left").

Plays a Swiss of 9 Python bots (tests/bots/good.py --random), 3 rounds, 2 games at
once, at pace 300 with --serve, in a pseudo-terminal (so that the progress bar is
drawn), and every 5 s reads the live page's estimate (/run/0/state, eta_s) and the
last one the bar printed. At the end each estimate is divided by the real time
that was left then: 1.0 is exact, 2.0 twice too long.

Usage: tools/time_left.py [path/to/arena]   (default: target/debug/arena)
Needs python3 and script(1). Leaves nothing behind but what it prints.
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ARENA = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/arena")
GOOD = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "tests", "bots", "good.py"))
PORT = 18497


def seconds(text):
    """The bar's words in seconds: "about 3 min 20 s left", or indicatif's "3m"."""
    if not text or text.startswith("estimating"):
        return None
    m = re.match(r"(?:(\d+) h )?(\d+) (min|s)(?: (\d+) s)?", text)
    if m:
        h, v, unit, s = m.groups()
        return int(h or 0) * 3600 + int(v) * (60 if unit == "min" else 1) + int(s or 0)
    m = re.match(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    h, mn, s = (int(x) if x else 0 for x in m.groups())
    return h * 3600 + mn * 60 + s


def main():
    work = tempfile.mkdtemp(prefix="time-left-")
    config = os.path.join(work, "swiss.toml")
    with open(config, "w") as f:
        f.write('name = "time-left"\nseed = 4\ngames = 2\nformat = "swiss"\nrounds = 3\n'
                'concurrency = 2\n[time]\nmove-ms = 1000\nfirst-move-ms = 3000\n')
        for name in ["ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "tim"]:
            f.write(f'[[bot]]\nname = "{name}"\ncommand = "python3 {GOOD} --random"\n')
    out = os.path.join(work, "results")
    term = os.path.join(work, "terminal")
    command = f"{ARENA} tournament {config} --out {out} --pace 300 --serve 127.0.0.1:{PORT}"
    with open(term, "wb") as sink:
        run = subprocess.Popen(["script", "-q", "-f", "-c", command, "/dev/null"],
                               stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                               start_new_session=True)
    start = time.time()
    rows = []
    while time.time() - start < 1800:
        time.sleep(5)
        try:
            state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{PORT}/run/0/state", timeout=5))
        except OSError:
            continue
        text = open(term, "rb").read().decode("utf-8", "replace")
        said = re.findall(r"ETA ([^\s]+)|about ([0-9][^\n\r]*?) left|(estimating)", text)
        rows.append((time.time() - start, state["done"], state.get("eta_s"),
                     seconds("".join(said[-1])) if said else None, state["status"]))
        if state["status"] == "finished":
            break
    end = time.time() - start
    os.killpg(run.pid, signal.SIGINT)
    run.wait(timeout=30)
    print(f"{command}\nthe run took {end:.0f} s; estimate / real time left:")
    print("   t  done  left   page  terminal")
    for t, done, page, bar, status in rows:
        if status != "running":
            continue
        left = end - t
        ratio = lambda v: f"{v / left:5.2f}" if v else "    -"
        print(f"{t:4.0f}  {done:4}  {left:4.0f}  {ratio(page)}  {ratio(bar)}")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()

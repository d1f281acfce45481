#!/usr/bin/env bash
# The REPL under a pseudo-terminal: expressions print without `return`,
# multi-line statements continue, Ctrl-C stops a running loop and keeps the
# state, tab completion over module tables.
exec /usr/bin/python3 - "$TIDE" <<'PY'
import os, pty, sys, time, select, signal
tide = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = "/tmp"
    os.execv(tide, [tide])
buf = b""
def read_until(pat, timeout=10):
    global buf
    end = time.time() + timeout
    while pat.encode() not in buf and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try: buf += os.read(fd, 4096)
            except OSError: break
    ok = pat.encode() in buf
    if ok: buf = buf[buf.index(pat.encode()) + len(pat):]
    return ok
def send(s): os.write(fd, s.encode())
passed = failed = 0
def check(c, msg):
    global passed, failed
    if c: passed += 1
    else:
        failed += 1; print("check failed:", msg, repr(buf[-300:]), file=sys.stderr)
check(read_until("> "), "prompt")
# the banner's hint works as typed: tide is a global, tide.li<Tab> completes
send("type(tide)\r"); check(read_until("table"), "tide preloaded as a global")
send("tide.li\t\t"); time.sleep(0.5)
check(read_until("tide.linalg") or read_until("tide.liquid"), "tab lists tide.li... (no require)")
send("\x15\r"); read_until("> ")
send("tide.liq\t"); time.sleep(0.3); send("\r")
check(read_until("table"), "tab completes tide.liq to tide.liquid")
send("tide.help()\r"); check(read_until("tide.grid"), "tide.help() prints the overview")
send("x = 41\r"); check(read_until("> "), "statement")
send("x + 1\r"); check(read_until("42"), "expression printed without return")
send("for i = 1, 2 do\r"); check(read_until(">> "), "continuation prompt on <eof>")
send("x = x + i end\r"); read_until("> ")
send("x\r"); check(read_until("44"), "multi-line statement ran")
send("while true do end\r"); time.sleep(0.5); os.kill(pid, signal.SIGINT)
check(read_until("interrupted"), "Ctrl-C stops a running loop")
send("x\r"); check(read_until("44"), "state intact after Ctrl-C")
# a long native solve (CG to an unreachable tolerance on 1024^2 cells) stops on Ctrl-C
send("n = 1024; lab = tide.array.full({n, n}, 1, 'u8'); lab:select(2, n):fill(0); rhs = tide.array.full({n, n}, 1); p = tide.array.zeros({n, n})\r")
read_until("> ")
send("st = tide.linalg.poisson_solve{ n = {n, n}, dx = 1 / n, labels = lab, rhs = rhs, p = p, method = 'cg', tol = 1e-300, maxit = 100000000 }\r")
time.sleep(1.5); os.kill(pid, signal.SIGINT)
check(read_until("interrupted", 20), "Ctrl-C stops a running solver")
send("x\r"); check(read_until("44"), "state intact after interrupting a solver")
send("tide.arr\t"); time.sleep(0.3); send("\r")
check(read_until("table") or read_until("array"), "tab completion of tide.arr")
send("os.exit(0)\r")
try: os.waitpid(pid, 0)
except ChildProcessError: pass
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY

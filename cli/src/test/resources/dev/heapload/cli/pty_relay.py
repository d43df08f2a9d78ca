# Test helper: runs a program (the MicroPython unix port) on a pseudo-terminal and offers another
# pseudo-terminal whose slave path it prints, relaying bytes both ways, as a USB serial port to a board
# would. Ends when the program ends or stdin closes.  python3 pty_relay.py PROGRAM [ARGS...]
import os
import pty
import select
import subprocess
import sys
import tty

host_master, host_slave = pty.openpty()
tty.setraw(host_slave)
board_master, board_slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stdin=board_slave, stdout=board_slave, stderr=board_slave,
                        start_new_session=True)
os.close(board_slave)
print(os.ttyname(host_slave), flush=True)
fds = [host_master, board_master, sys.stdin.fileno()]
try:
    while proc.poll() is None:
        ready, _, _ = select.select(fds, [], [], 0.2)
        for fd in ready:
            if fd == sys.stdin.fileno():
                if not os.read(fd, 1024):
                    raise SystemExit(0)
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                raise SystemExit(0)
            os.write(board_master if fd == host_master else host_master, data)
finally:
    if proc.poll() is None:
        proc.kill()

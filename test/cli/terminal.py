# Runs a command on a real pseudo-terminal of a given width (stdin, stdout and stderr are all the terminal), copies
# what it writes to our stdout, and exits with its exit code. Usage: python3 terminal.py COLUMNS -- COMMAND [ARG...]
import fcntl, os, pty, struct, sys, termios

columns = int(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1 :]
pid, fd = pty.fork()
if pid == 0:
    # In the child, before the command starts: the terminal's size (rows, columns).
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    os.execvp(command[0], command)
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))

# A program that read(2)s a file into a fresh buffer (tests/suites/record.sh):
# the kernel's copy faults in each of the buffer's 256 pages, kernel-mode.
# Prints the buffer's address and the bytes read.
import ctypes
import mmap
import os
import sys

n = 256 * 4096
m = mmap.mmap(-1, n)
m.madvise(mmap.MADV_NOHUGEPAGE)        # one fault a page, whatever THP says
fd = os.open(sys.argv[1], os.O_RDONLY)
got = os.readv(fd, [m])
os.close(fd)
print("buffer 0x%x %d" % (ctypes.addressof(ctypes.c_char.from_buffer(m)), got))

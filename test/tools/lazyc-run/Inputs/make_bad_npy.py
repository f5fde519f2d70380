"""Writes the malformed .npy files of bad-npy.mlir into the folder argv[1].

Each file is a well-formed .npy file (version 1.0: magic, version, header
length, header, data) except for the one defect its name says.
"""

import os
import struct
import sys


def header(descr="'<f4'", fortran="False", shape="(4, 8)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, shape)


def npy(name, text, data=b"\0" * 128, major=1):
    raw = text.encode()
    if major == 1:
        prefix = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(raw))
    else:
        prefix = b"\x93NUMPY" + bytes([major, 0]) + struct.pack("<I", len(raw))
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write(prefix + raw + data)


npy("good.npy", header())
npy("huge-dim.npy", header(shape="(99999999999999999999999, 8)"))
npy("overflow.npy", header(shape="(4611686018427387904, 8)"))
npy("negative.npy", header(shape="(-1, 8)"))
npy("not-a-tuple.npy", header(shape="[4, 8]"))
npy("no-comma.npy", header(shape="(4 8)"))
npy("truncated-data.npy", header(), data=b"\0" * 100)
npy("no-descr.npy", "{'fortran_order': False, 'shape': (4, 8), }")
npy("big-endian.npy", header(descr="'>f4'"))
npy("fortran.npy", header(fortran="True"))
npy("version-4.npy", header(), major=4)
# A 1 MiB header (version 2.0) of blanks between 'descr' and its value.
npy("long-header.npy",
    "{'descr':" + " " * (1 << 20) + "'<f4', 'fortran_order': False, "
    "'shape': (4, 8), }", major=2)
with open(os.path.join(sys.argv[1], "truncated-header.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\xff\x00{'descr'")
with open(os.path.join(sys.argv[1], "empty.npy"), "wb") as f:
    pass

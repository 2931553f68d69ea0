"""Launching segment programs: the number of segments, and the offsets
check (docs/segments.md, "Offsets").

A segment program runs one task per segment, so its size is len(offsets)
- 1. Before a CPU launch, unless unsafe=True, the offsets are checked here,
once: they start at >= 0, never decrease, and end at <= the length of every
buffer the kernel reads or writes segments of (NumPy or the standard
library). On a GPU the same check runs inside the schedule's first kernel
(one host synchronisation at the end of the launch); when it fails, the
offsets are copied to the host to find the first bad segment. Either way the
ValueError names the argument, the segment and the buffer. With unsafe=True
nothing is checked and nothing waits, and the generated code clamps each
segment to the buffers instead.
"""

import array
import ctypes
import sys

from . import _native

_GRID_MAX = (1 << 31) - 1  # program ids are int32
_OFFSET_TYPES = {"*i32": (ctypes.c_int32, "i", 4), "*i64": (ctypes.c_int64, "q", 8)}


def segment_count(kernel_name, facts, converted, arguments):
    """The number of segments of a segment program's launch, after checking
    that its offsets argument is a 1-D int32/int64 array of at least one
    element. facts is _native.segment_launch_facts(kernel); converted the
    _args.Converted arguments; arguments the caller's dict (for shapes)."""
    offsets_index, _ = facts
    offsets = converted[offsets_index]
    name = offsets.name
    what = "argument %r of %s holds the segment offsets" % (name, kernel_name)
    if offsets.kind != _native.ARG_BUFFER:
        raise TypeError("%s: pass a 1-D int32 or int64 array, not a scalar" % what)
    if offsets.type not in _OFFSET_TYPES:
        raise TypeError("%s: it must be an int32 or int64 array, not %s"
                        % (what, offsets.type[1:]))
    ndim = _ndim(arguments.get(name))
    if ndim is not None and ndim != 1:
        raise ValueError("%s, so it must be 1-D (segments + 1 elements); it has %d dimensions"
                         % (what, ndim))
    if offsets.nelems < 1:
        raise ValueError("%s, so it needs at least 1 element (segments + 1); it is empty" % what)
    segments = offsets.nelems - 1
    if segments > _GRID_MAX:
        raise ValueError("%s: %d segments is more than a launch can run (at most 2**31 - 1)"
                         % (what, segments))
    return segments


def _what(kernel_name, facts, converted):
    offsets = converted[facts[0]]
    return offsets, "argument %r of %s holds the segment offsets" % (offsets.name, kernel_name)


def check_host(kernel_name, facts, converted, arguments):
    """The offsets check of a CPU launch (host memory); a ValueError names
    the first bad segment."""
    offsets, what = _what(kernel_name, facts, converted)
    limit, limit_name = _shortest([converted[i] for i in facts[1]])
    host = _host_view(offsets)
    if _is_bad(host, limit):
        raise ValueError(_describe(what, _as_list(host), limit, limit_name))


def describe_device(kernel_name, facts, converted, arguments, device, stream):
    """The ValueError message for offsets in device memory that the
    schedule's check flagged: copied to the host to find the first bad
    segment."""
    offsets, what = _what(kernel_name, facts, converted)
    limit, limit_name = _shortest([converted[i] for i in facts[1]])
    ctype, code, size = _OFFSET_TYPES[offsets.type]
    raw = _native.cuda_copy_to_host(device, stream, offsets.address, offsets.nelems * size)
    text = _describe(what, _as_list(_from_bytes(raw, code, ctype)), limit, limit_name)
    return text + (" (the launch ran with every segment clamped to the buffers: outputs may "
                   "have been written)")


def host_values(offsets, device, stream):
    """The offsets' values in host memory as a ctypes int64 array (a copy;
    from the device for device arrays), made at C speed: a plan reads
    every offset, and a batch may hold 2^26 segments."""
    ctype, code, size = _OFFSET_TYPES[offsets.type]
    if offsets.device == "cuda":
        host = _from_bytes(_native.cuda_copy_to_host(device, stream, offsets.address,
                                                     offsets.nelems * size), code, ctype)
    else:
        host = _host_view(offsets)
    out = (ctypes.c_int64 * max(offsets.nelems, 1))()
    np = sys.modules.get("numpy")
    if np is not None and isinstance(host, np.ndarray):
        np.ctypeslib.as_array(out)[:offsets.nelems] = host
    elif code == "q":
        ctypes.memmove(out, bytes(host.cast("B")), offsets.nelems * 8)
    else:
        wide = array.array("q", host)
        ctypes.memmove(out, wide.tobytes(), offsets.nelems * 8)
    return out


def _ndim(value):
    """The number of dimensions of an array argument, or None when unknown."""
    ndim = getattr(value, "ndim", None)
    if isinstance(ndim, int):
        return ndim
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None and hasattr(interface, "get"):
        return len(tuple(interface.get("shape", ())))
    try:
        with memoryview(value) as view:
            return view.ndim
    except TypeError:
        return None


def _shortest(buffers):
    """(length, name) of the shortest buffer read or written through the
    offsets; (None, None) when there is none."""
    shortest = None
    for c in buffers:
        if shortest is None or c.nelems < shortest.nelems:
            shortest = c
    return (shortest.nelems, shortest.name) if shortest is not None else (None, None)


# ---- the check ---------------------------------------------------------------------------

def _host_view(offsets):
    """The offsets in host memory: a NumPy array over them when NumPy is
    there, else a memoryview of ints (no copy in either case)."""
    ctype, code, size = _OFFSET_TYPES[offsets.type]
    storage = (ctype * offsets.nelems).from_address(offsets.address)
    np = sys.modules.get("numpy")
    if np is not None:
        return np.ctypeslib.as_array(storage)
    return memoryview(storage).cast("B").cast(code)


def _from_bytes(raw, code, ctype):
    np = sys.modules.get("numpy")
    if np is not None:
        return np.frombuffer(raw, dtype=np.int32 if code == "i" else np.int64)
    return memoryview(raw).cast(code)


def _as_list(host):
    return host.tolist()


def _is_bad(host, limit):
    np = sys.modules.get("numpy")
    if np is not None and isinstance(host, np.ndarray):
        bad = bool((host[1:] < host[:-1]).any()) or host[0] < 0
        return bool(bad or (limit is not None and host[-1] > limit))
    previous = host[0]
    if previous < 0:
        return True
    for x in host[1:]:
        if x < previous:
            return True
        previous = x
    return limit is not None and previous > limit


def _describe(what, offsets, limit, limit_name):
    """The sentence for the first bad segment of a list of offsets."""
    for s in range(len(offsets) - 1):
        start, end = offsets[s], offsets[s + 1]
        if start < 0:
            why = "starts at offsets[%d] = %d, which is negative" % (s, start)
        elif end < start:
            why = ("is [%d, %d): offsets[%d] = %d is less than offsets[%d] = %d (offsets must "
                   "not decrease)" % (start, end, s + 1, end, s, start))
        elif limit is not None and end > limit:
            why = ("ends at offsets[%d] = %d, past the end of %r (%d elements)"
                   % (s + 1, end, limit_name, limit))
        else:
            continue
        return "%s, and segment %d %s" % (what, s, why)
    return "%s, and they are not valid segment offsets" % what  # not reached for a failed check


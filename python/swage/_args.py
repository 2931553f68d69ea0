"""Converting launch arguments into signature types and swage_arg structs.

Each runtime argument becomes a ``Converted``: its type in the signature
grammar ("*f32", "i32"), where it lives ("cpu" or "cuda" for buffers, None
for scalars; for CUDA, the device index and the stream it was produced on,
when known), and what the C call needs (an address and element count for
buffers, a value for scalars), plus the Python objects that must stay alive
until the call returns. Nothing here imports NumPy, PyTorch or CuPy: they are
recognised by duck typing, so all stay optional.
"""

import ctypes
import math
import operator
import sys

from . import _native
from . import language as sl

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1
# The values of each integer signature type.
_INT_LIMITS = {"i1": (0, 1), "i8": (-128, 127), "u8": (0, 255), "i16": (-(1 << 15), (1 << 15) - 1),
               "u16": (0, (1 << 16) - 1), "i32": (_INT32_MIN, _INT32_MAX), "u32": (0, (1 << 32) - 1),
               "i64": (_INT64_MIN, _INT64_MAX), "u64": (0, _UINT64_MAX)}


def _int_bits(type_, value):
    """The int64 the C call carries for an integer value of a signature
    type: a uint64 from 2**63 up travels as its bits (value - 2**64)."""
    return value - (1 << 64) if type_ == "u64" and value > _INT64_MAX else value

# Per float type: its largest finite value, and the smallest magnitude that
# rounds to infinity in it (the largest value plus half a unit in the last
# place: ties go to the even neighbour, which is infinity). The warm
# segment launch checks Python floats against float32's (_jit).
FLOAT_LIMITS = {
    "f16": (65504.0, 65520.0),
    "bf16": (float.fromhex("0x1.fep127"), float.fromhex("0x1.ffp127")),
    "f32": (float.fromhex("0x1.fffffep127"), float.fromhex("0x1.ffffffp127")),
}
_FLOAT_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}


def int_text(value):
    """An int for a message: in full up to 20 digits, else in scientific
    form with its digit count ("1.000e+400 (401 digits)"), so that a message
    stays short (and str() of an int past 4300 digits is refused anyway)."""
    if -10 ** 20 < value < 10 ** 20:
        return str(value)
    magnitude = -value if value < 0 else value
    exponent = int((magnitude.bit_length() - 1) * 0.30102999566398120)
    while exponent > 0 and 10 ** exponent > magnitude:
        exponent -= 1
    while 10 ** (exponent + 1) <= magnitude:
        exponent += 1
    lead = str(magnitude // 10 ** (exponent - 3))
    return "%s%s.%se+%d (%d digits)" % ("-" if value < 0 else "", lead[0], lead[1:4], exponent,
                                       exponent + 1)

# NumPy dtypes by (dtype.char, itemsize) -> signature element types
# (dtype.name is slow to compute, and this lookup is on every launch).
_NUMPY_CHARS = {
    ("e", 2): "f16", ("f", 4): "f32", ("d", 8): "f64", ("b", 1): "i8", ("B", 1): "u8",
    ("h", 2): "i16", ("H", 2): "u16", ("i", 4): "i32", ("I", 4): "u32", ("l", 4): "i32",
    ("L", 4): "u32", ("l", 8): "i64", ("L", 8): "u64", ("q", 8): "i64", ("Q", 8): "u64",
    ("?", 1): "i1",
}


def _numpy_element(dtype):
    """Signature element type of a NumPy dtype, or None."""
    if not dtype.isnative:
        return None
    elem = _NUMPY_CHARS.get((dtype.char, dtype.itemsize))
    if elem is None and dtype.name == "bfloat16":
        elem = "bf16"
    return elem


_TORCH_DTYPES = {
    "torch.float16": "f16", "torch.float32": "f32", "torch.float64": "f64",
    "torch.bfloat16": "bf16", "torch.int8": "i8", "torch.uint8": "u8",
    "torch.int16": "i16", "torch.uint16": "u16", "torch.int32": "i32", "torch.uint32": "u32",
    "torch.int64": "i64", "torch.uint64": "u64", "torch.bool": "i1",
}
# __cuda_array_interface__ / __array_interface__ typestr (native or little-endian).
_TYPESTRS = {
    "f2": "f16", "f4": "f32", "f8": "f64", "i1": "i8", "u1": "u8", "i2": "i16", "u2": "u16",
    "i4": "i32", "u4": "u32", "i8": "i64", "u8": "u64", "b1": "i1",
}
# struct-module format codes of the buffer protocol -> element types.
_BUFFER_FORMATS = {
    "f": "f32", "d": "f64", "e": "f16", "b": "i8", "B": "u8", "?": "i1", "h": "i16", "H": "u16",
    "i": None, "l": None, "I": None, "L": None, "q": "i64", "Q": "u64",  # by the itemsize
}
_INT_BY_SIZE = {4: "i32", 8: "i64"}
_UINT_BY_SIZE = {4: "u32", 8: "u64"}

_SUPPORTED = ("float16 float32 float64 bfloat16 int8 uint8 int16 uint16 int32 uint32 int64 uint64 "
              "bool")


class Converted:
    __slots__ = ("name", "type", "device", "kind", "address", "nelems", "ivalue", "fvalue",
                 "keepalive", "device_index", "stream", "origin")

    def __init__(self, name, type_, device=None, kind=_native.ARG_BUFFER, address=0,
                 nelems=0, ivalue=0, fvalue=0.0, keepalive=None, device_index=None,
                 stream=None, origin=None):
        self.name = name
        self.type = type_
        self.device = device              # "cpu" or "cuda" for buffers; None for scalars
        self.kind = kind
        self.address = address
        self.nelems = nelems
        self.ivalue = ivalue
        self.fvalue = fvalue
        self.keepalive = keepalive
        self.device_index = device_index  # CUDA device ordinal (None: ask the driver)
        self.stream = stream              # __cuda_array_interface__ 'stream', if given
        self.origin = origin              # "torch", "cai" for CUDA buffers

    def where(self):
        """'cpu', 'cuda:N' or 'cuda' (device not yet known): for messages."""
        if self.device == "cuda" and self.device_index is not None:
            return "cuda:%d" % self.device_index
        return self.device or "scalar"

    def to_arg(self):
        return _native.Arg(self.kind, self.address or None, self.nelems, self.ivalue, self.fvalue)


def _is_numpy_array(value):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def _is_numpy_scalar(value):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.generic)


def _is_torch_tensor(value):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _read_only(name):
    return TypeError(
        "argument %r is read-only; Swage kernels may write to their buffers, so pass a "
        "writable copy (for NumPy: numpy.array(%s))" % (name, name))


def _numpy_array(name, array):
    elem = _numpy_element(array.dtype)
    if elem is None:
        raise TypeError("argument %r has dtype %s, which Swage does not support (supported: %s)"
                        % (name, array.dtype, _SUPPORTED))
    flags = array.flags
    if not flags.c_contiguous:
        raise ValueError("argument %r is not C-contiguous; pass numpy.ascontiguousarray(%s)"
                         % (name, name))
    if not flags.writeable:
        raise _read_only(name)
    return Converted(name, "*" + elem, device="cpu", address=array.ctypes.data,
                     nelems=array.size, keepalive=array)


def _torch_tensor(name, tensor):
    elem = _TORCH_DTYPES.get(str(tensor.dtype))
    if elem is None:
        raise TypeError("argument %r has dtype %s, which Swage does not support (supported: %s)"
                        % (name, tensor.dtype, _SUPPORTED))
    device = tensor.device.type
    if device not in ("cpu", "cuda"):
        raise TypeError("argument %r is on device %r; Swage runs on 'cpu' and 'cuda'"
                        % (name, str(tensor.device)))
    if not tensor.is_contiguous():
        raise ValueError("argument %r is not contiguous; pass %s.contiguous()" % (name, name))
    # data_ptr() is the first element's address for every dtype, bfloat16
    # included (read as 16-bit storage), so no copy or view is needed.
    if device == "cuda":
        return Converted(name, "*" + elem, device="cuda", address=tensor.data_ptr(),
                         nelems=tensor.numel(), keepalive=tensor,
                         device_index=tensor.get_device(), origin="torch")
    return Converted(name, "*" + elem, device="cpu", address=tensor.data_ptr(),
                     nelems=tensor.numel(), keepalive=tensor)


def _cuda_array(name, value):
    """An object with __cuda_array_interface__ (CuPy, Numba, ...): the pointer,
    type, shape and strides (None or C-contiguous), and 'stream' (version 3:
    the stream the producer last used; 1 is the legacy default stream)."""
    interface = value.__cuda_array_interface__
    if not hasattr(interface, "get") or "data" not in interface:
        raise TypeError("argument %r has a malformed __cuda_array_interface__ (a dict with "
                        "'data', 'typestr' and 'shape' is expected)" % (name,))
    typestr = interface.get("typestr", "")
    elem = _TYPESTRS.get(typestr[1:]) if typestr[:1] in ("<", "|", "=") else None
    if elem is None:
        raise TypeError("argument %r has element type %r, which Swage does not support "
                        "(supported: %s)" % (name, typestr, _SUPPORTED))
    shape = tuple(interface.get("shape", ()))
    nelems = 1
    for extent in shape:
        nelems *= extent
    strides = interface.get("strides")
    if strides is not None and nelems > 1:
        itemsize = int(typestr[2:])
        expected = itemsize
        for extent, stride in zip(reversed(shape), reversed(strides)):
            if extent != 1 and stride != expected:
                raise ValueError("argument %r is not C-contiguous; pass a contiguous copy"
                                 % (name,))
            expected *= extent
    if interface.get("mask") is not None:
        raise TypeError("argument %r is a masked array (its __cuda_array_interface__ has a "
                        "'mask'); Swage takes plain arrays" % (name,))
    address, read_only = interface["data"]
    if read_only:
        raise _read_only(name)
    stream = interface.get("stream")
    if stream is not None and (isinstance(stream, bool) or not isinstance(stream, int)
                               or stream == 0):
        raise ValueError("argument %r has __cuda_array_interface__ 'stream' %r; it must be "
                         "None or a nonzero stream handle (1: the legacy default stream)"
                         % (name, stream))
    return Converted(name, "*" + elem, device="cuda", address=address or 0, nelems=nelems,
                     keepalive=value, stream=stream, origin="cai")


def _buffer(name, value):
    try:
        view = memoryview(value)
    except TypeError:
        return None
    with view:
        fmt, itemsize, nbytes = view.format, view.itemsize, view.nbytes
        readonly, contiguous = view.readonly, view.c_contiguous
    code = fmt.lstrip("@=<")
    if code not in _BUFFER_FORMATS:
        raise TypeError("argument %r is a buffer of format %r, which Swage does not support "
                        "(supported formats: f d e b B h H i I l L q Q ?)" % (name, fmt))
    elem = _BUFFER_FORMATS[code] or (_UINT_BY_SIZE if code in "IL" else _INT_BY_SIZE).get(itemsize)
    if elem is None:
        raise TypeError("argument %r has %d-byte integers, which Swage does not support"
                        % (name, itemsize))
    if readonly:
        raise _read_only(name)
    if not contiguous:
        raise ValueError("argument %r is not a C-contiguous buffer" % (name,))
    # from_buffer takes its own export of the buffer for as long as the
    # ctypes object lives (it is kept alive with the Converted).
    storage = (ctypes.c_char * nbytes).from_buffer(value)
    return Converted(name, "*" + elem, device="cpu",
                     address=ctypes.addressof(storage) if nbytes else 0,
                     nelems=nbytes // itemsize if itemsize else 0, keepalive=(value, storage))


def _annotation_dtype(annotation):
    return annotation if isinstance(annotation, (sl.dtype, sl.pointer_type)) else None


def _int_scalar(name, value, fixed):
    if fixed is not None and fixed.is_float:
        try:
            fvalue = float(value)
        except OverflowError:  # beyond every float type
            raise ValueError("argument %r = %s does not fit in %s" % (
                name, int_text(value), fixed.python_name)) from None
        return _float_scalar(name, fvalue, fixed)
    if fixed is not None:
        limits = _INT_LIMITS[fixed.name]
        if not limits[0] <= value <= limits[1]:
            raise ValueError("argument %r = %s does not fit in %s" % (name, int_text(value),
                                                                    fixed.python_name))
        return Converted(name, fixed.name, kind=_native.ARG_INT,
                         ivalue=_int_bits(fixed.name, value))
    if _INT32_MIN <= value <= _INT32_MAX:
        return Converted(name, "i32", kind=_native.ARG_INT, ivalue=value)
    if _INT64_MIN <= value <= _INT64_MAX:
        return Converted(name, "i64", kind=_native.ARG_INT, ivalue=value)
    if value <= _UINT64_MAX:  # as Triton types such an int: uint64
        return Converted(name, "u64", kind=_native.ARG_INT, ivalue=_int_bits("u64", value))
    raise ValueError("argument %r = %s does not fit in int64 or uint64" % (name, int_text(value)))


def _float_scalar(name, value, fixed, default="f32"):
    if fixed is not None and not fixed.is_float:
        raise TypeError("argument %r is a float but the parameter is annotated %r"
                        % (name, fixed))
    type_ = fixed.name if fixed is not None else default
    fvalue = float(value)
    limits = FLOAT_LIMITS.get(type_)
    # inf and nan pass as they are; a finite value must not become inf.
    if limits is not None and math.isfinite(fvalue) and abs(fvalue) >= limits[1]:
        hint = ("" if fixed is not None else
                "; a Python float is passed as float32: give numpy.float64(%s) for a float64 "
                "parameter" % name)
        raise ValueError("argument %r = %r does not fit in %s (its largest finite value is %r)%s"
                         % (name, fvalue, _FLOAT_NAMES[type_], limits[0], hint))
    return Converted(name, type_, kind=_native.ARG_FLOAT, fvalue=fvalue)


def _numpy_scalar(name, value, fixed):
    elem = _numpy_element(value.dtype)
    if elem is None:
        raise TypeError("argument %r has dtype %s, which Swage does not support (supported: %s)"
                        % (name, value.dtype, _SUPPORTED))
    if fixed is not None:
        if elem.startswith("f") or elem == "bf16":
            return _float_scalar(name, float(value), fixed)
        return _int_scalar(name, int(value), fixed)
    if elem.startswith("f") or elem == "bf16":
        return Converted(name, elem, kind=_native.ARG_FLOAT, fvalue=float(value))
    return Converted(name, elem, kind=_native.ARG_INT, ivalue=_int_bits(elem, int(value)))


def convert(name, value, annotation=None):
    """Converts one runtime argument. ``annotation`` is the parameter's sl
    dtype or sl.pointer type when it has one (it fixes the type)."""
    fixed = _annotation_dtype(annotation)
    if isinstance(fixed, sl.pointer_type):
        converted = _convert_pointer(name, value)
        if converted.type != fixed.name:
            raise TypeError("argument %r has element type %s but the parameter is annotated %r"
                            % (name, converted.type[1:], fixed))
        return converted
    if _is_numpy_scalar(value):  # before float: numpy.float64 subclasses float
        return _numpy_scalar(name, value, fixed)
    if isinstance(value, bool):
        if fixed is not None:
            return _int_scalar(name, int(value), fixed)
        return Converted(name, "i1", kind=_native.ARG_INT, ivalue=int(value))
    if isinstance(value, int):
        return _int_scalar(name, value, fixed)
    if isinstance(value, float):
        return _float_scalar(name, value, fixed)
    converted = _convert_pointer(name, value)
    if fixed is not None:
        raise TypeError("argument %r is an array but the parameter is annotated with the "
                        "scalar type %r" % (name, fixed))
    return converted


def _convert_pointer(name, value):
    if _is_numpy_array(value):
        return _numpy_array(name, value)
    if _is_torch_tensor(value):
        return _torch_tensor(name, value)
    if hasattr(value, "__cuda_array_interface__"):
        return _cuda_array(name, value)
    if not isinstance(value, str):
        converted = _buffer(name, value)
        if converted is not None:
            return converted
    raise TypeError(
        "argument %r has unsupported type %s; pass a NumPy array, a PyTorch tensor, a "
        "writable buffer, an int or a float" % (name, type(value).__name__))


def constexpr_text(name, value):
    """The constexprs-string spelling of one constexpr value."""
    if isinstance(value, bool) or (_is_numpy_scalar(value) and value.dtype.kind == "b"):
        return "True" if value else "False"
    if isinstance(value, int):
        return _constexpr_int(name, value)
    if isinstance(value, float):
        return repr(value)
    if _is_numpy_scalar(value):
        kind = value.dtype.kind
        if kind in "iu":
            return _constexpr_int(name, int(value))
        if kind == "f":
            return repr(float(value))
    if isinstance(value, sl.dtype):
        return value.python_name
    if value is None:
        return "None"
    if isinstance(value, str):
        return _constexpr_str(name, value)
    if isinstance(value, tuple):
        items = [constexpr_text(name, item) for item in value]
        return "(%s)" % (items[0] + "," if len(items) == 1 else ",".join(items))
    try:
        index = operator.index(value)
    except TypeError:
        pass
    else:
        return _constexpr_int(name, index)
    raise TypeError("constexpr %r must be an int, a float, a bool, a str, None, an sl dtype or a "
                    "tuple of these, not %s" % (name, type(value).__name__))


def _constexpr_str(name, value):
    """A string as the constexprs string spells it: single-quoted, with any
    byte outside printable ASCII (and the quote, the backslash) escaped."""
    data = value.encode("utf-8")
    if b"\0" in data:
        raise ValueError("constexpr %r holds a NUL character, which a compile-time string "
                         "may not hold" % (name,))
    out = ["'"]
    for byte in data:
        ch = chr(byte)
        if ch in "\\'\"":
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append("\\x%02x" % byte)
    out.append("'")
    return "".join(out)


def _constexpr_int(name, value):
    """Compile-time integers are int64, as in the kernel's own arithmetic."""
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError("constexpr %r = %s does not fit in int64 (compile-time integers are "
                         "int64: -2**63 to 2**63-1)" % (name, int_text(value)))
    return str(value)

"""swage.language: the names a Swage kernel uses (``import swage.language as sl``).

A kernel's body is compiled by Swage's C frontend from its source text; it
never runs as Python. This module exists so that kernels read as ordinary
Python to editors and linters, so that parameter annotations (``BLOCK:
sl.constexpr``, ``n: sl.int64``) can be inspected, and so that a built-in
called from plain Python fails with a sentence that says what to do instead.
The meaning of every built-in is in docs/language.md.
"""

__all__ = [
    "constexpr", "dtype", "pointer", "pointer_type",
    "int1", "bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "bfloat16", "float32", "float64",
    "program_id", "num_programs", "arange", "load", "store", "where",
    "minimum", "maximum", "exp", "exp2", "log", "log2", "sqrt", "rsqrt",
    "abs", "floor", "ceil", "sin", "cos", "sigmoid", "sum", "max", "min",
    "full", "zeros", "cast", "static_range", "segment_id", "segment",
    "load_segment", "store_segment", "segment_length", "prod",
    "cdiv", "clamp", "fma", "erf", "umulhi", "sqrt_rn", "div_rn", "fdiv", "math",
    "PropagateNan", "multiple_of", "max_contiguous", "max_constancy", "assume", "range",
    "randint", "rand", "randn", "randint4x", "rand4x", "randn4x",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas",
    "cumsum", "cumprod", "associative_scan", "reduce", "argmax", "argmin", "histogram", "gather",
    "trunc", "round", "rint", "nearbyint", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "expm1", "log1p", "log10", "exp10", "cbrt", "pow", "hypot",
    "fmod", "copysign", "isnan", "isinf", "isfinite", "signbit", "finitef", "isfinited", "erfc",
    "broadcast_to", "broadcast", "expand_dims", "reshape", "view", "trans", "permute",
    "join", "split", "interleave", "cat",
]


class constexpr:
    """Annotation marking a compile-time parameter: ``BLOCK: sl.constexpr``.

    Its value comes from ``launch(constexprs={...})`` (or the parameter's
    default) and each distinct value compiles its own specialisation.
    """

    def __init__(self, value=None):
        self.value = value

    def __repr__(self):
        return "sl.constexpr(%r)" % (self.value,)


class dtype:
    """A scalar element type. ``name`` is its spelling in signatures ("f32")."""

    __slots__ = ("name", "python_name", "itemsize", "is_float", "is_signed")

    def __init__(self, name, python_name, itemsize, is_float, is_signed):
        self.name = name
        self.python_name = python_name
        self.itemsize = itemsize
        self.is_float = is_float
        self.is_signed = is_signed

    def __str__(self):
        return self.name

    def __repr__(self):
        return "sl." + self.python_name

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(("dtype", self.name))

    def __reduce__(self):
        return (_dtype_by_python_name, (self.python_name,))


class pointer_type:
    """A pointer to elements of a dtype; ``str(sl.pointer(sl.float32)) == "*f32"``."""

    __slots__ = ("element",)

    def __init__(self, element):
        self.element = element

    @property
    def name(self):
        return "*" + self.element.name

    def __str__(self):
        return self.name

    def __repr__(self):
        return "sl.pointer(%r)" % (self.element,)

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element == self.element

    def __hash__(self):
        return hash(("pointer", self.element.name))


def pointer(element):
    """The type of a pointer to ``element`` (an ``sl`` dtype)."""
    if not isinstance(element, dtype):
        raise TypeError("sl.pointer expects an sl dtype such as sl.float32, got %r" % (element,))
    return pointer_type(element)


int1 = dtype("i1", "int1", 1, False, False)
bool_ = int1
int8 = dtype("i8", "int8", 1, False, True)
uint8 = dtype("u8", "uint8", 1, False, False)
int16 = dtype("i16", "int16", 2, False, True)
uint16 = dtype("u16", "uint16", 2, False, False)
int32 = dtype("i32", "int32", 4, False, True)
uint32 = dtype("u32", "uint32", 4, False, False)
int64 = dtype("i64", "int64", 8, False, True)
uint64 = dtype("u64", "uint64", 8, False, False)
float16 = dtype("f16", "float16", 2, True, True)
bfloat16 = dtype("bf16", "bfloat16", 2, True, True)
float32 = dtype("f32", "float32", 4, True, True)
float64 = dtype("f64", "float64", 8, True, True)

_DTYPES = (int1, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, bfloat16,
           float32, float64)
# Every spelling a signature or an annotation may use for a dtype.
DTYPE_NAMES = {}
for _dt in _DTYPES:
    DTYPE_NAMES[_dt.name] = _dt
    DTYPE_NAMES[_dt.python_name] = _dt
DTYPE_NAMES["bool"] = int1
DTYPE_NAMES["bool_"] = int1
for _dt in (uint8, uint16, uint32, uint64):
    DTYPE_NAMES["ui" + _dt.name[1:]] = _dt  # the IR's spelling, "ui32"
del _dt


def _dtype_by_python_name(name):
    return DTYPE_NAMES[name]


def _kernel_only(name):
    def builtin(*args, **kwargs):
        raise RuntimeError(
            "sl.%s can only be used inside a @sw.jit kernel; compile and run it "
            "with kernel.launch(...)" % name)

    builtin.__name__ = name
    builtin.__qualname__ = name
    builtin.__doc__ = "Swage built-in sl.%s (kernel code only; see docs/language.md)." % name
    return builtin


program_id = _kernel_only("program_id")
num_programs = _kernel_only("num_programs")
arange = _kernel_only("arange")
load = _kernel_only("load")
store = _kernel_only("store")
where = _kernel_only("where")
minimum = _kernel_only("minimum")
maximum = _kernel_only("maximum")
exp = _kernel_only("exp")
exp2 = _kernel_only("exp2")
log = _kernel_only("log")
log2 = _kernel_only("log2")
sqrt = _kernel_only("sqrt")
rsqrt = _kernel_only("rsqrt")
abs = _kernel_only("abs")  # noqa: A001 - the kernel language's name
floor = _kernel_only("floor")
ceil = _kernel_only("ceil")
sin = _kernel_only("sin")
cos = _kernel_only("cos")
sigmoid = _kernel_only("sigmoid")
sum = _kernel_only("sum")  # noqa: A001
max = _kernel_only("max")  # noqa: A001
min = _kernel_only("min")  # noqa: A001
prod = _kernel_only("prod")
full = _kernel_only("full")
zeros = _kernel_only("zeros")
cast = _kernel_only("cast")
static_range = _kernel_only("static_range")
segment_id = _kernel_only("segment_id")
segment = _kernel_only("segment")
load_segment = _kernel_only("load_segment")
store_segment = _kernel_only("store_segment")
segment_length = _kernel_only("segment_length")
_cdiv_in_kernel = _kernel_only("cdiv")


def cdiv(x, y):
    """ceil(x / y): in a kernel, the built-in (docs/language.md); on the host,
    for Python ints (a grid function's ``lambda meta: (sl.cdiv(n,
    meta["BLOCK"]),)``), ``(x + y - 1) // y`` as triton.cdiv computes it."""
    if type(x) is int and type(y) is int:
        return (x + y - 1) // y
    return _cdiv_in_kernel(x, y)


clamp = _kernel_only("clamp")
fma = _kernel_only("fma")
erf = _kernel_only("erf")
umulhi = _kernel_only("umulhi")
sqrt_rn = _kernel_only("sqrt_rn")
div_rn = _kernel_only("div_rn")
fdiv = _kernel_only("fdiv")
multiple_of = _kernel_only("multiple_of")
max_contiguous = _kernel_only("max_contiguous")
max_constancy = _kernel_only("max_constancy")
assume = _kernel_only("assume")
randint = _kernel_only("randint")
rand = _kernel_only("rand")
randn = _kernel_only("randn")
randint4x = _kernel_only("randint4x")
rand4x = _kernel_only("rand4x")
randn4x = _kernel_only("randn4x")
atomic_add = _kernel_only("atomic_add")
atomic_max = _kernel_only("atomic_max")
atomic_min = _kernel_only("atomic_min")
atomic_and = _kernel_only("atomic_and")
atomic_or = _kernel_only("atomic_or")
atomic_xor = _kernel_only("atomic_xor")
atomic_xchg = _kernel_only("atomic_xchg")
atomic_cas = _kernel_only("atomic_cas")
cumsum = _kernel_only("cumsum")
cumprod = _kernel_only("cumprod")
associative_scan = _kernel_only("associative_scan")
reduce = _kernel_only("reduce")
argmax = _kernel_only("argmax")
argmin = _kernel_only("argmin")
histogram = _kernel_only("histogram")
gather = _kernel_only("gather")
trunc = _kernel_only("trunc")
round = _kernel_only("round")  # noqa: A001
rint = _kernel_only("rint")
nearbyint = _kernel_only("nearbyint")
tan = _kernel_only("tan")
asin = _kernel_only("asin")
acos = _kernel_only("acos")
atan = _kernel_only("atan")
atan2 = _kernel_only("atan2")
sinh = _kernel_only("sinh")
cosh = _kernel_only("cosh")
tanh = _kernel_only("tanh")
asinh = _kernel_only("asinh")
acosh = _kernel_only("acosh")
atanh = _kernel_only("atanh")
expm1 = _kernel_only("expm1")
log1p = _kernel_only("log1p")
log10 = _kernel_only("log10")
exp10 = _kernel_only("exp10")
cbrt = _kernel_only("cbrt")
erfc = _kernel_only("erfc")
pow = _kernel_only("pow")  # noqa: A001
hypot = _kernel_only("hypot")
fmod = _kernel_only("fmod")
copysign = _kernel_only("copysign")
isnan = _kernel_only("isnan")
isinf = _kernel_only("isinf")
isfinite = _kernel_only("isfinite")
signbit = _kernel_only("signbit")
finitef = _kernel_only("finitef")
isfinited = _kernel_only("isfinited")
broadcast_to = _kernel_only("broadcast_to")
broadcast = _kernel_only("broadcast")
expand_dims = _kernel_only("expand_dims")
reshape = _kernel_only("reshape")
view = _kernel_only("view")
trans = _kernel_only("trans")
permute = _kernel_only("permute")
join = _kernel_only("join")
split = _kernel_only("split")
interleave = _kernel_only("interleave")
cat = _kernel_only("cat")


class PropagateNan:
    """``propagate_nan=`` of ``sl.clamp``: ``ALL`` gives NaN where any operand
    is NaN; ``NONE`` (the default, as in Triton) ignores NaN."""

    NONE = "NONE"
    ALL = "ALL"


class _MathNamespace:
    """``sl.math``: the math functions under Triton's ``tl.math`` names (each
    is also ``sl.<name>``)."""

    def __init__(self, names):
        for name in names:
            setattr(self, name, globals()[name])

    def __repr__(self):
        return "<namespace swage.language.math>"


math = _MathNamespace(("umulhi", "exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn",
                       "rsqrt", "abs", "fdiv", "div_rn", "erf", "floor", "ceil", "fma",
                       # Triton 2.x's tl.math also had these libdevice functions
                       "trunc", "round", "rint", "nearbyint", "tan", "asin", "acos", "atan",
                       "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1",
                       "log1p", "log10", "exp10", "cbrt", "pow", "hypot", "fmod", "copysign",
                       "isnan", "isinf", "signbit", "finitef", "isfinited", "erfc"))

# Last, so that nothing above means Python's range: sl.range(start, stop,
# step, num_stages=...) in a kernel's for loop.
range = _kernel_only("range")  # noqa: A001 - the kernel language's name

"""The kernel object: ``@sw.jit`` and ``JITFunction.launch`` / ``emit_mlir``.

A JITFunction holds the Python function only for its source text, file and
first line (the C frontend parses the source, so diagnostics point into the
user's file) and for its parameter list. Each launch derives the signature
string from the real arguments, finds or compiles the specialisation (the C
library caches every spec process-wide; a Python dict keyed by (signature,
constexprs) skips even the call on warm launches), and runs it.
"""

import functools
import inspect
import operator
import re
import threading

from . import _args
from . import _native
from . import language as sl

_SEGMENT_BUILTINS = frozenset(
    ["segment_id", "segment", "load_segment", "store_segment", "segment_length"])
_GRID_MAX = (1 << 31) - 1  # program ids are int32
_SCHEDULES = ("auto",)
_POINTER_TEXT = re.compile(r"^(?:[A-Za-z_]\w*\.)*pointer\(\s*(?:[A-Za-z_]\w*\.)*(\w+)\s*\)$")


class _Param:
    __slots__ = ("name", "is_constexpr", "type", "default")

    def __init__(self, name, is_constexpr, type_, default):
        self.name = name
        self.is_constexpr = is_constexpr
        self.type = type_          # sl.dtype / sl.pointer_type fixing the type, or None
        self.default = default     # inspect.Parameter.empty when there is none


def _resolve_annotation(annotation, namespace):
    """Returns sl.constexpr, an sl.dtype, an sl.pointer_type, or None."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):  # postponed annotations (PEP 563)
        text = annotation.strip()
        last = text.rsplit(".", 1)[-1]
        if last == "constexpr":
            return sl.constexpr
        if last in sl.DTYPE_NAMES:
            return sl.DTYPE_NAMES[last]
        match = _POINTER_TEXT.match(text)
        if match and match.group(1) in sl.DTYPE_NAMES:
            return sl.pointer(sl.DTYPE_NAMES[match.group(1)])
        try:
            annotation = eval(text, dict(namespace))  # as typing.get_type_hints does
        except Exception:
            return None
    if annotation is sl.constexpr or isinstance(annotation, sl.constexpr):
        return sl.constexpr
    if isinstance(annotation, (sl.dtype, sl.pointer_type)):
        return annotation
    return None


class JITFunction:
    """A Swage kernel. Run it with ``launch``; read its IR with ``emit_mlir``."""

    def __init__(self, fn, options=None):
        if not inspect.isfunction(fn):
            raise TypeError("@sw.jit decorates a Python function, not %s" % type(fn).__name__)
        self.fn = fn
        self.options = dict(options or {})
        self.__name__ = fn.__name__
        try:
            lines, self.first_line = inspect.getsourcelines(fn)
            self.source = "".join(lines)
            self.file = inspect.getsourcefile(fn) or inspect.getfile(fn)
        except (OSError, TypeError) as e:
            raise OSError(
                "@sw.jit cannot read the source of %s (%s); Swage compiles a kernel from its "
                "source text, so define it in a .py file" % (fn.__qualname__, e)) from e
        namespace = getattr(fn, "__globals__", {})
        self.params = []
        for p in inspect.signature(fn).parameters.values():
            resolved = _resolve_annotation(p.annotation, namespace)
            self.params.append(_Param(p.name, resolved is sl.constexpr,
                                      None if resolved is sl.constexpr else resolved, p.default))
        self._runtime = [p for p in self.params if not p.is_constexpr]
        self._by_name = {p.name: p for p in self.params}
        self._uses_segments = bool(_SEGMENT_BUILTINS & set(fn.__code__.co_names))
        self._cache = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return "<swage kernel %s from %s:%d>" % (self.__name__, self.file, self.first_line)

    def __call__(self, *args, **kwargs):
        raise TypeError(
            "Swage kernels are not called directly; use %s.launch(arguments={...}, grid=(...))"
            % self.__name__)

    # ---- specialisation -------------------------------------------------

    def _compile(self, signature, constexprs):
        """The C kernel handle for one specialisation (compiled at most once
        per process by the C cache; the dict here skips the call when warm)."""
        key = (signature, constexprs)
        with self._lock:
            kernel = self._cache.get(key)
        if kernel is not None:
            return kernel
        # Compile outside the lock: the C library is thread-safe and returns
        # the same handle to threads that race on one spec.
        kernel = _native.compile_kernel(self.source, self.file, self.first_line, self.__name__,
                                        signature, constexprs)
        with self._lock:
            return self._cache.setdefault(key, kernel)

    def _constexpr_text(self, constexprs):
        if constexprs is None:
            constexprs = {}
        if not hasattr(constexprs, "items"):
            raise TypeError("constexprs must be a dict of {name: value}, not %s"
                            % type(constexprs).__name__)
        unknown = [name for name in constexprs if name not in self._by_name]
        if unknown:
            raise TypeError("%s has no parameter%s %s" % (self.__name__, _plural(unknown),
                                                          _names(unknown)))
        runtime = [name for name in constexprs if not self._by_name[name].is_constexpr]
        if runtime:
            raise TypeError("%s %s not sl.constexpr; pass %s in arguments={...}"
                            % (_names(runtime), "is" if len(runtime) == 1 else "are",
                               "it" if len(runtime) == 1 else "them"))
        missing = [p.name for p in self.params if p.is_constexpr and p.name not in constexprs
                   and p.default is inspect.Parameter.empty]
        if missing:
            raise TypeError("%s.launch is missing constexpr%s %s: pass constexprs={%s}"
                            % (self.__name__, _plural(missing), _names(missing),
                               ", ".join("%r: ..." % m for m in missing)))
        return ",".join("%s=%s" % (p.name, _args.constexpr_text(p.name, constexprs[p.name]))
                        for p in self.params if p.is_constexpr and p.name in constexprs)

    def _convert_arguments(self, arguments):
        if not hasattr(arguments, "items"):
            raise TypeError("arguments must be a dict of {parameter name: value}, not %s"
                            % type(arguments).__name__)
        unknown = [name for name in arguments if name not in self._by_name]
        if unknown:
            raise TypeError("%s has no parameter%s %s" % (self.__name__, _plural(unknown),
                                                          _names(unknown)))
        constexpr = [name for name in arguments if self._by_name[name].is_constexpr]
        if constexpr:
            raise TypeError("%s %s sl.constexpr; pass %s in constexprs={...}, not arguments"
                            % (_names(constexpr), "is" if len(constexpr) == 1 else "are",
                               "it" if len(constexpr) == 1 else "them"))
        missing = [p.name for p in self._runtime
                   if p.name not in arguments and p.default is inspect.Parameter.empty]
        if missing:
            raise TypeError("%s.launch is missing argument%s %s" % (self.__name__,
                                                                   _plural(missing),
                                                                   _names(missing)))
        converted = []
        for p in self._runtime:
            value = arguments[p.name] if p.name in arguments else p.default
            converted.append(_args.convert(p.name, value, p.type))
        return converted

    def _signature_text(self, signature):
        if isinstance(signature, str):
            return signature
        if not hasattr(signature, "items"):
            raise TypeError("signature must be a dict {name: type} or a string like "
                            "'x_ptr=*f32,n=i32', not %s" % type(signature).__name__)
        unknown = [name for name in signature if name not in self._by_name]
        if unknown:
            raise TypeError("%s has no parameter%s %s" % (self.__name__, _plural(unknown),
                                                          _names(unknown)))
        constexpr = [name for name in signature if self._by_name[name].is_constexpr]
        if constexpr:
            raise TypeError("%s %s sl.constexpr; give %s in constexprs={...}, not the signature"
                            % (_names(constexpr), "is" if len(constexpr) == 1 else "are",
                               "its value" if len(constexpr) == 1 else "their values"))
        parts, missing = [], []
        for p in self._runtime:
            if p.name in signature:
                type_ = signature[p.name]
                if not isinstance(type_, (str, sl.dtype, sl.pointer_type)):
                    raise TypeError("the signature type of %r must be a string like '*f32' "
                                    "or an sl type, not %s" % (p.name, type(type_).__name__))
                parts.append("%s=%s" % (p.name, type_))
            elif p.type is not None:
                parts.append("%s=%s" % (p.name, p.type))
            else:
                missing.append(p.name)
        if missing:
            raise TypeError("the signature is missing %s" % _names(missing))
        return ",".join(parts)

    # ---- public ---------------------------------------------------------

    def launch(self, *args, arguments=None, constexprs=None, grid=None, schedule="auto",
               unsafe=False):
        """Runs the kernel over ``grid`` programs. Keyword-only; returns None.

        arguments: {parameter: value} for every runtime parameter (NumPy
        arrays, buffers, CPU tensors, Python/NumPy scalars); constexprs:
        {name: value} for the sl.constexpr parameters; grid: programs per axis,
        an int or a tuple of 1-3 ints. Synchronous on the CPU.
        """
        if args:
            raise TypeError("%s.launch takes keyword arguments only: "
                            "%s.launch(arguments=..., grid=...)" % (self.__name__, self.__name__))
        if arguments is None:
            raise TypeError("%s.launch needs arguments={...}: "
                            "%s.launch(arguments=..., grid=...)" % (self.__name__, self.__name__))
        converted = self._convert_arguments(arguments)
        constexpr_text = self._constexpr_text(constexprs)
        grid3 = self._grid(grid)
        if schedule not in _SCHEDULES:
            raise ValueError("schedule=%r is not available in this build; use schedule='auto' "
                             "(forced schedules come with the GPU backend)" % (schedule,))
        if not isinstance(unsafe, bool):
            raise TypeError("unsafe must be True or False, not %r" % (unsafe,))
        signature = ",".join("%s=%s" % (c.name, c.type) for c in converted)
        kernel = self._compile(signature, constexpr_text)
        if any(c.device != "cpu" for c in converted):
            return self._launch_gpu(kernel, grid3, converted, schedule, unsafe)
        # `converted` keeps every buffer alive until the call returns.
        _native.launch_cpu(kernel, grid3, [c.to_arg() for c in converted])
        return None

    def _launch_gpu(self, kernel, grid, converted, schedule, unsafe):
        # The single place the CUDA backend will fill in: every launch with
        # an argument on the GPU comes here.
        on_gpu = [c.name for c in converted if c.device != "cpu"]
        raise RuntimeError(
            "GPU execution is not available in this build of Swage (argument%s %s on the GPU); "
            "run the kernel on the CPU with NumPy arrays, CPU tensors or buffers"
            % (_plural(on_gpu), _names(on_gpu)))

    def _grid(self, grid):
        if grid is None:
            if self._uses_segments:
                raise RuntimeError("%s is a segment kernel; segment kernels (with a grid derived "
                                   "from the offsets) are not available in this build yet"
                                   % self.__name__)
            raise TypeError("%s is a fixed-block kernel, so launch needs grid=(...): the number "
                            "of programs on each axis" % self.__name__)
        if isinstance(grid, (tuple, list)):
            extents = list(grid)
            if not 1 <= len(extents) <= 3:
                raise ValueError("grid must have 1 to 3 axes, got %d" % len(extents))
        else:
            extents = [grid]
        out = []
        for axis, extent in enumerate(extents):
            if isinstance(extent, bool):
                raise TypeError("grid axis %d must be an int, not bool" % axis)
            try:
                extent = operator.index(extent)
            except TypeError:
                raise TypeError("grid must be an int or a tuple of 1 to 3 ints; axis %d is %s"
                                % (axis, type(extent).__name__)) from None
            if extent < 0:
                raise ValueError("grid axis %d is %d; extents must be >= 0" % (axis, extent))
            if extent > _GRID_MAX:
                raise ValueError("grid axis %d is %d; extents must be < 2**31" % (axis, extent))
            out.append(extent)
        return out + [1] * (3 - len(out))

    def emit_mlir(self, *, signature=None, arguments=None, constexprs=None, stage="semantic",
                  locations=False):
        """The kernel's IR as MLIR text.

        signature: {name: "*f32" | sl.float32 | sl.pointer(sl.float32)} or
        "x_ptr=*f32,n=i32"; or arguments= to derive it from real arguments.
        stage: "source" (straight from the frontend) or "semantic" (after the
        default passes). locations=True appends loc("file":line:col).
        """
        if stage not in _native.STAGES:
            raise ValueError("stage must be one of %s, not %r"
                             % (", ".join(repr(s) for s in _native.STAGES), stage))
        if signature is not None and arguments is not None:
            raise TypeError("give emit_mlir either signature= or arguments=, not both")
        if arguments is not None:
            text = ",".join("%s=%s" % (c.name, c.type)
                            for c in self._convert_arguments(arguments))
        elif signature is not None:
            text = self._signature_text(signature)
        elif all(p.type is not None for p in self._runtime):
            text = self._signature_text({})
        else:
            raise TypeError("%s.emit_mlir needs signature={...} (e.g. {%r: '*f32'}) or "
                            "arguments={...}" % (self.__name__, self._runtime[0].name))
        kernel = self._compile(text, self._constexpr_text(constexprs))
        return _native.emit_mlir(kernel, stage, bool(locations))


def _names(names):
    return ", ".join("'%s'" % n for n in names)


def _plural(items):
    return "s" if len(items) != 1 else ""


_OPTIONS = ()  # keyword options of @sw.jit(...); none are defined yet


def jit(fn=None, **options):
    """Marks a function as a Swage kernel: ``@sw.jit`` or ``@sw.jit()``."""
    unknown = [name for name in options if name not in _OPTIONS]
    if unknown:
        raise TypeError("sw.jit got unknown option%s %s" % (_plural(unknown), _names(unknown)))
    if fn is None:
        return lambda f: JITFunction(f, options)
    return JITFunction(fn, options)

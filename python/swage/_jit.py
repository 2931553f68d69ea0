"""The kernel object: ``@sw.jit`` and ``JITFunction.launch`` / ``emit_mlir``
/ ``emit_ptx``.

A JITFunction holds the Python function only for its source text, file and
first line (the C frontend parses the source, so diagnostics point into the
user's file) and for its parameter list. Each launch derives the signature
string from the real arguments, finds or compiles the specialisation (a
least-recently-used cache per kernel, keyed by (signature, constexprs) and
capped at `cache_size` entries, holds the C kernel handles; an evicted
handle's C kernel is freed once nothing references it), and runs it: on the
CPU executors when every array is in host memory, or through the CUDA Driver
API when every array is on one CUDA device, asynchronously on the current
stream. ``kernel[grid](*args, **kwargs)`` is Triton's spelling of the same
launch: it binds the arguments to the parameters, as Triton does, and calls
``launch`` (_BracketLaunch).

A GPU launch with PyTorch tensors and int/float scalars that has been seen
before (same argument kinds, tensor dtypes and constexprs) takes the warm
path instead: code generated for the kernel's parameters (_WarmLauncher)
makes the same checks on the tensors in straight-line Python and hands one
packed buffer to swageKernelLaunchCudaPacked, about two microseconds of
Python where the general path takes tens. That generated code becomes the
kernel's `launch` attribute, so a warm call is one Python frame. A segment
program's warm path (_WarmSegmentLauncher) is generated the same way and
hands one packed buffer to swageKernelLaunchSegmentsCudaPacked.
"""

import atexit
import collections
import ctypes
import functools
import inspect
import operator
import os
import queue
import re
import struct
import sys
import threading

from . import _args
from . import _native
from ._native import CompileError
from . import _offsets
from . import _suggest
from . import language as sl

_MISSING = object()
_SEGMENT_BUILTINS = frozenset(
    ["segment_id", "segment", "load_segment", "store_segment", "segment_length"])
_GRID_MAX = (1 << 31) - 1  # program ids are int32
_SCHEDULES = _native.SCHEDULES
_EXECUTORS = ("semantic", "simt")
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
        self._cache_size = _cache_size_option(self.options.get("cache_size", _MISSING))
        self.__name__ = fn.__name__
        debug = self.options.get("debug")
        if debug is not None and not isinstance(debug, bool):
            raise TypeError("debug must be True, False or None, not %r" % (debug,))
        self.debug = debug  # accepted as Triton's; changes nothing (docs/api.md)
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
        # what kernel[grid](...) binds (_BracketLaunch): the parameters in order
        self._names = tuple(p.name for p in self.params)
        self._runtime_names = frozenset(p.name for p in self._runtime)
        self._constexpr_names = frozenset(p.name for p in self.params if p.is_constexpr)
        self._constexpr_count = len(self._constexpr_names)
        # the runtime arguments by position and nothing else is the usual call:
        # it binds in a few C-level steps when every runtime parameter comes
        # before every constexpr and no parameter is named like a launch option
        ordered = all(not p.is_constexpr for p in self.params[:len(self._runtime)])
        self._leading = (len(self._runtime) if ordered
                         and not _LAUNCH_OPTION_SET & set(self._names) else -1)
        self._required_constexprs = any(p.is_constexpr and p.default is inspect.Parameter.empty
                                        for p in self.params)
        self.do_not_specialize = self._do_not_specialize(self.options.get("do_not_specialize"))
        # (signature, constexprs) -> _native.Kernel, least recently used first
        self._cache = collections.OrderedDict()
        self._lock = threading.Lock()
        # Warm GPU launches (CUDA tensors and plain int/float scalars, seen
        # before) run generated straight-line code instead (see _WarmLauncher).
        self._warm_ok = (_native.PACKED_LAUNCH and not self._uses_segments
                         and all(p.type is None for p in self._runtime))
        self._warm = {}            # argument kinds -> _WarmLauncher
        self._warm_attempt = None  # the attempt function of the kinds used last, or None
        # Warm segment launches (_WarmSegmentLauncher): the same idea for
        # segment programs, whatever the schedule and unsafe.
        self._warm_segments_ok = (_native.PACKED_SEGMENTS
                                  and all(p.type is None for p in self._runtime))
        self._warm_segments = {}          # argument kinds -> _WarmSegmentLauncher
        self._warm_segment_attempt = None  # the attempt of the kinds used last, or None
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return "<swage kernel %s from %s:%d>" % (self.__name__, self.file, self.first_line)

    def __call__(self, *args, **kwargs):
        raise TypeError("Swage kernels are not called directly; use %s or %s"
                        % (self._bracket_hint(), self._launch_hint()))

    def __getitem__(self, grid):
        """``kernel[grid](*args, **kwargs)``: Triton's launch, the same launch
        as ``kernel.launch(arguments=..., constexprs=..., grid=grid)``.
        Positional arguments bind to the parameters in order, keywords by
        name (runtime parameters and constexprs alike); the other keywords
        are launch options (num_warps, num_stages, num_ctas, schedule,
        unsafe, executor). ``grid`` is an int, a tuple of 1 to 3 ints or a
        callable of the meta-parameters (a dict of every parameter's value,
        defaults included, and the launch options given) that returns one.
        A segment program has no grid: ``kernel[()](...)``."""
        return _BracketLaunch(self, grid)

    def _launch_hint(self):
        """A correct launch() call, as code, for messages."""
        return _suggest.launch_call(self.__name__, self._uses_segments,
                                    self._required_constexprs)

    def _bracket_hint(self):
        """A correct kernel[grid](...) call, as code, for messages."""
        return _suggest.bracket_call(
            self.__name__, self._uses_segments,
            [(p.name, p.is_constexpr, p.default is not inspect.Parameter.empty)
             for p in self.params])

    def _do_not_specialize(self, entries):
        """@sw.jit(do_not_specialize=...): names or indices of runtime
        parameters, as Triton takes them; returns the names. Swage never
        specialises on a runtime argument's value (docs/api.md), so the
        option is checked and kept, and changes nothing."""
        if entries is None:
            return ()
        if isinstance(entries, (str, int)):
            entries = [entries]
        try:
            entries = list(entries)
        except TypeError:
            raise TypeError("do_not_specialize must be a list of parameter names or indices, "
                            "not %s" % type(entries).__name__) from None
        names = []
        for entry in entries:
            if isinstance(entry, bool) or not isinstance(entry, (str, int)):
                raise TypeError("do_not_specialize takes parameter names or indices, not %r"
                                % (entry,))
            if isinstance(entry, int):
                if not -len(self.params) <= entry < len(self.params):
                    raise TypeError("do_not_specialize index %d is out of range: %s has %d "
                                    "parameter%s (%s)" % (entry, self.__name__, len(self.params),
                                                          _plural(self.params),
                                                          ", ".join(self._names) or "none"))
                entry = self.params[entry].name
            elif entry not in self._by_name:
                raise TypeError("do_not_specialize: " + _suggest.no_such_parameter(
                    self.__name__, [entry], list(self._names)))
            if self._by_name[entry].is_constexpr:
                raise TypeError("do_not_specialize names %r, which is sl.constexpr: a "
                                "constexpr's value is compiled into the kernel, so each value "
                                "is its own specialisation; make it a runtime parameter "
                                "instead" % entry)
            if entry not in names:
                names.append(entry)
        return tuple(names)

    # ---- specialisation -------------------------------------------------

    def _compile(self, signature, constexprs, num_warps=None):
        """The C kernel handle for one specialisation, from the LRU cache or
        compiled (the C library returns the same handle to threads that race
        on one spec while it is cached). Beyond cache_size entries, the least
        recently used one is evicted, from the warm paths' tables too: its
        C kernel is freed once no launch or caller still holds its handle.
        num_warps (None: the compiler's choice) sets a grid program's CTA
        to 32 x num_warps threads; segment programs ignore it."""
        key = (signature, constexprs) if num_warps is None else (signature, constexprs, num_warps)
        with self._lock:
            kernel = self._cache.get(key)
            if kernel is not None:
                self._cache.move_to_end(key)
                return kernel
        # Compile outside the lock: the C library is thread-safe.
        kernel = _native.compile_kernel(self.source, self.file, self.first_line, self.__name__,
                                        signature, constexprs, functions=self._functions(),
                                        num_threads=32 * num_warps if num_warps else 0)
        evicted = []
        with self._lock:
            found = self._cache.get(key)
            if found is not None:  # another thread was first: ours is released
                self._cache.move_to_end(key)
                return found
            self._cache[key] = kernel
            while self._cache_size and len(self._cache) > self._cache_size:
                evicted.append(self._cache.popitem(last=False)[1])
            if evicted:
                self._forget_warm(evicted)
        return kernel

    def _named_values(self):
        """The (name, value) pairs this function's body can reach by a
        plain name: its module's globals, and its closure variables (which
        shadow them)."""
        code = self.fn.__code__
        found = {}
        namespace = getattr(self.fn, "__globals__", {})
        for name in code.co_names:
            if name in namespace:
                found[name] = namespace[name]
        for name, cell in zip(code.co_freevars, self.fn.__closure__ or ()):
            try:
                found[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
        return found

    def _functions(self):
        """(name, source, file, first_line) of every @sw.jit function the
        kernel can call by name, directly or through the functions it calls
        (the C frontend inlines them). One name means one function in the
        whole call tree."""
        table = {}
        pending, seen = [self], set()
        while pending:
            function = pending.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            for name, value in sorted(function._named_values().items()):
                if not isinstance(value, JITFunction):
                    continue
                known = table.get(name)
                if known is not None and known[0] is not value:
                    raise CompileError(
                        "two different @sw.jit functions are called '%s' in %s's call tree (%s:%d "
                        "and %s:%d); Swage finds called functions by name, so give them different "
                        "names" % (name, self.__name__, known[0].file, known[0].first_line,
                                   value.file, value.first_line))
                table[name] = (value, function)
                pending.append(value)
        return tuple((name, f.source, f.file, f.first_line)
                     for name, (f, _) in sorted(table.items()))

    def _forget_warm(self, evicted):
        """Drops evicted handles from the warm paths' tables (the warm code's
        last-used handle stays referenced until another one replaces it)."""
        gone = {id(k) for k in evicted}
        for warm in list(self._warm.values()) + list(self._warm_segments.values()):
            for key, kernel in list(warm.kernels.items()):
                if id(kernel) in gone:
                    warm.kernels.pop(key, None)
            sizes = getattr(warm, "sizes", None)  # scratch sizes, keyed by kernel handles
            if sizes:
                sizes.clear()

    def _cached(self, kernel):
        """Whether `kernel` is still in the LRU cache (not evicted since)."""
        with self._lock:
            return any(k is kernel for k in self._cache.values())

    def _constexpr_text(self, constexprs):
        if constexprs is None:
            constexprs = {}
        if not hasattr(constexprs, "items"):
            raise TypeError("constexprs must be a dict of {name: value}, not %s"
                            % type(constexprs).__name__)
        unknown = [name for name in constexprs if name not in self._by_name]
        if unknown:
            raise TypeError(_suggest.no_such_parameter(self.__name__, unknown,
                                                       [p.name for p in self.params]))
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
            raise TypeError(_suggest.no_such_parameter(self.__name__, unknown,
                                                       [p.name for p in self.params]))
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
            raise TypeError(_suggest.no_such_parameter(self.__name__, unknown,
                                                       [p.name for p in self.params]))
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
               unsafe=False, executor="semantic", num_warps=None, num_stages=None,
               num_ctas=None):
        """Runs the kernel over ``grid`` programs. Keyword-only; returns None.

        arguments: {parameter: value} for every runtime parameter (NumPy
        arrays, buffers, CPU tensors, Python/NumPy scalars; or PyTorch CUDA
        tensors and __cuda_array_interface__ objects, all on one device);
        constexprs: {name: value} for the sl.constexpr parameters; grid:
        programs per axis, an int or a tuple of 1-3 ints.

        A segment program (docs/segments.md) takes no grid: it runs one
        program per segment of its offsets argument (a 1-D int32/int64 array
        of segments + 1 elements). Its offsets are checked first (they start
        at >= 0, never decrease, and end within every buffer read or written
        through them; a ValueError names the first bad segment) unless
        ``unsafe=True``, which skips the check and its host synchronisation
        (the generated code still stays inside the buffers).

        On the CPU the launch is synchronous; ``executor`` picks the CPU
        executor: "semantic" (the reference) or "simt" (the per-thread program
        the GPU runs). On a GPU the launch is asynchronous, on the current
        PyTorch stream of the tensors' device (for __cuda_array_interface__
        objects, their 'stream', else the legacy default stream).

        num_warps, num_stages and num_ctas are Triton's launch options,
        accepted and checked so that Triton launches run unchanged. num_warps
        sets a grid program's CTA to 32 x num_warps threads (it is part of
        the specialisation; without it Swage chooses from the longest tile),
        on the GPU and on the SIMT executor alike; a segment program takes
        its threads from its schedule and ignores it, as it does num_stages
        and num_ctas. ``kernel[grid](...)`` is the same launch with Triton's
        argument binding.
        """
        if num_warps is not None or num_stages is not None or num_ctas is not None:
            num_warps = _check_triton_options(num_warps, num_stages, num_ctas)
        attempt = self._warm_attempt
        if (attempt is not None and not args and executor == "semantic" and schedule == "auto"
                and unsafe is False and attempt(arguments, constexprs, grid, num_warps)):
            return None
        attempt = self._warm_segment_attempt
        if attempt is not None and attempt(args, arguments, constexprs, grid, schedule, unsafe,
                                           executor):
            return None
        return self._launch_general(*args, arguments=arguments, constexprs=constexprs, grid=grid,
                                    schedule=schedule, unsafe=unsafe, executor=executor,
                                    num_warps=num_warps)

    def _launch_bracket(self, grid, args, kwargs):
        """kernel[grid](*args, **kwargs): binds the arguments as Triton does
        (positional ones to the parameters in order, keywords by name,
        runtime parameters and constexprs alike; any other keyword must be a
        launch option), checks what only this form can get wrong, with
        messages that show this form, and calls launch() with the dicts:
        the one launch path."""
        arguments = options = None
        if len(args) == self._leading:
            # the usual call: the runtime arguments by position, then
            # constexprs and launch options by name (kwargs is the call's own)
            extra = kwargs.keys() - self._constexpr_names
            if not extra:
                arguments, constexprs = dict(zip(self._names, args)), kwargs
            elif extra <= _LAUNCH_OPTION_SET:
                options = {key: kwargs.pop(key) for key in _LAUNCH_OPTIONS if key in extra}
                arguments, constexprs = dict(zip(self._names, args)), kwargs
            if arguments is not None and len(constexprs) != self._constexpr_count:
                self._check_missing(dict(arguments, **constexprs))
        if arguments is None:
            arguments, constexprs, options = self._bind(args, kwargs)
        if self._uses_segments:
            if type(grid) is not tuple or grid:
                raise TypeError(
                    "%s is a segment program: it runs one program per segment of its offsets, "
                    "so it takes no grid: call it as %s" % (self.__name__, self._bracket_hint()))
            grid = None
        else:
            if callable(grid):
                grid = grid(self._meta(dict(arguments, **constexprs), options))
                if grid is None or (isinstance(grid, (tuple, list)) and not grid):
                    raise TypeError("the grid function of %s returned %r; it must return the "
                                    "number of programs on each axis, 1 to 3 ints, as in "
                                    "lambda meta: (programs,)" % (self._bracket_text(), grid))
            elif grid is None or (isinstance(grid, (tuple, list)) and not grid):
                raise TypeError(
                    "%s is a grid program: put the number of programs on each axis in the "
                    "brackets, %s with grid = (programs,) or lambda meta: (programs,)%s"
                    % (self.__name__, self._bracket_hint(),
                       " ([()] is a segment program's launch)" if grid is not None else ""))
        if options is None:
            return self.launch(arguments=arguments, constexprs=constexprs, grid=grid)
        return self.launch(arguments=arguments, constexprs=constexprs, grid=grid, **options)

    def _bind(self, args, kwargs):
        """(arguments, constexprs, options or None) of a kernel[grid](...)
        call, bound one name at a time, with this form's errors."""
        names = self._names
        if len(args) > len(names):
            raise TypeError(self._arity_text(len(args)))
        bound = dict(zip(names, args))
        options = None
        if kwargs:
            by_name = self._by_name
            unknown = None
            for key, value in kwargs.items():
                if key in by_name:
                    if key in bound:
                        raise TypeError("%s got two values for parameter %r: one by position "
                                        "and %s=..." % (self._bracket_text(), key, key))
                    bound[key] = value
                elif key in _LAUNCH_OPTION_SET:
                    if options is None:
                        options = {}
                    options[key] = value
                elif unknown is None:
                    unknown = [key]
                else:
                    unknown.append(key)
            if unknown is not None:
                raise TypeError(self._unknown_keyword_text(unknown))
        if len(bound) != len(names):
            self._check_missing(bound)
        arguments, constexprs = {}, {}
        runtime = self._runtime_names
        for name, value in bound.items():
            if name in runtime:
                arguments[name] = value
            else:
                constexprs[name] = value
        return arguments, constexprs, options

    def _bracket_text(self):
        return "%s(...)" % _suggest.bracket_name(self.__name__, self._uses_segments)

    def _arity_text(self, given):
        count = len(self._names)
        return "%s takes %s but %d %s given%s" % (
            self._bracket_text(),
            "no arguments" if not count else "%d argument%s" % (count, _plural(self._names)),
            given, "was" if given == 1 else "were",
            " (its parameters: %s)" % ", ".join(self._names) if count else "")

    def _unknown_keyword_text(self, unknown):
        text = _suggest.no_such_keyword(self._bracket_text(), unknown, list(self._names),
                                        _LAUNCH_OPTIONS)
        if set(unknown) & {"grid", "arguments", "constexprs"}:
            text += ("; in this form the grid goes in the brackets and every parameter is "
                     "passed by position or by name: %s" % self._bracket_hint())
        return text

    def _check_missing(self, bound):
        """Raises the TypeError of a kernel[grid](...) call that leaves out a
        parameter without a default."""
        empty = inspect.Parameter.empty
        arguments = [p.name for p in self._runtime if p.name not in bound and p.default is empty]
        constexprs = [p.name for p in self.params if p.is_constexpr and p.name not in bound
                      and p.default is empty]
        if not arguments and not constexprs:
            return
        parts = []
        if arguments:
            parts.append("argument%s %s" % (_plural(arguments), _names(arguments)))
        if constexprs:
            parts.append("constexpr%s %s" % (_plural(constexprs), _names(constexprs)))
        raise TypeError("%s is missing %s; call it as %s"
                        % (self._bracket_text(), " and ".join(parts), self._bracket_hint()))

    def _meta(self, bound, options):
        """What a grid function gets, as Triton gives it: a new dict of every
        parameter's value (defaults included) and the launch options given."""
        empty = inspect.Parameter.empty
        meta = {}
        for p in self.params:
            if p.name in bound:
                meta[p.name] = bound[p.name]
            elif p.default is not empty:
                meta[p.name] = p.default
        if options:
            meta.update(options)
        return meta

    def _launch_general(self, *args, arguments=None, constexprs=None, grid=None, schedule="auto",
                        unsafe=False, executor="semantic", num_warps=None):
        """launch without the warm path: converts and checks every argument,
        compiles or finds the specialisation, launches, and (on a GPU) makes
        the warm path for calls like this one."""
        if args:
            raise TypeError("%s.launch takes keyword arguments only: %s; to pass arguments by "
                            "position, use %s" % (self.__name__, self._launch_hint(),
                                                  self._bracket_hint()))
        if arguments is None:
            raise TypeError("%s.launch needs arguments={...}: %s"
                            % (self.__name__, self._launch_hint()))
        converted = self._convert_arguments(arguments)
        constexpr_text = self._constexpr_text(constexprs)
        self._check_schedule(schedule)
        if not isinstance(unsafe, bool):
            raise TypeError("unsafe must be True or False, not %r" % (unsafe,))
        if executor not in _EXECUTORS:
            raise ValueError("executor must be 'semantic' or 'simt', not %r" % (executor,))
        on_gpu = [c for c in converted if c.device == "cuda"]
        device, stream = self._gpu_placement(converted, on_gpu, executor) if on_gpu else (0, 0)
        signature = ",".join("%s=%s" % (c.name, c.type) for c in converted)
        kernel = self._compile(signature, constexpr_text, num_warps)
        segment = _native.segment_launch_facts(kernel)
        # `converted` keeps every buffer alive until the call returns; on the
        # GPU the caller's tensors must outlive the kernel, as with any
        # asynchronous launch.
        args = [c.to_arg() for c in converted]
        if segment is not None:
            if grid is not None:
                raise TypeError("%s is a segment program: segment programs derive their grid from "
                                "the offsets; leave grid out: %s.launch(arguments={...})"
                                % (self.__name__, self.__name__))
            self._launch_segments(kernel, segment, converted, arguments, constexprs, args, on_gpu,
                                  device, stream, schedule, unsafe, executor)
            return None
        if schedule != "auto":
            raise ValueError("%s is a grid program: schedule=%r applies to segment programs only "
                             "(a grid program runs its grid as given)" % (self.__name__, schedule))
        grid3 = self._grid(grid)
        if on_gpu:
            _native.launch_cuda(kernel, device, stream, grid3, args)
            if self._warm_ok:
                self._remember_warm(arguments, constexprs, converted, kernel, num_warps)
        else:
            _run_cpu(_native.launch_cpu, kernel, grid3, args, executor)
        return None

    def _launch_segments(self, kernel, facts, converted, arguments, constexprs, args, on_gpu,
                         device, stream, schedule, unsafe, executor):
        """A segment program's launch (docs/schedules.md): on the GPU the
        schedule's task kernels, with the offsets check fused into the first
        of them unless unsafe=True; on the CPU the oracle, or with
        executor="simt" the same task kernels on the SIMT executor."""
        segments = _offsets.segment_count(self.__name__, facts, converted, arguments)
        if not on_gpu and executor == "semantic" and schedule != "auto":
            raise ValueError("schedule=%r needs executor='simt' on the CPU: the semantic executor "
                             "is the reference and runs every segment on its own, without a "
                             "schedule" % (schedule,))
        if segments == 0:
            return  # no segments: nothing to run
        if not on_gpu:
            if not unsafe:
                _offsets.check_host(self.__name__, facts, converted, arguments)
            if executor == "semantic":
                _run_cpu(_native.launch_cpu, kernel, [segments, 1, 1], args, executor)
                return
            if _run_cpu(_native.launch_segments_simt, kernel, schedule, args, not unsafe):
                raise RuntimeError("swage internal error: the offsets of %s passed the host check "
                                   "but the schedule's check flagged them" % self.__name__)
            return
        nbytes = _native.segment_scratch_bytes(kernel, device, schedule, args)
        scratch = _Scratch(on_gpu, device, stream, nbytes)
        try:
            bad = _native.launch_segments_cuda(kernel, device, stream, schedule, args,
                                               scratch.address, nbytes, not unsafe)
        finally:
            scratch.release()
        if bad:
            raise ValueError(_offsets.describe_device(self.__name__, facts, converted, arguments,
                                                      device, stream))
        if self._warm_segments_ok:
            self._remember_warm_segments(arguments, constexprs, converted, kernel, facts)

    def _remember_warm_segments(self, arguments, constexprs, converted, kernel, facts):
        """After a GPU segment launch through the general path: lets later
        launches with the same argument kinds, tensor dtypes and constexprs
        take _WarmSegmentLauncher's path."""
        torch = sys.modules.get("torch")
        kinds = _warm_kinds(torch, arguments, converted)
        if kinds is None or kinds[facts[0]] != "tensor" or not _warm_constexprs_ok(constexprs):
            return
        warm = self._warm_segments.get(kinds)
        if warm is None or warm.torch is not torch:
            warm = _WarmSegmentLauncher(self, [c.name for c in converted], kinds, facts, torch)
            self._warm_segments[kinds] = warm
        key = warm.key(arguments, constexprs)
        if key is not None and self._cached(kernel):
            warm.kernels[key] = kernel
            # as for grid programs (_remember_warm): `kernel.launch` is now the
            # generated entry, and the method tries the attempt first
            self._warm_segment_attempt = warm.attempt
            self.launch = warm.launch

    def _raise_bad_offsets(self, arguments, facts, device, stream):
        """The ValueError of a warm segment launch whose offsets check failed."""
        converted = self._convert_arguments(arguments)
        raise ValueError(_offsets.describe_device(self.__name__, facts, converted, arguments,
                                                  device, stream))

    # ---- warm GPU launches ------------------------------------------------------

    def _remember_warm(self, arguments, constexprs, converted, kernel, num_warps=None):
        """After a GPU launch through the general path: lets later launches
        with the same argument kinds, tensor dtypes and constexprs take the
        warm path (_WarmLauncher) straight to the kernel."""
        torch = sys.modules.get("torch")
        kinds = _warm_kinds(torch, arguments, converted)
        if kinds is None or "tensor" not in kinds:
            return  # no tensor to take the device from
        if not _warm_constexprs_ok(constexprs):
            return
        warm = self._warm.get(kinds)
        if warm is None or warm.torch is not torch:
            warm = _WarmLauncher(self.__name__, [c.name for c in converted],
                                 [p.name for p in self.params if p.is_constexpr], kinds, torch,
                                 self._launch_general)
            self._warm[kinds] = warm
        key = warm.key(arguments, constexprs, num_warps)
        if key is not None and self._cached(kernel):  # not evicted meanwhile
            warm.kernels[key] = kernel
            # the pattern of the latest launch: `kernel.launch` is now its
            # generated entry (an instance attribute over the method), and the
            # method tries its attempt first (for callers holding the method)
            self._warm_attempt = warm.attempt
            self.launch = warm.launch

    def _gpu_placement(self, converted, on_gpu, executor):
        """(device ordinal, CUstream as an int) for a launch with GPU
        arguments, after checking that CUDA works and that every array is on
        one device."""
        names = [c.name for c in on_gpu]
        reason = _native.cuda_unavailable_reason()
        if reason is not None:
            raise RuntimeError(
                "GPU execution is not available: %s (argument%s %s %s on the GPU); run the "
                "kernel on the CPU with NumPy arrays, CPU tensors or buffers"
                % (reason, _plural(names), _names(names), "is" if len(names) == 1 else "are"))
        on_cpu = [c for c in converted if c.device == "cpu"]
        if on_cpu:
            raise ValueError(
                "%s.launch got arrays on different devices: %s on %s but %s on the CPU; pass "
                "every array on the same GPU (or every array on the CPU)"
                % (self.__name__, _names(names), on_gpu[0].where(),
                   _names([c.name for c in on_cpu])))
        if executor != "semantic":
            raise ValueError("executor=%r runs on the CPU, but the arguments are on the GPU; "
                             "leave executor out for a GPU launch" % (executor,))
        first = None
        for c in on_gpu:
            if c.device_index is None and c.address:
                try:
                    c.device_index = _native.pointer_device(c.address)
                except ValueError as e:
                    raise ValueError("argument %r: its __cuda_array_interface__ pointer is not "
                                     "usable: %s" % (c.name, e)) from None
            if c.device_index is None:
                continue  # an empty array: any device will do
            if first is None:
                first = c
            elif c.device_index != first.device_index:
                raise ValueError(
                    "%s.launch got arrays on different GPUs: %r is on cuda:%d but %r is on "
                    "cuda:%d; put every array on one device"
                    % (self.__name__, first.name, first.device_index, c.name, c.device_index))
        device = first.device_index if first is not None else _current_torch_device()
        return device, _launch_stream(on_gpu, device)

    def _grid(self, grid):
        if grid is None:
            raise TypeError("%s is a grid program, so launch needs grid=(...), the number of "
                            "programs on each axis: %s" % (self.__name__, self._launch_hint()))
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

    def _specialise(self, what, signature, arguments, constexprs, num_warps=None):
        """The kernel handle for emit_mlir/emit_ptx from a signature or real
        arguments."""
        if signature is not None and arguments is not None:
            raise TypeError("give %s either signature= or arguments=, not both" % what)
        if arguments is not None:
            text = ",".join("%s=%s" % (c.name, c.type)
                            for c in self._convert_arguments(arguments))
        elif signature is not None:
            text = self._signature_text(signature)
        elif all(p.type is not None for p in self._runtime):
            text = self._signature_text({})
        else:
            raise TypeError("%s.%s needs signature={...} (e.g. {%r: '*f32'}) or "
                            "arguments={...}" % (self.__name__, what, self._runtime[0].name))
        if num_warps is not None:
            num_warps = _check_triton_options(num_warps, None, None)
        return self._compile(text, self._constexpr_text(constexprs), num_warps)

    def emit_mlir(self, *, signature=None, arguments=None, constexprs=None, stage="semantic",
                  locations=False, schedule="auto", num_warps=None):
        """The kernel's IR as MLIR text.

        signature: {name: "*f32" | sl.float32 | sl.pointer(sl.float32)} or
        "x_ptr=*f32,n=i32"; or arguments= to derive it from real arguments.
        stage: "source" (straight from the frontend), "semantic" (after the
        default passes), "plan" (a segment program's task kernels for
        `schedule`, docs/schedules.md) or "simt" (the per-thread programs
        the PTX is printed from; for a segment program, of `schedule`).
        locations=True appends loc("file":line:col). num_warps as for launch.
        """
        if stage not in _native.STAGES:
            raise ValueError("stage must be one of %s, not %r"
                             % (", ".join(repr(s) for s in _native.STAGES), stage))
        self._check_schedule(schedule)
        kernel = self._specialise("emit_mlir", signature, arguments, constexprs, num_warps)
        return _native.emit_mlir(kernel, stage, bool(locations), schedule)

    def emit_ptx(self, *, signature=None, arguments=None, constexprs=None, sm=90,
                 schedule="auto", num_warps=None):
        """The kernel as PTX text for compute capability ``sm`` (90 for sm_90,
        80 for sm_80); for a segment program, every task kernel of
        `schedule` as an entry of one module. Needs no GPU.
        signature/arguments/constexprs/num_warps as for emit_mlir."""
        if isinstance(sm, bool) or not isinstance(sm, int):
            raise TypeError("sm must be an int such as 90 (for sm_90), not %r" % (sm,))
        self._check_schedule(schedule)
        kernel = self._specialise("emit_ptx", signature, arguments, constexprs, num_warps)
        return _native.emit_ptx(kernel, sm, schedule)

    def plan(self, *, arguments, constexprs=None, schedule="auto", bandwidth=None):
        """What a launch of this segment program with these arguments does,
        as a Plan (print it): the schedule's policies and thresholds, how
        many segments, elements and tasks each policy gets, the launches in
        order with the bytes each moves, and -- with bandwidth= in GB/s --
        the time those bytes take. Reads the offsets (a copy to the host for
        GPU arrays); runs nothing. On the GPU the plan is the one the device
        would run; on the CPU, the SIMT executor's."""
        self._check_schedule(schedule)
        if bandwidth is not None and (isinstance(bandwidth, bool)
                                      or not isinstance(bandwidth, (int, float)) or bandwidth <= 0):
            raise ValueError("bandwidth must be a positive number of GB/s, not %r" % (bandwidth,))
        converted = self._convert_arguments(arguments)
        on_gpu = [c for c in converted if c.device == "cuda"]
        device, stream = self._gpu_placement(converted, on_gpu, "semantic") if on_gpu else (-1, 0)
        signature = ",".join("%s=%s" % (c.name, c.type) for c in converted)
        kernel = self._compile(signature, self._constexpr_text(constexprs))
        facts = _native.segment_launch_facts(kernel)
        if facts is None:
            raise TypeError("%s is a grid program: only segment programs have a plan"
                            % self.__name__)
        segments = _offsets.segment_count(self.__name__, facts, converted, arguments)
        offsets = _offsets.host_values(converted[facts[0]], device, stream)
        args = [c.to_arg() for c in converted]
        text = _native.plan_text(kernel, device, schedule, args, offsets, bandwidth)
        return Plan(text, schedule, segments)

    def _check_schedule(self, schedule):
        if not isinstance(schedule, str) or schedule not in _SCHEDULES:
            raise ValueError("schedule must be one of %s, not %r"
                             % (", ".join(repr(s) for s in _SCHEDULES), schedule))


class Plan:
    """A segment program's plan for one launch (JITFunction.plan): str() is
    the report; .schedule and .segments say what it was made for."""

    __slots__ = ("text", "schedule", "segments")

    def __init__(self, text, schedule, segments):
        self.text, self.schedule, self.segments = text, schedule, segments

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<swage plan, schedule %r, %d segments>" % (self.schedule, self.segments)


def _warm_kinds(torch, arguments, converted):
    """The argument kinds of a launch for a warm path: per runtime argument
    "tensor" (a PyTorch tensor), "int" (a Python int of an i32 parameter) or
    "float" (a Python float of an f32 one); None when torch is not loaded,
    the arguments are not a dict, or any argument is something else (a
    default, a CuPy array, a bool, an int64, a NumPy scalar...)."""
    if torch is None or type(arguments) is not dict:
        return None
    kinds = []
    for c in converted:
        value = arguments.get(c.name, _MISSING)
        if type(value) is torch.Tensor and c.origin == "torch":
            kinds.append("tensor")
        elif type(value) is int and c.type == "i32":
            kinds.append("int")
        elif type(value) is float and c.type == "f32":
            kinds.append("float")
        else:
            return None
    return tuple(kinds)


def _warm_constexprs_ok(constexprs):
    """Whether the warm path's constexpr key, (value, type) per name, tells
    these constexprs' specialisations apart: not for unhashable values, nor
    for float zeros (0.0 == -0.0 but they specialise differently), nor NaN,
    nor tuples (their items compare by value: (1,) == (1.0,) == (True,)).
    Strings and None are told apart by (value, type)."""
    if constexprs is None:
        return True
    if type(constexprs) is not dict:
        return False
    for value in constexprs.values():
        if isinstance(value, tuple):
            return False
        try:
            hash(value)
            if type(value) not in (int, bool) and (value == 0 or value != value):
                return False  # a float zero, or a NaN (equal to no other NaN)
        except Exception:
            return False
    return True


def _warm_checks(names, kinds, constexpr_names):
    """The checks both warm launchers make first, as generated code (with
    {fail} where a call that is not for them leaves): the exact argument
    names and count, each argument's kind (torch.Tensor, int, float), CUDA
    tensors on one device (`device`), contiguity, the constexprs by name
    (c0, c1, ...: the value or MISSING), then each tensor's dtype (d0, d1,
    ...). Returns (text, tensor variables, dtype variables, constexpr
    variables); argument i is variable a<i>."""
    tensors = ["a%d" % i for i, kind in enumerate(kinds) if kind == "tensor"]
    dtypes = ["d%d" % i for i in range(len(tensors))]
    cx = ["c%d" % i for i in range(len(constexpr_names))]
    checks = {"tensor": "Tensor", "int": "int", "float": "float"}
    lines = []
    emit = lines.append
    emit("    if type(arguments) is not dict or len(arguments) != %d:" % len(names))
    emit("        return {fail}")
    emit("    try:")
    for i, name in enumerate(names):
        emit("        a%d = arguments[%r]" % (i, name))
    emit("    except KeyError:")
    emit("        return {fail}")
    emit("    if " + " or ".join("type(a%d) is not %s" % (i, checks[kind])
                                 for i, kind in enumerate(kinds)) + ":")
    emit("        return {fail}")
    emit("    if not (" + " and ".join("%s.is_cuda" % t for t in tensors) + "):")
    emit("        return {fail}")
    emit("    device = %s.get_device()" % tensors[0])
    if len(tensors) > 1:
        emit("    if " + " or ".join("%s.get_device() != device" % t for t in tensors[1:])
             + ":")
        emit("        return {fail}")
    emit("    if not (" + " and ".join("%s.is_contiguous()" % t for t in tensors) + "):")
    emit("        return {fail}")
    if cx:
        emit("    if constexprs is None:")
        emit("        " + " = ".join(cx) + " = MISSING")
        emit("    elif type(constexprs) is dict:")
        for c, name in zip(cx, constexpr_names):
            emit("        %s = constexprs.get(%r, MISSING)" % (c, name))
        emit("        if len(constexprs) != " + " + ".join("(%s is not MISSING)" % c
                                                           for c in cx) + ":")
        emit("            return {fail}  # a name that is no constexpr")
        emit("    else:")
        emit("        return {fail}")
    else:
        emit("    if constexprs:")
        emit("        return {fail}")
    for d, t in zip(dtypes, tensors):
        emit("    %s = %s.dtype" % (d, t))
    return "\n".join(lines) + "\n", tensors, dtypes, cx


class _WarmLauncher:
    """Straight-line launch code for one kernel and one pattern of argument
    kinds (each runtime parameter a torch.Tensor, an int or a float),
    generated with exec as Triton generates its launchers: a general launch
    costs tens of microseconds of Python, this one about two.

    Three functions are generated from one body:
      launch(*args, arguments=None, ..., executor="semantic")
          the kernel's `launch` itself once this pattern is the latest one
          (JITFunction._remember_warm makes it an instance attribute, so a
          call costs no extra frame); a call that is not for it goes to the
          general path (`general`), which raises the right error or compiles
          the new specialisation;
      attempt(arguments, constexprs, grid)
          the same body for JITFunction.launch (a caller holding the bound
          method): True when it launched, False -- having done nothing -- when
          the call is not for it;
      key(arguments, constexprs)
          the specialisation key of a call, or None.

    A call is not for it when: other keyword values than the defaults for
    schedule, unsafe and executor (compared by identity: an equal string
    that is another object just takes the general path), another argument
    kind or count, a tensor that is not a contiguous CUDA tensor of the
    common device, a dtype or constexpr value not seen yet, an int out of
    int32 range, a float out of float32 range, a grid that is not 1 to 3
    ints in uint32 range. Every check of the general path that protects
    correctness is made on every call: the exact argument names, types and
    count, CUDA tensors on one device, contiguity, and the specialisation --
    tensor dtypes and constexpr values with their types -- through `kernels`
    (with the last one found kept in one tuple, LAST, and compared by
    identity first).
    """

    def __init__(self, kernel_name, names, constexpr_names, kinds, torch, general):
        self.kinds = kinds
        self.torch = torch
        self.kernels = {}  # key -> kernel handle
        checks_text, tensors, dtypes, cx = _warm_checks(names, kinds, constexpr_names)
        key = "(%s,)" % ", ".join(dtypes + ["%s, type(%s)" % (c, c) for c in cx] + ["num_warps"])
        # the last specialisation found, as one tuple (one load reads it whole,
        # so a thread never mixes two of them)
        last = ["L" + d for d in dtypes] + ["L" + c for c in cx] + ["LT" + c for c in cx] + ["Lnw"]
        same = (["%s is L%s" % (d, d) for d in dtypes]
                + ["type(%s) is LT%s and %s == L%s" % (c, c, c, c) for c in cx]
                + ["num_warps == Lnw"])
        values = ", ".join("a%d.data_ptr()" % i if kind == "tensor" else "a%d" % i
                           for i, kind in enumerate(kinds))
        launch_text = (_WARM_GRID
                       + "    %s, kernel = LAST\n" % ", ".join(last)
                       + "    if not (%s):\n" % " and ".join(same)
                       + "        try:\n"
                         "            kernel = kernels[%s]\n"
                         "        except (KeyError, TypeError):\n"
                         "            return {fail}\n"
                         "        LAST = (%s, kernel)\n"
                       % (key, ", ".join(dtypes + cx + ["type(%s)" % c for c in cx] + ["num_warps"]))
                       + "    try:\n"
                         "        buffer = pack(kernel, stream(device), device, g0, g1, g2, "
                         "PARAMS_SIZE, 0, %s)\n"
                         "    except (StructError, OverflowError):\n"
                         "        return {fail}\n"
                         "    status = native.cuda_launch_packed(buffer, None)\n"
                         "    if status:\n"
                         "        native.raise_last_error(status)\n"
                         "    return {done}\n" % values)
        to_general = ("general(*args, arguments=arguments, constexprs=constexprs, grid=grid, "
                      "schedule=schedule, unsafe=unsafe, executor=executor, num_warps=num_warps)")
        source = ("def key(arguments, constexprs, num_warps):\n"
                  + checks_text.format(fail="None")
                  + "    return %s\n\n" % key)
        source += ("def attempt(arguments, constexprs, grid, num_warps):\n"
                   "    global LAST\n"
                   + (checks_text + launch_text).format(fail="False", done="True") + "\n")
        source += ("def launch(*args, arguments=None, constexprs=None, grid=None, "
                   "schedule=AUTO, unsafe=False, executor=SEMANTIC, num_warps=None, "
                   "num_stages=None, num_ctas=None):\n"
                   "    global LAST\n"
                   "    if num_warps is not None or num_stages is not None "
                   "or num_ctas is not None:\n"
                   "        num_warps = check_options(num_warps, num_stages, num_ctas)\n"
                   "    if args or schedule is not AUTO or unsafe is not False "
                   "or executor is not SEMANTIC:\n"
                   "        return {fail}\n"
                   + checks_text + launch_text).format(fail=to_general, done="None")
        types = ["*u8" if kind == "tensor" else "i32" if kind == "int" else "f32"
                 for kind in kinds]
        layout = _native.launch_struct(types)
        raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # as Triton
        namespace = {
            "Tensor": torch.Tensor, "MISSING": _MISSING, "kernels": self.kernels,
            "LAST": (_MISSING,) * len(last) + (None,),
            "pack": layout.pack, "PARAMS_SIZE": layout.size - _native.LAUNCH_HEADER_SIZE,
            "stream": raw_stream or (lambda device: torch.cuda.current_stream(device).cuda_stream),
            "StructError": struct.error, "native": _native, "general": general,
            "AUTO": "auto", "SEMANTIC": "semantic", "check_options": _check_triton_options,
        }
        self.source = source
        exec(compile(source, "<swage warm launch of %s>" % kernel_name, "exec"), namespace)
        self.key, self.attempt, self.launch = namespace["key"], namespace["attempt"], \
            namespace["launch"]
        self.launch.__doc__ = JITFunction.launch.__doc__


class _WarmSegmentLauncher:
    """The warm path of a segment program's GPU launches, for one pattern of
    argument kinds (each runtime parameter a torch.Tensor, an int or a
    float, the offsets a tensor), whatever the schedule and unsafe: code
    generated for the pattern, as _WarmLauncher's. The general path converts
    and checks every argument, compiles or finds the specialisation and
    builds ctypes records, tens of microseconds of Python; this one makes
    the checks that protect correctness in straight-line code (the exact
    argument names, kinds and count; CUDA tensors of one device,
    contiguous; the offsets 1-D; ints in int32 range, floats in float32
    range; the specialisation -- tensor dtypes and constexpr values with
    their types -- through `kernels`, the last one found kept in LAST),
    asks the C library for the scratch size only for sizes it has not seen
    (the plan depends on nothing else: `sizes`), takes the scratch from
    PyTorch's caching allocator and hands one bytes object -- a
    swage_segment_launch header and the swage_arg records -- to
    swageKernelLaunchSegmentsCudaPacked, a ctypes call without argtypes
    (converting eleven declared arguments cost more than the C launch).

    Three functions, as _WarmLauncher's: `launch` (the kernel's `launch`
    once this pattern is the latest; a call that is not for it goes to the
    general path, which raises the right error or compiles the new
    specialisation), `attempt` (for JITFunction.launch: True when it
    launched, False having done nothing) and `key`. A check that fails
    (unsafe=False) raises the general path's ValueError.
    """

    def __init__(self, function, names, kinds, facts, torch):
        self.kinds = kinds
        self.torch = torch
        self.kernels = {}  # key -> kernel handle
        self.sizes = {}    # (kernel, schedule, device, sizes the plan reads) -> scratch bytes
        constexpr_names = [p.name for p in function.params if p.is_constexpr]
        checks_text, tensors, dtypes, cx = _warm_checks(names, kinds, constexpr_names)
        offsets = "a%d" % facts[0]
        # the plan reads the segments and the lengths of the segment buffers
        # (tensors: the kernel's pointer parameters)
        planned = ["n%d" % facts[0]] + ["n%d" % i for i in sorted(set(facts[1]))
                                        if kinds[i] == "tensor"]
        key = "(%s,)" % ", ".join(dtypes + ["%s, type(%s)" % (c, c) for c in cx])
        last = ["L" + d for d in dtypes] + ["L" + c for c in cx] + ["LT" + c for c in cx]
        same = (["%s is L%s" % (d, d) for d in dtypes]
                + ["type(%s) is LT%s and %s == L%s" % (c, c, c, c) for c in cx])
        lines = []
        emit = lines.append
        emit("    %s, kernel = LAST" % ", ".join(last))  # (the offsets make one dtype at least)
        emit("    if not (%s):" % " and ".join(same))
        emit("        try:")
        emit("            kernel = kernels[%s]" % key)
        emit("        except (KeyError, TypeError):")
        emit("            return {fail}")
        emit("        LAST = (%s, kernel)" % ", ".join(dtypes + cx + ["type(%s)" % c for c in cx]))
        emit("    if %s.dim() != 1:" % offsets)
        emit("        return {fail}")
        fields = []
        for i, kind in enumerate(kinds):
            a = "a%d" % i
            if kind == "tensor":
                emit("    n%d = %s.numel()" % (i, a))
                fields.append("BUFFER, %s.data_ptr(), n%d, 0, 0.0" % (a, i))
            elif kind == "int":
                emit("    if not -0x80000000 <= %s <= 0x7fffffff:" % a)
                emit("        return {fail}")
                fields.append("INT, 0, 0, %s, 0.0" % a)
            else:  # inf and nan pass as they are; a finite value must not become inf
                emit("    if %s - %s == 0 and not -F32_ROUNDS_TO_INF < %s < F32_ROUNDS_TO_INF:"
                     % (a, a, a))
                emit("        return {fail}")
                fields.append("FLOAT, 0, 0, 0, %s" % a)
        emit("    if n%d < 2:" % facts[0])
        emit("        return {done} if n%d == 1 else {fail}  # no segments: nothing to run"
             % facts[0])
        emit("    if n%d > SEGMENTS_MAX:" % facts[0])
        emit("        return {fail}")
        emit("    seen = (kernel, index, device, %s)" % ", ".join(planned))
        emit("    nbytes = sizes.get(seen)")
        emit("    if nbytes is None:")
        emit("        nbytes = scratch_bytes(kernel, device, index, pack_args(%s), %d)"
             % (", ".join(fields), len(kinds)))
        emit("        if len(sizes) >= 64:")
        emit("            sizes.clear()")
        emit("        sizes[seen] = nbytes")
        fresh = ("scratch = empty(nbytes if nbytes > 16 else 16, dtype=uint8, "
                 "device=torch_device('cuda', device))")
        launch_fresh = ("status = launch_packed(pack(kernel, stream, scratch.data_ptr(), nbytes, "
                        "device, index, %d, check, %s), None)" % (len(kinds), ", ".join(fields)))
        if _scratch_cache_enabled():
            # the stream's kept scratch (_ScratchCache): no allocation, no clear
            emit("    stream = stream_of(device)")
            emit("    key = (device, stream) if stream != PER_THREAD else (device, stream, ident())")
            emit("    kept = scratches.get(key)")
            emit("    if kept is None or kept[2] < nbytes:")
            emit("        kept = keep_scratch(key, nbytes)")
            emit("    if kept is not None:")
            emit("        lock = kept[3]")
            emit("        lock.acquire()")
            emit("        try:")
            emit("            status = launch_packed(pack(kernel, stream, kept[1], kept[2], device, "
                 "index, %d, check | KEPT, %s), None)" % (len(kinds), ", ".join(fields)))
            emit("            if status and status != OFFSETS_BAD and status != CAPTURING:")
            emit("                drop_scratch(key, kept)  # it may be dirty now")
            emit("        finally:")
            emit("            lock.release()")
            emit("    if kept is None or status == CAPTURING:  # a graph gets a scratch of its own")
            emit("        " + fresh)
            emit("        " + launch_fresh)
        else:
            emit("    " + fresh)
            emit("    stream = stream_of(device)")
            emit("    " + launch_fresh)
        emit("    if status:")
        emit("        if status == OFFSETS_BAD:")
        emit("            raise_bad_offsets(arguments, FACTS, device, stream)")
        emit("        raise_last_error(status)")
        emit("    return {done}")
        launch_text = "\n".join(lines) + "\n"
        options = ("    if type(schedule) is not str:\n"
                   "        return {fail}\n"
                   "    index = SCHEDULES.get(schedule)\n"
                   "    if index is None:\n"
                   "        return {fail}\n"
                   "    if unsafe is False:\n"
                   "        check = 1\n"
                   "    elif unsafe is True:\n"
                   "        check = 0\n"
                   "    else:\n"
                   "        return {fail}\n")
        to_general = ("general(*args, arguments=arguments, constexprs=constexprs, grid=grid, "
                      "schedule=schedule, unsafe=unsafe, executor=executor, num_warps=num_warps)")
        source = ("def key(arguments, constexprs):\n"
                  + checks_text.format(fail="None")
                  + "    return %s\n\n" % key)
        source += ("def attempt(args, arguments, constexprs, grid, schedule, unsafe, executor):\n"
                   "    global LAST\n"
                   "    if args or grid is not None or executor != SEMANTIC:\n"
                   "        return False\n"
                   + (options + checks_text + launch_text).format(fail="False", done="True")
                   + "\n")
        source += ("def launch(*args, arguments=None, constexprs=None, grid=None, "
                   "schedule=AUTO, unsafe=False, executor=SEMANTIC, num_warps=None, "
                   "num_stages=None, num_ctas=None):\n"
                   "    global LAST\n"
                   "    if num_warps is not None or num_stages is not None "
                   "or num_ctas is not None:\n"
                   "        num_warps = check_options(num_warps, num_stages, num_ctas)\n"
                   "    if args or grid is not None or executor is not SEMANTIC:\n"
                   "        return {fail}\n"
                   + options + checks_text + launch_text).format(fail=to_general, done="None")
        nargs = len(kinds)
        record = _native.ARG_RECORD[1:]
        raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # as Triton
        namespace = {
            "Tensor": torch.Tensor, "MISSING": _MISSING, "kernels": self.kernels,
            "sizes": self.sizes, "LAST": (_MISSING,) * len(last) + (None,),
            "scratches": _scratch_cache.entries, "keep_scratch": _scratch_cache.keep,
            "drop_scratch": _scratch_cache.drop, "KEPT": _native.SEGMENT_SCRATCH_KEPT,
            "CAPTURING": _native.SEGMENT_CAPTURING,
            # CU_STREAM_PER_THREAD names another stream on each thread
            "PER_THREAD": 2, "ident": threading.get_ident,
            "SCHEDULES": {name: i for i, name in enumerate(_native.SCHEDULES)},
            "pack": struct.Struct(_native.SEGMENT_LAUNCH_HEADER + record * nargs).pack,
            "pack_args": struct.Struct("@" + record * nargs).pack,
            "BUFFER": _native.ARG_BUFFER, "INT": _native.ARG_INT, "FLOAT": _native.ARG_FLOAT,
            "F32_ROUNDS_TO_INF": _args.FLOAT_LIMITS["f32"][1], "SEGMENTS_MAX": _GRID_MAX + 1,
            "scratch_bytes": _native.segment_scratch_bytes_packed,
            "launch_packed": _native.launch_segments_cuda_packed,
            "OFFSETS_BAD": _native.SEGMENT_OFFSETS_BAD, "raise_last_error": _native.raise_last_error,
            "raise_bad_offsets": function._raise_bad_offsets, "FACTS": facts,
            "empty": torch.empty, "uint8": torch.uint8, "torch_device": torch.device,
            "stream_of": raw_stream or (lambda device: torch.cuda.current_stream(device).cuda_stream),
            "general": function._launch_general, "check_options": _check_triton_options,
            "AUTO": "auto", "SEMANTIC": "semantic",
        }
        self.source = source
        exec(compile(source, "<swage warm segment launch of %s>" % function.__name__, "exec"),
             namespace)
        self.key, self.attempt, self.launch = namespace["key"], namespace["attempt"], \
            namespace["launch"]
        self.launch.__doc__ = JITFunction.launch.__doc__


# The grid part of the warm launch: (g0, g1, g2) from an int or a tuple of 1
# to 3 ints (bools are not ints here, as in the general path).
_WARM_GRID = """\
    if type(grid) is tuple:
        n = len(grid)
        if n == 1:
            g0, = grid
            g1 = g2 = 1
        elif n == 2:
            g0, g1 = grid
            g2 = 1
        elif n == 3:
            g0, g1, g2 = grid
        else:
            return {fail}
    elif type(grid) is int:
        g0, g1, g2 = grid, 1, 1
    else:
        return {fail}
    if type(g0) is not int or type(g1) is not int or type(g2) is not int:
        return {fail}
"""


class _BracketLaunch:
    """What ``kernel[grid]`` returns: calling it launches the kernel over
    `grid` (JITFunction._launch_bracket)."""

    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, **kwargs):
        return self.kernel._launch_bracket(self.grid, args, kwargs)

    def __repr__(self):
        return "<swage launch of %s over grid %r>" % (self.kernel.__name__, self.grid)


# The keywords of kernel[grid](...) that are not parameters: launch()'s
# options, Triton's first.
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "schedule", "unsafe", "executor")
_LAUNCH_OPTION_SET = frozenset(_LAUNCH_OPTIONS)


def _triton_int(name, value):
    if isinstance(value, bool):
        raise TypeError("%s must be an int, not bool" % name)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s must be an int, not %s" % (name, type(value).__name__)) from None


def _check_triton_options(num_warps, num_stages, num_ctas):
    """Triton's launch options, accepted with the values Triton accepts
    (docs/api.md); returns num_warps as an int (or None)."""
    if num_warps is not None:
        value = _triton_int("num_warps", num_warps)
        if not 1 <= value <= 32 or value & (value - 1):
            raise ValueError("num_warps must be a power of two from 1 to 32, not %d" % value)
        num_warps = value
    if num_stages is not None and _triton_int("num_stages", num_stages) < 0:
        raise ValueError("num_stages must be 0 or more, not %d" % num_stages)
    if num_ctas is not None and _triton_int("num_ctas", num_ctas) < 1:
        raise ValueError("num_ctas must be 1 or more, not %d" % num_ctas)
    return num_warps


class _CpuCall:
    __slots__ = ("fn", "args", "done", "result", "error", "cancelled")

    def __init__(self, fn, args):
        self.fn, self.args, self.result, self.error, self.cancelled = fn, args, None, None, False
        self.done = threading.Lock()
        self.done.acquire()


class _CpuRunner:
    """Runs the CPU launches of the main thread on a helper thread, so that
    Python's own signal handling reaches them. While the C executor runs on
    the helper thread, the main thread waits on a lock, where CPython runs
    signal handlers: Ctrl-C's default handler raises KeyboardInterrupt
    there (a handler the program installed runs as usual). The wait then
    sets the helper thread's cancel flag (swageCpuSetCancelFlag), which the
    executor polls before every program and loop iteration, waits the few
    milliseconds until the launch has stopped and put every buffer back as
    it was, and lets the exception go on. No signal handler is installed.

    An exception may arrive at any bytecode, also before the call was
    queued, so an interrupted call is marked cancelled and queued again: the
    helper runs a call at most once (never once it is cancelled) and
    releases its lock each time it takes it from the queue, so the wait
    below always ends, and never before the launch has stopped."""

    def __init__(self):
        self.flag = ctypes.c_int(0)
        self.calls = queue.SimpleQueue()
        self.busy = False
        self.thread = threading.Thread(target=self._serve, name="swage-cpu-launch", daemon=True)
        self.thread.start()

    def _serve(self):
        _native.set_cancel_flag(self.flag)
        while True:
            call = self.calls.get()
            if not call.cancelled and call.fn is not None:
                try:
                    call.result = call.fn(*call.args)
                except BaseException as e:  # handed to the caller
                    call.error = e
                call.fn = call.args = None
            try:
                call.done.release()
            except RuntimeError:
                pass  # a cancelled call queued twice

    def run(self, fn, *args):
        if self.busy:  # a signal handler launching while a launch runs
            return fn(*args)
        self.busy = True
        call = _CpuCall(fn, args)
        try:
            self.flag.value = 0
            self.calls.put(call)
            call.done.acquire()
        except BaseException:
            call.cancelled = True
            self.flag.value = 1
            while True:
                try:
                    self.calls.put(call)
                    break
                except BaseException:
                    pass
            while True:
                try:
                    call.done.acquire()
                    break
                except BaseException:
                    pass  # a second Ctrl-C: the launch is stopping anyway
            raise
        finally:
            self.busy = False
        error, call.error = call.error, None
        if error is not None:
            try:
                raise error
            finally:
                error = None
        return call.result


_cpu_runner = None
_cpu_runner_lock = threading.Lock()


def _run_cpu(fn, *args):
    """fn(*args), a CPU launch: on the helper thread (_CpuRunner) when
    called from the main thread, where signals are handled; inline on
    other threads (CPython runs signal handlers only on the main thread)."""
    global _cpu_runner
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    runner = _cpu_runner
    if runner is None:
        with _cpu_runner_lock:
            if _cpu_runner is None and _native.CPU_CANCEL:
                _cpu_runner = _CpuRunner()
            runner = _cpu_runner
        if runner is None:  # a library without swageCpuSetCancelFlag
            return fn(*args)
    return runner.run(fn, *args)


def _forget_cpu_runner():
    global _cpu_runner, _cpu_runner_lock
    _cpu_runner, _cpu_runner_lock = None, threading.Lock()  # its thread is not in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_cpu_runner)


class _Scratch:
    """Device memory for a segment launch's scratch: from PyTorch's caching
    allocator when an argument is a PyTorch tensor (stream-ordered, so it is
    free again for later work on the same stream as soon as this call
    drops it), else allocated through the driver and freed after the
    launch's stream has finished."""

    __slots__ = ("tensor", "address", "device", "stream", "owned")

    def __init__(self, on_gpu, device, stream, nbytes):
        self.tensor, self.owned, self.device, self.stream = None, 0, device, stream
        torch = sys.modules.get("torch")
        if torch is not None and any(c.origin == "torch" for c in on_gpu):
            self.tensor = torch.empty(max(nbytes, 16), dtype=torch.uint8,
                                      device=torch.device("cuda", device))
            self.address = self.tensor.data_ptr()
        else:
            self.address = self.owned = _native.cuda_alloc(device, max(nbytes, 16))

    def release(self):
        self.tensor = None
        if self.owned:
            _native.cuda_copy_to_host(self.device, self.stream, self.owned, 0)  # waits for the stream
            _native.cuda_free(self.device, self.owned)
            self.owned = 0


def _scratch_cache_enabled():
    """Whether warm segment launches keep a scratch per (device, stream):
    SWAGE_SCRATCH_CACHE=0 in the environment turns it off (read when a warm
    path is generated), as does a library without it."""
    if os.environ.get("SWAGE_SCRATCH_CACHE", "").strip() == "0":
        return False
    return _native.stream_is_capturing is not None


class _ScratchCache:
    """The scratch of warm segment launches, kept per (device, CUstream):
    a PyTorch uint8 tensor from the caching allocator, its address, its
    size and a lock. Its header is zero between launches (the task kernels
    clear what they count; swage.h, SWAGE_SEGMENT_SCRATCH_KEPT), so a launch
    needs neither an allocation nor a clear. The first launch on a stream,
    and one that needs more than the stream's scratch holds, takes a new
    one (torch.zeros, queued on that stream, twice what it needs up to a
    power of two, at least 4 KiB); the one it replaces goes back to
    PyTorch's allocator, stream-ordered like any tensor. Launches on one
    stream share it (the stream orders them; the lock keeps one launch's
    queuing from interleaving with another's, so that a launch that failed
    half-way is dropped before the next can take it); two streams never do.
    A stream capturing a CUDA graph gets none (the graph takes a scratch of
    its own, as before). The tensors stay allocated (torch.cuda.empty_cache
    does not free them) until the process exits or clear() is called."""

    def __init__(self):
        # (device, stream) -> (tensor, address, bytes, lock); the per-thread
        # default stream (CU_STREAM_PER_THREAD, 2) is a stream per thread:
        # (device, 2, thread id)
        self.entries = {}
        self.lock = threading.Lock()

    def keep(self, key, nbytes):
        """A scratch of at least nbytes for key, cleared, or None when the
        stream is capturing."""
        device, stream = key[:2]
        if _native.stream_is_capturing(device, stream or None):
            return None
        torch = sys.modules["torch"]
        size = 4096
        while size < nbytes:
            size *= 2
        with self.lock:
            kept = self.entries.get(key)
            if kept is not None and kept[2] >= nbytes:
                return kept  # another thread grew it
            tensor = torch.zeros(size, dtype=torch.uint8, device=torch.device("cuda", device))
            kept = self.entries[key] = (tensor, tensor.data_ptr(), size, threading.Lock())
            return kept

    def drop(self, key, kept):
        with self.lock:
            if self.entries.get(key) is kept:
                del self.entries[key]

    def clear(self):
        with self.lock:
            self.entries.clear()


_scratch_cache = _ScratchCache()
atexit.register(_scratch_cache.clear)


def _current_torch_device():
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            return torch.cuda.current_device()
        except Exception:
            pass
    return 0


def _torch_stream(device):
    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton uses: fast
    if raw is not None:
        return raw(device)
    return torch.cuda.current_stream(device).cuda_stream


def _launch_stream(on_gpu, device):
    """The CUstream (an int) to launch on: PyTorch's current stream of the
    device when any argument is a tensor; else the first
    __cuda_array_interface__ 'stream' given; else 0 (the legacy default)."""
    for c in on_gpu:
        if c.origin == "torch":
            return _torch_stream(device)
    for c in on_gpu:
        if c.stream is not None:
            return c.stream
    return 0


def _names(names):
    return ", ".join("'%s'" % n for n in names)


def _plural(items):
    return "s" if len(items) != 1 else ""


_OPTIONS = ("cache_size", "do_not_specialize", "debug")  # keyword options of @sw.jit(...)


def _default_cache_size():
    text = os.environ.get("SWAGE_CACHE_SIZE", "").strip()
    if not text:
        return 256
    try:
        size = int(text)
    except ValueError:
        size = -1
    if size < 0:
        raise ValueError("SWAGE_CACHE_SIZE must be a number of specialisations (0: no limit), "
                         "not %r" % text)
    return size or None


def _cache_size_option(value):
    """cache_size= of @sw.jit: a positive int, or None for no limit;
    missing: SWAGE_CACHE_SIZE, else 256."""
    if value is _MISSING:
        return _default_cache_size()
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("cache_size must be a positive number of specialisations, or None for "
                         "no limit, not %r" % (value,))
    return value


def jit(fn=None, **options):
    """Marks a function as a Swage kernel: ``@sw.jit`` or ``@sw.jit()``."""
    unknown = [name for name in options if name not in _OPTIONS]
    if unknown:
        hints = [_suggest.closest(name, _OPTIONS) for name in unknown]
        hint = ("; did you mean '%s'?" % hints[0]) if len(unknown) == 1 and hints[0] else ""
        raise TypeError("sw.jit got unknown option%s %s%s (its options: %s)"
                        % (_plural(unknown), _names(unknown), hint, ", ".join(_OPTIONS)))
    if fn is None:
        return lambda f: JITFunction(f, options)
    return JITFunction(fn, options)

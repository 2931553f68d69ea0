"""Hints in error messages: the parameter a misspelt name most likely
meant, and how a kernel is launched."""

import difflib


def closest(name, candidates):
    """The candidate `name` is most likely a misspelling of, or None."""
    if not isinstance(name, str):
        return None
    candidates = [c for c in candidates if c != name]
    folded = {c.lower(): c for c in candidates}
    if name.lower() in folded:
        return folded[name.lower()]
    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.7)
    return matches[0] if matches else None


def no_such_parameter(kernel_name, unknown, parameters):
    """'k has no parameter 'xptr'; did you mean 'x_ptr'? (its parameters:
    x_ptr, n)' for the names in `unknown`, none of which is a parameter."""
    names = ", ".join("'%s'" % n for n in unknown)
    text = "%s has no parameter%s %s" % (kernel_name, "s" if len(unknown) != 1 else "", names)
    hints = [(n, closest(n, parameters)) for n in unknown]
    hints = [(n, near) for n, near in hints if near is not None]
    if len(hints) == 1 and len(unknown) == 1:
        text += "; did you mean '%s'?" % hints[0][1]
    elif hints:
        text += "; did you mean %s?" % ", ".join("'%s' for '%s'" % (near, n) for n, near in hints)
    return text + " (its parameters: %s)" % (", ".join(parameters) or "none")


def launch_call(kernel_name, segment_program, constexprs=False):
    """How to launch the kernel with launch(), as code: a segment program
    takes no grid; `constexprs` says whether the kernel has a constexpr
    without a default (the call then needs constexprs={...})."""
    if segment_program:
        return ("%s.launch(arguments={...}) and leave grid out: a segment program runs one "
                "program per segment of its offsets" % kernel_name)
    return "%s.launch(arguments={...}%s, grid=(...))" % (
        kernel_name, ", constexprs={...}" if constexprs else "")


def bracket_name(kernel_name, segment_program):
    """The Triton-style launch without its arguments: 'k[grid]', or for a
    segment program (no grid) 'k[()]'."""
    return "%s[%s]" % (kernel_name, "()" if segment_program else "grid")


def bracket_call(kernel_name, segment_program, parameters):
    """How to launch the kernel Triton's way, as code:
    'add_kernel[grid](x_ptr, y_ptr, output_ptr, n, BLOCK=...)'. `parameters`
    is [(name, is_constexpr, has_default)] in order: the required runtime
    parameters up to the first constexpr or default are positional, every
    later required parameter a keyword (so the call binds as shown); those
    with defaults are left out."""
    parts, positional = [], True
    for name, is_constexpr, has_default in parameters:
        if is_constexpr or has_default:
            positional = False
        if has_default:
            continue
        parts.append(name if positional else "%s=..." % name)
    return "%s(%s)" % (bracket_name(kernel_name, segment_program), ", ".join(parts))


def no_such_keyword(call_name, unknown, parameters, options):
    """'add_kernel[grid](...) got the unknown keyword 'num_warp'; did you mean
    'num_warps'? (the parameters of add_kernel: ...; launch options: ...)'
    for the keywords in `unknown`, none of which is a parameter or a launch
    option."""
    names = ", ".join("'%s'" % n for n in unknown)
    text = "%s got the unknown keyword%s %s" % (call_name, "s" if len(unknown) != 1 else "",
                                                 names)
    candidates = list(parameters) + list(options)
    hints = [(n, closest(n, candidates)) for n in unknown]
    hints = [(n, near) for n, near in hints if near is not None]
    if len(hints) == 1 and len(unknown) == 1:
        text += "; did you mean '%s'?" % hints[0][1]
    elif hints:
        text += "; did you mean %s?" % ", ".join("'%s' for '%s'" % (near, n) for n, near in hints)
    return text + " (its parameters: %s; launch options: %s)" % (
        ", ".join(parameters) or "none", ", ".join(options))

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


def launch_call(kernel_name, segment_program):
    """How to launch the kernel, as code: a segment program takes no grid."""
    if segment_program:
        return ("%s.launch(arguments={...}) and leave grid out: a segment program runs one "
                "program per segment of its offsets" % kernel_name)
    return "%s.launch(arguments={...}, grid=(...))" % kernel_name

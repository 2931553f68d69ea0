"""The version of the Python package, which is also the C library's
(swageVersionString); a test checks that they agree."""

__version__ = "0.1.0"

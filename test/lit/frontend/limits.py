# Compile-time numbers at the int64 limits, and text a C string would cut.
# RUN: %swage compile %s --kernel one_trip --signature 'out_ptr=*i64' --stage=source | FileCheck %s --check-prefix=ONE-TRIP
# RUN: %swage compile %s --kernel two_trips_down --signature 'out_ptr=*i64' --stage=source | FileCheck %s --check-prefix=TWO-TRIPS
# RUN: %swage compile %s --kernel huge_exponent --signature 'out_ptr=*i64' --stage=source | FileCheck %s --check-prefix=EXPONENT
# RUN: not %swage compile %s --kernel offset_negates_min --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=NEGATE-MIN
# RUN: not %swage compile %s --kernel offset_is_bool --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=BOOL-OFFSET
# RUN: not %swage compile %s --kernel overflow --signature 'out_ptr=*i64' 2>&1 | FileCheck %s --check-prefix=OVERFLOW
# RUN: not %swage compile %s --kernel store_constexpr --signature 'out_ptr=*i64' --constexpr N=9223372036854775808 2>&1 | FileCheck %s --check-prefix=CONSTEXPR
# RUN: not %swage compile %s --kernel store_constexpr --signature 'out_ptr=*f32' --constexpr N=1e39 2>&1 | FileCheck %s --check-prefix=FLOAT32
# RUN: %swage compile %s --kernel store_constexpr --signature 'out_ptr=*f64' --constexpr N=1e39 --stage=source | FileCheck %s --check-prefix=FLOAT64
# RUN: printf 'def k(x_ptr):\n    sl.store(x_ptr, 1.0)\0\n    sl.store(x_ptr + 1, 2.0)\n' > %t.py
# RUN: not %swage compile %t.py --kernel k --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=NUL --strict-whitespace
# RUN: printf 'module {\n  func.func @f() {\0\n    "func.return"() : () -> ()\n  }\n}\n' > %t.mlir
# RUN: not %swage-opt %t.mlir 2>&1 | FileCheck %s --check-prefix=NUL-IR
import swage.language as sl


# range(0, 2**63-1, 2**63-1) has one item (its trip count overflowed to 0).
def one_trip(out_ptr):
    for i in sl.static_range(0, 9223372036854775807, 9223372036854775807):
        sl.store(out_ptr, i)
# ONE-TRIP: "sw.constant"() {value = 0 : i64}
# ONE-TRIP-NEXT: "sw.store"
# ONE-TRIP-NOT: "sw.store"


# range(2**63-1, -2**63, -2**63): 2**63-1, then -1 (negating the step overflowed).
def two_trips_down(out_ptr):
    for i in sl.static_range(9223372036854775807, -2 ** 62 * 2, -2 ** 62 * 2):
        sl.store(out_ptr, i)
# TWO-TRIPS: "sw.constant"() {value = 9223372036854775807 : i64}
# TWO-TRIPS-NEXT: "sw.store"
# TWO-TRIPS: "sw.constant"() {value = -1 : i64}
# TWO-TRIPS-NEXT: "sw.store"
# TWO-TRIPS-NOT: "sw.store"


# Powers by squaring: 10**18 multiplications before.
def huge_exponent(out_ptr):
    sl.store(out_ptr, (-1) ** 1000000000000000000 + (-2) ** 63)
# EXPONENT: "sw.constant"() {value = -9223372036854775807 : i64}


def offset_negates_min(x_ptr):
    sl.store(x_ptr - (-2 ** 62 * 2), 1.0)
# NEGATE-MIN: limits.py:[[# @LINE - 1]]:14: error: the pointer offset -(-2**63) overflows int64


def offset_is_bool(x_ptr):
    sl.store(x_ptr + True, 1.0)
# BOOL-OFFSET: limits.py:[[# @LINE - 1]]:14: error: a pointer can only be offset by an integer, not by the bool True
# BOOL-OFFSET-NOT: internal


def overflow(out_ptr):
    sl.store(out_ptr, 4294967296 * 4294967296)
# OVERFLOW: limits.py:[[# @LINE - 1]]:23: error: constant expression overflows 64 bits (4294967296 * 4294967296): integer constants are int64, or uint64 from 2**63 to 2**64 - 1


def store_constexpr(out_ptr, N: sl.constexpr):
    sl.store(out_ptr, N)
# CONSTEXPR: error: constexpr 'N' = 9223372036854775808 does not fit int64
# FLOAT32: limits.py:[[# @LINE - 2]]:23: error: the float constant 1e+39 does not fit float32
# FLOAT64: "sw.constant"() {value = 1.0e+39 : f64}

# NUL: limits.py.tmp.py:2:25: error: the source contains a NUL byte (byte 38)
# NUL-NEXT:{{^}}        sl.store(x_ptr, 1.0){{$}}
# NUL-NEXT:{{^}}                            ^{{$}}
# NUL-IR: limits.py.tmp.mlir:2:19: error: the input contains a NUL byte

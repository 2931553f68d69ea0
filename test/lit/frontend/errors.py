# Diagnostics of the frontend: each kernel below fails at the line and column its CHECK names.
# RUN: not %swage compile %s --kernel while_loop --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-WHILE-LOOP
# RUN: not %swage compile %s --kernel break_stmt --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-BREAK-STMT
# RUN: not %swage compile %s --kernel lambda_expr --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-LAMBDA-EXPR
# RUN: not %swage compile %s --kernel subscript --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-SUBSCRIPT
# RUN: not %swage compile %s --kernel return_value --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-RETURN-VALUE
# RUN: not %swage compile %s --kernel undefined_name --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-UNDEFINED-NAME
# RUN: not %swage compile %s --kernel unknown_builtin --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-UNKNOWN-BUILTIN
# RUN: not %swage compile %s --kernel python_call --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-PYTHON-CALL
# RUN: not %swage compile %s --kernel store_pointer --signature 'x_ptr=*i32,y_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-STORE-POINTER
# RUN: not %swage compile %s --kernel shape_mismatch --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-SHAPE-MISMATCH
# RUN: not %swage compile %s --kernel arange_runtime --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-ARANGE-RUNTIME
# RUN: not %swage compile %s --kernel arange_pow2 --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-ARANGE-POW2
# RUN: not %swage compile %s --kernel load_no_pointer --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-LOAD-NO-POINTER
# RUN: not %swage compile %s --kernel too_many_args --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-TOO-MANY-ARGS
# RUN: not %swage compile %s --kernel bad_keyword --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-BAD-KEYWORD
# RUN: not %swage compile %s --kernel missing_arg --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING-ARG
# RUN: not %swage compile %s --kernel bad_axis --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-BAD-AXIS
# RUN: not %swage compile %s --kernel one_branch --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-ONE-BRANCH
# RUN: not %swage compile %s --kernel branch_types --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-BRANCH-TYPES
# RUN: not %swage compile %s --kernel loop_type_change --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-LOOP-TYPE-CHANGE
# RUN: not %swage compile %s --kernel loop_var_after --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-LOOP-VAR-AFTER
# RUN: not %swage compile %s --kernel tile_condition --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-TILE-CONDITION
# RUN: not %swage compile %s --kernel int_condition --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-INT-CONDITION
# RUN: not %swage compile %s --kernel not_range --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-NOT-RANGE
# RUN: not %swage compile %s --kernel string_expr --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-STRING-EXPR
# RUN: not %swage compile %s --kernel float_bitand --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-FLOAT-BITAND
# RUN: not %swage compile %s --kernel pointer_mul --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-POINTER-MUL
# RUN: not %swage compile %s --kernel reduce_scalar --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-REDUCE-SCALAR
# RUN: not %swage compile %s --kernel method_call --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-METHOD-CALL
# RUN: not %swage compile %s --kernel static_range_runtime --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-STATIC-RANGE-RUNTIME
# RUN: not %swage compile %s --kernel const_div_zero --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-CONST-DIV-ZERO
# RUN: not %swage compile %s --kernel not_int --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-NOT-INT
# RUN: not %swage compile %s --kernel dtype_call --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-DTYPE-CALL
# RUN: not %swage compile %s --kernel return_in_if --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=CHECK-RETURN-IN-IF
# RUN: not %swage compile %s --kernel const_overflow --signature 'x_ptr=*u8' 2>&1 | FileCheck %s --check-prefix=CHECK-CONST-OVERFLOW
# RUN: not %swage compile %s --kernel nested_def --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-NESTED-DEF
# RUN: not %swage compile %s --kernel tuple_unpack --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-TUPLE-UNPACK
# RUN: not %swage compile %s --kernel attr_assign --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-ATTR-ASSIGN
# RUN: not %swage compile %s --kernel unclosed_paren --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=CHECK-UNCLOSED-PAREN
import swage as sw
import swage.language as sl


@sw.jit
def while_loop(x_ptr):
    while sl.arange(0, 4):
        pass
# CHECK-WHILE-LOOP: errors.py:47:11: error: {{.*}}the condition of 'while' must be a scalar


@sw.jit
def break_stmt(x_ptr):
    for i in sl.static_range(4):
        break
# CHECK-BREAK-STMT: errors.py:55:9: error: {{.*}}'break' inside an sl.static_range loop is not supported


@sw.jit
def lambda_expr(x_ptr):
    f = lambda v: v
# CHECK-LAMBDA-EXPR: errors.py:61:9: error: {{.*}}'lambda' is not supported


@sw.jit
def subscript(x_ptr):
    v = x_ptr[0]
# CHECK-SUBSCRIPT: errors.py:67:14: error: {{.*}}subscripts


@sw.jit
def return_value(x_ptr):
    return 1
# CHECK-RETURN-VALUE: errors.py:73:12: error: {{.*}}a kernel cannot return a value


@sw.jit
def undefined_name(x_ptr):
    v = sl.load(y_ptr)
# CHECK-UNDEFINED-NAME: errors.py:79:17: error: {{.*}}name 'y_ptr' is not defined


@sw.jit
def unknown_builtin(x_ptr):
    v = sl.frobnicate(x_ptr)
# CHECK-UNKNOWN-BUILTIN: errors.py:85:9: error: {{.*}}'sl.frobnicate' is not a Swage built-in


@sw.jit
def python_call(x_ptr):
    v = print(x_ptr)
# CHECK-PYTHON-CALL: errors.py:91:9: error: {{.*}}calls to 'print' are not supported


@sw.jit
def store_pointer(x_ptr, y_ptr):
    v = sl.load(y_ptr)
    sl.store(x_ptr, y_ptr)
# CHECK-STORE-POINTER: errors.py:98:21: error: {{.*}}cannot store pointers


@sw.jit
def shape_mismatch(x_ptr):
    a = sl.arange(0, 4)
    b = sl.arange(0, 8)
    c = a + b
# CHECK-SHAPE-MISMATCH: errors.py:106:9: error: {{.*}}shape mismatch


@sw.jit
def arange_runtime(x_ptr, n):
    a = sl.arange(0, n)
# CHECK-ARANGE-RUNTIME: errors.py:112:22: error: {{.*}}the end of sl.arange must be a compile-time integer


@sw.jit
def arange_pow2(x_ptr):
    a = sl.arange(0, 6)
# CHECK-ARANGE-POW2: errors.py:118:9: error: {{.*}}must be a power of two


@sw.jit
def load_no_pointer(x_ptr, n):
    v = sl.load(n)
# CHECK-LOAD-NO-POINTER: errors.py:124:17: error: {{.*}}sl.load needs a pointer, not int32


@sw.jit
def too_many_args(x_ptr):
    v = sl.program_id(0, 1)
# CHECK-TOO-MANY-ARGS: errors.py:130:26: error: {{.*}}sl.program_id takes at most 1 argument


@sw.jit
def bad_keyword(x_ptr):
    v = sl.load(x_ptr, msk=True)
# CHECK-BAD-KEYWORD: errors.py:136:24: error: {{.*}}sl.load has no parameter named 'msk'


@sw.jit
def missing_arg(x_ptr):
    sl.store(x_ptr)
# CHECK-MISSING-ARG: errors.py:142:5: error: {{.*}}sl.store is missing its argument 'value'


@sw.jit
def bad_axis(x_ptr):
    p = sl.program_id(3)
# CHECK-BAD-AXIS: errors.py:148:23: error: {{.*}}the axis must be 0, 1 or 2


@sw.jit
def one_branch(x_ptr, n):
    if n > 0:
        v = 1.0
    sl.store(x_ptr, v)
# CHECK-ONE-BRANCH: errors.py:156:21: error: {{.*}}assigned in only one branch


@sw.jit
def branch_types(x_ptr, n):
    if n > 0:
        v = sl.load(x_ptr)
    else:
        v = sl.arange(0, 4)
    sl.store(x_ptr, 0.0)
# CHECK-BRANCH-TYPES: errors.py:162:5: error: {{.*}}after one branch of this if


@sw.jit
def loop_type_change(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + sl.load(x_ptr + i)
    sl.store(x_ptr, acc)
# CHECK-LOOP-TYPE-CHANGE: errors.py:173:5: error: {{.*}}variable 'acc' is int32 before the loop but float32


@sw.jit
def loop_var_after(x_ptr, n):
    for i in range(n):
        pass
    sl.store(x_ptr + i, 1.0)
# CHECK-LOOP-VAR-AFTER: errors.py:183:22: error: {{.*}}the loop variable 'i'


@sw.jit
def tile_condition(x_ptr):
    a = sl.arange(0, 4)
    if a > 2:
        pass
# CHECK-TILE-CONDITION: errors.py:190:8: error: {{.*}}the condition of 'if' must be a scalar


@sw.jit
def int_condition(x_ptr, n):
    if x_ptr:
        pass
# CHECK-INT-CONDITION: errors.py:197:8: error: {{.*}}the condition of 'if' must be a scalar number or bool, not a pointer


@sw.jit
def not_range(x_ptr, n):
    for i in n:
        pass
# CHECK-NOT-RANGE: errors.py:204:14: error: {{.*}}must iterate over range


@sw.jit
def string_expr(x_ptr):
    v = 'hello' * 2
# CHECK-STRING-EXPR: errors.py:211:9: error: {{.*}}'*' cannot be applied to the string 'hello'{{.*}}strings are compile-time values


@sw.jit
def float_bitand(x_ptr):
    v = sl.load(x_ptr) & 1
# CHECK-FLOAT-BITAND: errors.py:217:9: error: {{.*}}'&' needs integer operands


@sw.jit
def pointer_mul(x_ptr):
    p = x_ptr * 2
# CHECK-POINTER-MUL: errors.py:223:9: error: {{.*}}'*' cannot be applied to a pointer


@sw.jit
def reduce_scalar(x_ptr):
    v = sl.sum(sl.load(x_ptr))
# CHECK-REDUCE-SCALAR: errors.py:229:16: error: {{.*}}sl.sum needs a tile, not float32


@sw.jit
def method_call(x_ptr):
    v = sl.load(x_ptr).item()
# CHECK-METHOD-CALL: errors.py:235:9: error: {{.*}}method '.item()' is not supported


@sw.jit
def static_range_runtime(x_ptr, n):
    for i in sl.static_range(n):
        pass
# CHECK-STATIC-RANGE-RUNTIME: errors.py:241:30: error: {{.*}}a bound of sl.static_range must be a compile-time integer


@sw.jit
def const_div_zero(x_ptr):
    v = 1 // 0
# CHECK-CONST-DIV-ZERO: errors.py:248:9: error: {{.*}}division by zero in a constant expression


@sw.jit
def not_int(x_ptr):
    v = not sl.load(x_ptr)
# CHECK-NOT-INT: errors.py:254:9: error: {{.*}}'not' needs an int1 (bool) operand


@sw.jit
def dtype_call(x_ptr):
    v = sl.float16(1.0)
# CHECK-DTYPE-CALL: errors.py:260:9: error: {{.*}}sl.float16 is a dtype, not a function


@sw.jit
def return_in_if(x_ptr, n):
    for i in range(n):
        return
    sl.store(x_ptr, 1.0)
# CHECK-RETURN-IN-IF: errors.py:267:9: error: {{.*}}'return' inside a for loop is not supported


@sw.jit
def const_overflow(x_ptr):
    sl.store(x_ptr, 300)
# CHECK-CONST-OVERFLOW: errors.py:274:21: error: {{.*}}the constant 300 does not fit uint8


@sw.jit
def nested_def(x_ptr):
    def inner():
        pass
# CHECK-NESTED-DEF: errors.py:280:5: error: {{.*}}nested function


@sw.jit
def tuple_unpack(x_ptr):
    a, b = 1, 2, 3
# CHECK-TUPLE-UNPACK: errors.py:287:12: error: {{.*}}cannot unpack a tuple of 3 values into 2 names


@sw.jit
def attr_assign(x_ptr):
    x_ptr.data = 1
# CHECK-ATTR-ASSIGN: errors.py:293:5: error: {{.*}}assignment to an attribute


@sw.jit
def unclosed_paren(x_ptr):
    v = sl.load(x_ptr
    w = 1
# CHECK-UNCLOSED-PAREN: errors.py:300:5: error: {{.*}}expected ')' (to close '(' at line

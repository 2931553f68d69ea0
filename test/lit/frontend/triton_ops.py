# The frontend's lowering of the operators and built-ins a Triton kernel
# uses: integer // and % are C's (sw.idiv, sw.rem), float ones Python's
# (sw.floordiv, sw.mod), compile-time ones fold by Python's rules; the math
# helpers map to their ops; hints emit nothing.
# RUN: %swage compile %s --kernel divmod --signature 'x_ptr=*i32,f_ptr=*f32,out_ptr=*i32,fout_ptr=*f32,n=i64' --constexpr A=-7 --constexpr B=2 --stage=source | FileCheck %s --check-prefix=DIV
# RUN: %swage compile %s --kernel helpers --signature 'x_ptr=*f32,out_ptr=*f32,n=i32' --stage=source | FileCheck %s --check-prefix=MATH
# RUN: %swage compile %s --kernel helpers --signature 'x_ptr=*f32,out_ptr=*f32,n=i32' --emit=ptx | FileCheck %s --check-prefix=PTX
# RUN: %swage compile %s --kernel divmod --signature 'x_ptr=*i32,f_ptr=*f32,out_ptr=*i32,fout_ptr=*f32,n=i64' --constexpr A=-7 --constexpr B=2 --emit=ptx | FileCheck %s --check-prefix=DIVPTX
import swage as sw
import swage.language as sl


@sw.jit
def divmod(x_ptr, f_ptr, out_ptr, fout_ptr, n, A: sl.constexpr, B: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, 16))
    f = sl.load(f_ptr + sl.arange(0, 16))
    sl.store(out_ptr + sl.arange(0, 16), x // -2 + x % 3)
    sl.store(fout_ptr + sl.arange(0, 16), f // 2.0 + f % 2.0)
    sl.store(out_ptr, A // B + A % B + sl.cdiv(A, B))
    sl.store(out_ptr + 1, (n // 4 + sl.cdiv(n, 4)).to(sl.int32))

# DIV-LABEL: func.func @divmod
# DIV: "sw.idiv"({{.*}}) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
# DIV: "sw.rem"({{.*}}) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
# DIV: "sw.floordiv"({{.*}}) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
# DIV: "sw.mod"({{.*}}) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
# -7 // 2 + -7 % 2 + cdiv(-7, 2) = -4 + 1 + -3, by Python's rules
# DIV: %[[C:[0-9]+]] = "sw.constant"() {value = -6 : i32} : () -> i32
# DIV-NEXT: "sw.store"(%out_ptr, %[[C]])
# DIV: "sw.idiv"(%n, {{.*}}) : (i64, i64) -> i64
# DIV: "sw.add"(%n,
# DIV: "sw.sub"
# DIV: "sw.idiv"({{.*}}) : (i64, i64) -> i64
# DIV-NOT: "sw.floordiv"({{.*}}) : (i64

# The divisor is set apart where it is 0 or -1, then div/rem truncate.
# DIVPTX: setp.eq.s32 [[ZERO:%p[0-9]+]], [[B:%r[0-9]+]], 0;
# DIVPTX-NEXT: setp.eq.s32 {{%p[0-9]+}}, [[B]], -1;
# DIVPTX: div.s32
# DIVPTX: rem.s32
# DIVPTX: div.s64


@sw.jit
def helpers(x_ptr, out_ptr, n):
    offs = sl.multiple_of(sl.arange(0, 16), 16)
    sl.assume(n > 0)
    x = sl.load(x_ptr + sl.max_contiguous(offs, 16), cache_modifier=".cg")
    y = sl.math.fma(x, x, 1.0) + sl.erf(x) + sl.clamp(x, 0.0, float("inf"))
    for i in sl.range(0, n, num_stages=3):
        y = y + sl.math.div_rn(x, 3.0)
    sl.store(out_ptr + offs, y, eviction_policy="evict_first")

# MATH-LABEL: func.func @helpers
# MATH: "sw.fma"({{.*}}) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
# MATH: "sw.erf"
# MATH: "sw.constant"() {value = 0x7F800000 : f32} : () -> tensor<16xf32>
# MATH: "sw.select"
# MATH: "sw.select"
# MATH: "sw.for"
# MATH: "sw.div"

# PTX: .const .align 8 .b64 __swage_erf_table[330]
# PTX: fma.rn.f32
# PTX: ld.const.f64 {{%fd[0-9]+}}, [{{%rd[0-9]+}}+112];


@sw.jit
def hi(x_ptr, out_ptr, n):
    x = sl.load(x_ptr + sl.arange(0, 16))
    sl.store(out_ptr + sl.arange(0, 16), sl.math.umulhi(x, n) + sl.umulhi(x.to(sl.int64), 3).to(sl.int32))

# RUN: %swage compile %s --kernel hi --signature 'x_ptr=*i32,out_ptr=*i32,n=i32' --stage=source | FileCheck %s --check-prefix=HI
# RUN: %swage compile %s --kernel hi --signature 'x_ptr=*i32,out_ptr=*i32,n=i32' --emit=ptx | FileCheck %s --check-prefix=HIPTX
# HI: "sw.umulhi"({{.*}}) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
# HI: "sw.umulhi"({{.*}}) : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
# HIPTX: mul.hi.u32
# HIPTX: mul.hi.u64

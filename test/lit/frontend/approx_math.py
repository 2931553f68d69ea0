# '/' and sl.exp are Triton's: the ops carry `approx = true`, which the PTX
# emitter renders on float32 as div.full.f32 and as ex2.approx.f32 of
# x * log2(e) (Triton's FDivOpConversion and ExpOpConversionApprox).
# sl.div_rn, sl.fdiv(ieee_rounding=True) and libdevice's exp stay exact
# (no attribute: div.rn.f32, and exp's accurate sequence); the choice is
# made per call, not for the arguments evaluated inside it.
# RUN: %swage compile %s --kernel divisions --signature 'x=*f32,y=*f32,o=*f32' --stage=source | FileCheck %s
# RUN: %swage compile %s --kernel divisions --signature 'x=*f32,y=*f32,o=*f32' --emit=ptx --sm=90 | FileCheck %s --check-prefix=PTX
# RUN: %swage compile %s --kernel divisions --signature 'x=*f64,y=*f64,o=*f64' --emit=ptx --sm=90 | FileCheck %s --check-prefix=F64
# RUN: %swage compile %s --kernel divisions --signature 'x=*f16,y=*f16,o=*f16' --emit=ptx --sm=90 | FileCheck %s --check-prefix=F16
# RUN: %swage compile %s --kernel exps --signature 'x=*f32,o=*f32' --stage=source | FileCheck %s --check-prefix=EXP
# RUN: %swage compile %s --kernel exps --signature 'x=*f32,o=*f32' --emit=ptx --sm=90 | FileCheck %s --check-prefix=EXP-PTX
import swage as sw
import swage.language as sl


# CHECK-LABEL: func.func @divisions(
# CHECK:       "sw.div"(%[[A:[0-9]+]], %[[B:[0-9]+]]) {approx = true}
# CHECK:       "sw.div"(%[[A]], %[[B]]) {approx = true}
# CHECK:       "sw.div"(%[[A]], %[[B]]) :
# CHECK:       "sw.div"(%[[A]], %[[B]]) :
# CHECK:       "sw.div"(%[[A]], %[[B]]) :
# The inner '/' of div_rn's argument keeps its own form.
# CHECK:       %[[Q:[0-9]+]] = "sw.div"(%[[A]], %[[B]]) {approx = true}
# CHECK-NEXT:  "sw.div"(%[[Q]], %[[B]]) :
# (CSE merges the equal divisions: one of each form, and div_rn(a / b, b))
# PTX-LABEL:   .entry divisions(
# PTX:         div.full.f32 [[Q:%f[0-9]+]],
# PTX:         div.rn.f32
# PTX:         div.rn.f32 {{%f[0-9]+}}, [[Q]],
# float64 division is always div.rn.f64 (Triton's div.rn.d)
# F64-NOT:     div.full
# F64:         div.rn.f64
# F64-NOT:     div.full
# float16 division stays correctly rounded (computed in f32, rounded once)
# F16-NOT:     div.full
# F16:         div.rn.f32
# F16-NOT:     div.full
@sw.jit
def divisions(x, y, o):
    offs = sl.arange(0, 32)
    a = sl.load(x + offs)
    b = sl.load(y + offs)
    r = a / b
    r += sl.fdiv(a, b)
    r += sl.fdiv(a, b, ieee_rounding=True)
    r += sl.div_rn(a, b)
    r += sl.math.div_rn(a, b)
    r += sl.div_rn(a / b, b)
    sl.store(o + offs, r)


# EXP-LABEL: func.func @exps(
# EXP:       "sw.exp"(%[[X:[0-9]+]]) {approx = true}
# EXP:       "sw.exp"(%[[X]]) {approx = true}
# EXP:       "sw.exp"(%[[X]]) {approx = true}
# EXP:       "sw.exp"(%[[X]]) :
# EXP:       "sw.exp"(%[[X]]) :
# The inner sl.exp of libdevice's exp keeps its own form, and the flag does
# not reach the next call.
# EXP:       %[[E:[0-9]+]] = "sw.exp"(%[[X]]) {approx = true}
# EXP-NEXT:  "sw.exp"(%[[E]]) :
# EXP:       "sw.exp"(%[[X]]) {approx = true}
# EXP-PTX-LABEL: .entry exps(
# EXP-PTX:       mul.rn.f32 [[T:%f[0-9]+]], {{%f[0-9]+}}, 0f3FB8AA3B;
# EXP-PTX-NEXT:  ex2.approx.f32 {{%f[0-9]+}}, [[T]];
# EXP-PTX:       testp.finite.f32
@sw.jit
def exps(x, o):
    offs = sl.arange(0, 32)
    a = sl.load(x + offs)
    r = sl.exp(a)
    r += a.exp()
    r += sl.math.exp(a)
    r += sl.extra.libdevice.exp(a)
    r += sl.extra.cuda.libdevice.exp(a)
    r += sl.extra.libdevice.exp(sl.exp(a))
    r += sl.exp(a)
    sl.store(o + offs, r)

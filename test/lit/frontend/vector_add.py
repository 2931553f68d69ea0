# The README's vector add, specialised and lowered by the frontend.
# RUN: %swage compile %s --kernel add_kernel --signature 'x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32' --constexpr BLOCK=128 --stage=source | FileCheck %s --check-prefix=SOURCE
# RUN: %swage compile %s --kernel add_kernel --signature 'x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32' --constexpr BLOCK=128 --stage=semantic | FileCheck %s --check-prefix=SEM
# RUN: %swage compile %s --kernel add_kernel --signature 'x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32' --constexpr BLOCK=128 --stage=semantic | %swage-opt | FileCheck %s --check-prefix=SEM
# RUN: %swage compile %s --kernel add_kernel --signature 'x_ptr=*f16,y_ptr=*f16,output_ptr=*f16,n=i64' --constexpr BLOCK=1024 | FileCheck %s --check-prefix=F16
# RUN: %swage compile %s --kernel add_kernel --signature 'x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32' --constexpr BLOCK=128 --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
import swage as sw
import swage.language as sl


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)

# SOURCE: func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32)
# SOURCE: "sw.program_id"() {axis = 0 : i32} : () -> i32
# SOURCE: "sw.constant"() {value = 128 : i32} : () -> i32
# SOURCE: "sw.mul"
# SOURCE: "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
# SOURCE: "sw.splat"
# SOURCE: "sw.add"
# SOURCE: "sw.cmp"({{.*}}) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
# SOURCE: "sw.addptr"
# SOURCE: "sw.load"({{.*}}) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
# SOURCE: "sw.load"
# SOURCE: "sw.add"({{.*}}) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
# SOURCE: "sw.store"({{.*}}) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
# SOURCE: "func.return"

# After the default pipeline the two loads share one offset computation.
# SEM: func.func @add_kernel
# SEM-COUNT-1: "sw.arange"
# SEM-COUNT-2: "sw.load"
# SEM: "sw.store"
# SEM: "func.return"

# F16: func.func @add_kernel(%x_ptr: !sw.ptr<f16>, %y_ptr: !sw.ptr<f16>, %output_ptr: !sw.ptr<f16>, %n: i64)
# F16: "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
# F16: "sw.cast"({{.*}}) : (tensor<1024xi32>) -> tensor<1024xi64>
# F16: "sw.load"({{.*}}) -> tensor<1024xf16>

# LOC: "sw.program_id"() {axis = 0 : i32} : () -> i32 loc("{{.*}}vector_add.py":13:11)

// passes: lower-simt
module {
  func.func @segment_program(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>) {
    %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
    %seg = "sw.segment"(%values, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
    %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
    "sw.store_segment"(%out, %seg, %x) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
    "func.return"() : () -> ()
  }
}

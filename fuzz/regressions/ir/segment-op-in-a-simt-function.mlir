func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

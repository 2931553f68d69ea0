// CUB's segmented reduction, as a peer for bench/segments.py: a user's C
// API over cub::DeviceSegmentedReduce::Sum / ::Max on float32 values with
// int32 CSR offsets (begin = offsets, end = offsets + 1), called through
// ctypes with PyTorch's device pointers and its current stream.
//
// Built on the GPU machine inside the benchmark run:
//   nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o libcub_segreduce.so cub_segreduce.cu
//
// Every function returns a cudaError_t as an int (0 = cudaSuccess).
// Empty segments: Sum gives 0; Max gives numeric_limits<float>::lowest()
// (-FLT_MAX), CUB's documented identity (the benchmark accepts that for
// empty segments and records it).

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <cstddef>

extern "C" {

// op 0: sum, 1: max. With temp == NULL only sets *temp_bytes (CUB's size
// query); otherwise runs on `stream` with the temp storage given and
// returns the launch error, if any.
int swage_bench_cub_segreduce(int op, void* temp, size_t* temp_bytes, const float* values,
                              float* out, long long segments, const int* offsets,
                              void* stream) {
    size_t bytes = *temp_bytes;
    cudaError_t err;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (op == 0) {
        err = cub::DeviceSegmentedReduce::Sum(temp, bytes, values, out, segments, offsets,
                                              offsets + 1, s);
    } else if (op == 1) {
        err = cub::DeviceSegmentedReduce::Max(temp, bytes, values, out, segments, offsets,
                                              offsets + 1, s);
    } else {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    *temp_bytes = bytes;
    if (err == cudaSuccess && temp != nullptr) {
        err = cudaPeekAtLastError();
    }
    return static_cast<int>(err);
}

const char* swage_bench_cub_error_name(int code) {
    return cudaGetErrorName(static_cast<cudaError_t>(code));
}

int swage_bench_cub_version(void) { return CUB_VERSION; }

}  // extern "C"

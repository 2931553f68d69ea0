"""Peers of Swage's segment kernels for bench/segments.py: each module
wraps one library the way its users call it (CUB through a small C API
built on the GPU machine, hand-written one-program-per-segment Triton,
PyTorch's segment_reduce and nested jagged tensors, PyG's softmax)."""

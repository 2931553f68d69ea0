"""PyTorch and PyG peers, called the way their documentation shows:

- torch.segment_reduce(values, "sum" | "max", offsets=..., unsafe=True)
  (int32 offsets when the build takes them, else int64; unsafe=True skips
  its offsets check, which synchronises with the host);
- PyTorch nested jagged tensors: torch.nested.nested_tensor_from_jagged
  (values, offsets) then .sum(dim=1), .amax(dim=1), torch.softmax(nt, dim=1)
  (int64 offsets; the ragged dimension is 1);
- PyG: torch_geometric.utils.softmax(values, ptr=offsets) (int64 ptr).

Each `make_*` returns a callable that computes the op and returns its
output tensor (these peers allocate their outputs).
"""

import torch


def make_segment_reduce(op, values, offsets32, offsets64):
    how = {"sum": "sum", "max": "max"}[op]
    try:  # does this build take int32 offsets?
        probe = torch.segment_reduce(values.new_ones(3), how, unsafe=True,
                                     offsets=torch.tensor([0, 1, 3], dtype=torch.int32,
                                                          device=values.device))
        offsets = offsets32 if probe.numel() == 2 else offsets64
    except (RuntimeError, TypeError):
        offsets = offsets64

    def fn():
        return torch.segment_reduce(values, how, offsets=offsets, unsafe=True)

    fn.offsets_dtype = str(offsets.dtype).replace("torch.", "")
    return fn


def make_njt(op, values, offsets64):
    def nested():
        return torch.nested.nested_tensor_from_jagged(values, offsets64)

    if op == "sum":
        def fn():
            return nested().sum(dim=1)
    elif op == "max":
        def fn():
            return nested().amax(dim=1)
    else:
        def fn():
            return torch.softmax(nested(), dim=1).values()
    fn.offsets_dtype = "int64"
    return fn


def make_pyg_softmax(values, offsets64):
    from torch_geometric.utils import softmax

    def fn():
        return softmax(values, ptr=offsets64)

    fn.offsets_dtype = "int64"
    return fn

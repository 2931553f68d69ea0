"""The GPU tests' common step: one launch of a kernel on the CPU (the
semantic executor, the reference) and one on the GPU, from the same
inputs."""

import torch


def run_both(kernel, arrays, scalars=None, constexprs=None, grid=(1,), num_warps=None):
    """(cpu arrays, gpu arrays) after one launch on each, from the same inputs."""
    scalars = scalars or {}
    cpu = {k: v.copy() for k, v in arrays.items()}
    kernel.launch(arguments=dict(cpu, **scalars), constexprs=constexprs, grid=grid, executor="semantic")
    gpu = {k: torch.from_numpy(v.copy()).cuda() for k, v in arrays.items()}
    options = {} if num_warps is None else {"num_warps": num_warps}
    kernel.launch(arguments=dict(gpu, **scalars), constexprs=constexprs, grid=grid, **options)
    torch.cuda.synchronize()
    return cpu, {k: v.cpu().numpy() for k, v in gpu.items()}

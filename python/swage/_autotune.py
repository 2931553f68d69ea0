"""sw.autotune and sw.Config: Triton's decorator accepted, without timing.

Triton's @triton.autotune times each Config on the GPU the first time a new
value of `key` is seen, and launches the fastest. Swage accepts the same
decorator and configs so that a Triton kernel ports unchanged, but does not
time them: every launch uses the first config (docs/language.md,
"Autotuning"). `best_config` says which that is.
"""

from ._jit import JITFunction


class Config:
    """Triton's triton.Config: the meta-parameters (constexprs) of one
    candidate and its launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None):
        if not isinstance(kwargs, dict):
            raise TypeError("sw.Config takes a dict of meta-parameters first, e.g. "
                            "sw.Config({'BLOCK_SIZE': 128}, num_warps=4); got %r" % (kwargs,))
        if pre_hook is not None:
            raise TypeError("sw.Config: pre_hook is not supported")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg

    def all_kwargs(self):
        """The meta-parameters and the launch options a launch gets."""
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                   "num_ctas": self.num_ctas}
        return dict(self.kwargs, **{k: v for k, v in options.items() if v is not None})

    def __repr__(self):
        return "sw.Config(%r, num_warps=%r, num_stages=%r, num_ctas=%r)" % (
            self.kwargs, self.num_warps, self.num_stages, self.num_ctas)


class Autotuner:
    """An @sw.jit kernel under @sw.autotune: kernel[grid](...) launches it
    with the first config's meta-parameters and options."""

    def __init__(self, fn, configs, key):
        self.fn = fn
        self.configs = configs
        self.keys = key
        self.best_config = configs[0]
        self.__name__ = fn.__name__

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def run(self, *args, grid, **kwargs):
        config = self.best_config.all_kwargs()
        clash = sorted(config.keys() & kwargs.keys())
        if clash:
            raise TypeError("%s is autotuned over %s: do not also pass %s (as Triton: "
                            "conflicting meta-parameters)" % (self.__name__, ", ".join(clash),
                                                               ", ".join(clash)))
        return self.fn[grid](*args, **kwargs, **config)

    def __repr__(self):
        return "<swage autotuned kernel %s, %d configs>" % (self.__name__, len(self.configs))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """Triton's @triton.autotune(configs=[...], key=[...]) over an @sw.jit
    kernel. Swage does not time the configs: it launches the first one.
    The tuning options (prune_configs_by, warmup, rep, ...) are accepted and
    have nothing to tune."""
    configs = list(configs)
    if not configs or not all(isinstance(c, Config) for c in configs):
        raise TypeError("sw.autotune needs configs=[sw.Config(...), ...], at least one")
    if isinstance(key, str) or not all(isinstance(k, str) for k in key):
        raise TypeError("sw.autotune: key must be a list of parameter names")

    def decorate(fn):
        if not isinstance(fn, JITFunction):
            raise TypeError("sw.autotune decorates an @sw.jit kernel (put @sw.autotune above "
                            "@sw.jit)")
        unknown = [k for k in key if k not in fn._names and k not in fn._constexpr_names]
        if unknown:
            raise TypeError("sw.autotune: key names %s, not parameters of %s"
                            % (", ".join(unknown), fn.__name__))
        return Autotuner(fn, configs, list(key))

    return decorate

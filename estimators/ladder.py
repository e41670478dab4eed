"""Where a training job sits on the scale ladder: by what its traffic crosses.

A GPU count alone does not place a job. Sixteen GPUs inside one GB200 NVL72
talk over NVLink, as one rack; sixteen H100s on two HGX servers of eight
(NVIDIA HGX H100 datasheet: eight GPUs on one NVSwitch fabric) must send
their traffic over InfiniBand or RDMA Ethernet between the servers, which
makes them a cluster job. So each rung of the ladder (presets `scales`) says
what a job on it crosses:

    "nothing"     one GPU, its own memory
    "nvlink"      one NVLink domain: a server (HGX, 8 GPUs) or a rack (NVL72, 72)
    "scale-out"   the network between servers or racks

and a job lands on:
  - the "nothing" rung if it uses one GPU;
  - if it fits in its GPUs' NVLink domain of n_d GPUs: the "nvlink" rung whose
    range holds n_d (the domain's size tells a server from a rack);
  - otherwise the "scale-out" rung whose range holds its GPU count, or the
    lowest such rung if the count is below it (16 GPUs over InfiniBand).
"""

from .errors import EstimatorError
from .validate import positive_int

CROSSES = {
    "nothing": "nothing: one GPU and its own memory",
    "nvlink": "NVLink, inside one scale-up domain",
    "scale-out": "the scale-out network between servers or racks (InfiniBand or RDMA Ethernet)",
}


def _holds(scale, gpus: int) -> bool:
    return scale.min_gpus <= gpus and (scale.max_gpus is None or gpus <= scale.max_gpus)


def scale_rung(gpus: int, nvlink_domain_gpus: int, scales: dict) -> str:
    """The rung of the ladder a job sits on, from its GPU count and its GPUs' NVLink domain size.

    `gpus` is the job's GPU count; the rung is returned as its key.

    `scales` is the ladder in order (presets' `scales`), each rung with `crosses`.
    16 GPUs in an NVL72 (domain 72): the rack; 16 H100s (domain 8): the cluster.
    """
    n = positive_int("gpus", gpus)
    domain = positive_int("nvlink_domain_gpus", nvlink_domain_gpus)
    by_kind = {kind: [(k, s) for k, s in scales.items() if s.crosses == kind] for kind in CROSSES}
    if n == 1 and by_kind["nothing"]:
        return by_kind["nothing"][0][0]
    if n <= domain and by_kind["nvlink"]:
        for key, scale in by_kind["nvlink"]:
            if _holds(scale, domain):
                return key
        return by_kind["nvlink"][-1][0]
    for key, scale in by_kind["scale-out"]:
        if _holds(scale, n):
            return key
    if by_kind["scale-out"] and n < by_kind["scale-out"][0][1].min_gpus:
        return by_kind["scale-out"][0][0]
    raise EstimatorError("scales", list(scales), "a ladder with a rung for every job ('crosses' on each rung)")

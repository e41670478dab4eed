"""Collectives inside a server and across servers against published nccl-tests bus bandwidths.

The step model's collectives are α–β with one fitted bus efficiency (the share
of a link's rate its collectives reach in training runs). Its hierarchy, what
a group's members per server and the server's cards give, is what these tests
check: every case below, inside a server or across servers, on A100 and H100,
must sit the same factor from its measurement (that one constant), within ±15%.
Charging a group across servers one GPU's card, as the model did before, puts
the cross-server cases 4–8× further off than the ones inside a server.
"""

import dataclasses
import math

import pytest

from estimators.step_time import FITTED, collective_seconds, gpu_preset, group_link

LARGE_BYTES = 4e9  # nccl-tests' largest messages, where the bus bandwidth has reached its plateau
A100 = gpu_preset("a100-sxm", "nvlink-a100", "infiniband-hdr")  # eight 200 Gb/s cards a server, one a GPU
H100 = gpu_preset("h100-sxm", "nvlink-h100", "infiniband-ndr")  # eight 400 Gb/s cards a server, one a GPU
# Four 200 Gb/s cards for a server's eight A100s: half a card, 12.5 GB/s, a GPU.
A100_FOUR_CARDS = dataclasses.replace(A100, scale_out_bytes_per_s=A100.scale_out_bytes_per_s / 2)


def bus_bandwidth(kind: str, gpu, servers: int, per_server: int) -> float:
    """nccl-tests' bus bandwidth of the model's collective: algbw × 2(n − 1)/n for an all-reduce, × (n − 1)/n for an
    all-to-all (nccl-tests doc/PERFORMANCE.md), algbw = bytes / time."""
    n = servers * per_server
    bandwidth, latency = group_link(kind, n, per_server, gpu)
    seconds = collective_seconds(kind, LARGE_BYTES, n, bandwidth, latency).seconds
    factor = 2 * (n - 1) / n if kind == "all_reduce" else (n - 1) / n
    return LARGE_BYTES / seconds * factor


# (case, kind, GPU, servers, GPUs per server, measured bus bandwidth in B/s, source)
PUBLISHED = [
    ("A100, one server", "all_reduce", A100, 1, 8, 232.54e9,
     "NVIDIA/nccl issue 1048 (and nccl-tests issue 175): all_reduce_perf -g 8 on one HGX A100 server, 232.54 GB/s"),
    ("H100, one server, ring", "all_reduce", H100, 1, 8, 370e9,
     "NVIDIA/nccl-tests issue 212, S. Jeaugey: NVLink 4's 450 GB/s less ~20% protocol overhead, 370 GB/s bus bandwidth "
     "with NCCL_ALGO=RING (NVLink SHARP, not modelled, reaches ~480)"),
    ("A100, two servers, four cards each", "all_reduce", A100_FOUR_CARDS, 2, 8, 91e9,
     "NVIDIA/nccl-tests issue 100: two HGX A100 servers, four 200 Gb/s HDR cards each, 91 GB/s all-reduce bus bandwidth"),
    ("A100, two servers, four cards each (second system)", "all_reduce", A100_FOUR_CARDS, 2, 8, 89.5e9,
     "NVIDIA/nccl-tests issue 152: 16 A100-SXM4-80GB on two servers, four HDR cards each, 89.5 GB/s at 1–2 GB messages"),
    ("A100, DGX A100 servers, eight cards each", "all_reduce", A100, 2, 8, 192e9,
     "NVIDIA/nccl issue 812, D. Addison (NVIDIA): on DGX A100 systems with eight 200 Gb/s IB cards, 192 GB/s all-reduce "
     "bus bandwidth"),
    ("H100, six servers, all-to-all", "all_to_all", H100, 6, 8, 48e9,
     "NVIDIA/nccl-tests issue 267: six H100 servers, eight 400 Gb/s cards each; all-to-all cannot aggregate the cards, "
     "its bus bandwidth is one card's, 48–49 GB/s at NDR (S. Jeaugey, D. Addison)"),
]


def _ratios() -> dict:
    return {case: bus_bandwidth(kind, gpu, servers, per_server) / measured
            for case, kind, gpu, servers, per_server, measured, _ in PUBLISHED}


@pytest.mark.parametrize("case, kind, gpu, servers, per_server, measured, source", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_bus_bandwidth_is_one_efficiency_from_the_published_figure(case, kind, gpu, servers, per_server, measured, source):
    ratios = _ratios()
    mean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    assert abs(ratios[case] / mean - 1) <= 0.15, f"{case}: {ratios[case]:.3f} against the cases' {mean:.3f} ({source})"


def test_the_common_factor_is_the_fitted_bus_efficiency_less_nvlink_overhead():
    # Inside a server the model's bus bandwidth is the link's rate × the fitted efficiency; nccl-tests reach ~80% of it.
    ratios = _ratios()
    mean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    assert mean == pytest.approx(FITTED["bus_efficiency"] / 0.8, rel=0.15)


def test_a_server_card_alone_would_miss_the_cross_server_all_reduce_several_fold():
    inside = _ratios()["A100, one server"]
    card, latency = A100_FOUR_CARDS.scale_out_bytes_per_s, A100_FOUR_CARDS.scale_out_latency_seconds
    seconds = collective_seconds("all_reduce", LARGE_BYTES, 16, card, latency).seconds
    one_card = LARGE_BYTES / seconds * 2 * 15 / 16 / 91e9  # the sixteen GPUs charged one GPU's share of a card
    assert one_card < inside / 4


def test_a_group_with_one_gpu_per_server_keeps_one_card():
    assert group_link("all_reduce", 64, 1, H100) == (H100.scale_out_bytes_per_s, H100.scale_out_latency_seconds)
    assert group_link("all_reduce", 8, 8, H100) == (H100.scale_up_bytes_per_s, H100.scale_up_latency_seconds)
    assert group_link("all_reduce", 64, 8, H100)[0] == min(8 * H100.scale_out_bytes_per_s, H100.scale_up_bytes_per_s)
    assert group_link("all_to_all", 64, 8, H100)[0] == H100.scale_out_bytes_per_s

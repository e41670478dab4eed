"""The traffic of each way to cut a job, against the ZeRO and Megatron-LM papers."""

import math

import pytest

import estimators
from estimators import EstimatorError
from estimators.parallelism import Layout

PRESETS = estimators.load_presets()
LLAMA3_405B = PRESETS.model("llama3-405b")


@pytest.mark.parametrize("stage", [0, 1, 2])
def test_zero_stage_3_sends_one_and_a_half_times_stages_0_to_2(stage):
    # ZeRO §7.2: stages 1 and 2 move 2Ψ per GPU like plain DP's all-reduce; stage 3 moves 3Ψ, "1.5x".
    psi, n = 7.5e9, 64
    assert estimators.data_parallel_traffic_bytes(psi, n, 3) == pytest.approx(
        1.5 * estimators.data_parallel_traffic_bytes(psi, n, stage))
    # The all-reduce itself: 2(N−1)/N · Ψ values of 2 bytes, close to 2Ψ values for large N.
    assert estimators.data_parallel_traffic_bytes(psi, n, stage) == pytest.approx(2 * (n - 1) / n * psi * 2)


def test_one_gpu_sends_nothing():
    assert estimators.data_parallel_traffic_bytes(1e9, 1) == 0
    assert estimators.tensor_parallel_traffic_bytes(2048, 1, 4096, 32, 1) == 0


def test_tensor_parallel_is_four_all_reduces_of_sbh_per_layer():
    # Megatron-LM §3 and figure 4: g after attention and after the MLP forward, f before each backward:
    # four all-reduces of s·b·h per layer. GPT-3 175B's layer (h = 12,288), s = 2,048, b = 1, t = 8:
    s, b, h, t = 2048, 1, 12288, 8
    one_layer = estimators.tensor_parallel_traffic_bytes(s, b, h, 1, t)
    assert one_layer == 4 * (2 * (t - 1) / t) * s * b * h * 2
    assert estimators.tensor_parallel_traffic_bytes(s, b, h, 96, t) == pytest.approx(96 * one_layer)


def test_pipeline_sends_the_activations_forward_and_their_gradients_back():
    assert estimators.pipeline_traffic_bytes(8192, 1, 16384) == 2 * 8192 * 16384 * 2


def test_context_parallel_gathers_keys_and_values_and_scatters_their_gradients():
    # Llama 3 §3.3.2: all-gather K and V; 8 KV heads of 128 = 1,024 values per token for the 405B.
    one = estimators.context_parallel_traffic_bytes(131072, 1, 1024, 1, 16)
    assert one == 2 * (15 / 16) * 2 * 131072 * 1024 * 2


def test_expert_parallel_all_to_all_counts_only_tokens_leaving_the_gpu():
    assert estimators.expert_parallel_traffic_bytes(4096, 1, 7168, 1, 8, 1) == 0
    assert estimators.expert_parallel_traffic_bytes(4096, 1, 7168, 1, 8, 64) == 4 * 8 * 4096 * 7168 * (63 / 64) * 2


def test_llama3_405b_layout_keeps_tensor_parallelism_on_nvlink_and_is_not_communication_bound():
    lay = PRESETS.layout("llama3-405b-8k")
    r = estimators.layout_traffic(
        LLAMA3_405B.config, Layout(tp=lay.tp, cp=lay.cp, pp=lay.pp, dp=lay.dp), lay.seq_len, lay.micro_batch,
        lay.global_batch, PRESETS.gpu(lay.gpu).peak_flops["bf16"], lay.mfu, 8,
        PRESETS.interconnect(lay.scale_up).bandwidth_bytes_per_s, PRESETS.interconnect(lay.scale_out).bandwidth_bytes_per_s)
    cuts = {c.cut: c for c in r.cuts}
    assert list(cuts) == ["tp", "pp", "dp"]
    assert cuts["tp"].scale_up and not cuts["pp"].scale_up and not cuts["dp"].scale_up
    assert r.micro_batches == 16  # 2,048 sequences over 128 replicas, one at a time
    # The step's arithmetic: 6 × N × 16M tokens over 16,384 GPUs at 41% of 989 TFLOP/s.
    assert r.compute_seconds == pytest.approx(6 * LLAMA3_405B.params * 2048 * 8192 / (16384 * 989e12 * 0.41))
    # DP: the gradients of one GPU's Ψ/(tp·pp) parameters all-reduced over 128 replicas.
    assert cuts["dp"].traffic_bytes == pytest.approx(2 * 127 / 128 * LLAMA3_405B.params / 128 * 2)
    assert r.comm_ratio < 1


def test_each_cuts_ratio_is_its_link_time_over_the_steps_arithmetic():
    # Llama 3 405B's 8K stage: DP's gradients (2·127/128 × Ψ/128 values of 2 bytes) cross the 50 GB/s network,
    # against 6·N·2,048·8,192 FLOPs over 16,384 GPUs at 41% of 989 TFLOP/s.
    lay = PRESETS.layout("llama3-405b-8k")
    r = estimators.layout_preset_traffic("llama3-405b-8k")
    dp = next(c for c in r.cuts if c.cut == "dp")
    network = PRESETS.interconnect(lay.scale_out).bandwidth_bytes_per_s
    compute = 6 * LLAMA3_405B.params * 2048 * 8192 / (16384 * 989e12 * 0.41)
    assert dp.comm_ratio == pytest.approx(2 * 127 / 128 * LLAMA3_405B.params / 128 * 2 / network / compute)
    assert math.fsum(c.comm_ratio for c in r.cuts) == pytest.approx(r.comm_ratio)


def test_expert_parallelism_needs_experts_and_bad_input_is_named():
    with pytest.raises(EstimatorError) as e:
        estimators.layout_traffic(LLAMA3_405B.config, Layout(dp=4, ep=4), 8192, 1, 4, 989e12, 0.4, 8, 450e9, 50e9)
    assert e.value.argument == "ep"
    for call, argument in [
        (lambda: estimators.data_parallel_traffic_bytes(-1, 8), "params"),
        (lambda: estimators.data_parallel_traffic_bytes(1e9, 8, 4), "zero_stage"),
        (lambda: estimators.tensor_parallel_traffic_bytes(2048, 1, 4096, 32, 0), "tp"),
        (lambda: estimators.pipeline_traffic_bytes(2048, 0, 4096), "micro_batch"),
        (lambda: estimators.link_seconds(1e9, 0), "bandwidth_bytes_per_s"),
    ]:
        with pytest.raises(EstimatorError) as e:
            call()
        assert e.value.argument == argument


def test_link_time_is_bytes_over_bandwidth():
    assert math.isclose(estimators.link_seconds(450e9, 450e9), 1.0)


@pytest.mark.parametrize("key", ["llama3-405b-8k", "llama3-405b-128k"])
def test_a_cuts_step_is_its_micro_batches_traffic_but_the_gradients_sync_once(key):
    t = estimators.layout_preset_traffic(key)
    for c in t.cuts:
        if c.every_micro_batch:
            assert c.micro_batch_bytes * t.micro_batches == pytest.approx(c.traffic_bytes)
        else:
            assert c.cut in ("dp", "zero") and c.micro_batch_bytes == c.traffic_bytes


@pytest.mark.parametrize("gpus", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("cut", list(estimators.parallelism.CUTS))
def test_who_sends_to_whom_is_a_ring_neighbouring_stages_or_everyone(cut, gpus):
    sends = estimators.cut_sends(cut, gpus)
    pairs = [(s.source, s.target) for s in sends]
    assert len(set(pairs)) == len(pairs) and all(0 <= a < gpus and 0 <= b < gpus and a != b for a, b in pairs)
    expected = {"pp": 2 * (gpus - 1), "ep": gpus * (gpus - 1)}.get(cut, gpus if gpus > 1 else 0)
    assert len(pairs) == expected
    if cut not in ("pp", "ep") and gpus > 1:
        # A ring: every GPU sends once and receives once, and following the sends visits them all.
        nxt = dict(pairs)
        seen, at = set(), 0
        while at not in seen:
            seen.add(at)
            at = nxt[at]
        assert seen == set(range(gpus))


@pytest.mark.parametrize("gpus", [2, 4, 8])
@pytest.mark.parametrize("cut", list(estimators.parallelism.CUTS))
def test_the_sends_of_a_collective_carry_what_each_gpu_sends(cut, gpus):
    traffic = 3e9
    sends = estimators.cut_sends(cut, gpus)
    each = estimators.send_bytes(cut, traffic, gpus)
    # What leaves a GPU that sends in both directions (a middle stage) or to everyone is its traffic.
    out_of = {source: sum(each for s in sends if s.source == source) for source in range(gpus)}
    if cut == "pp":  # s·b·h each way: a stage with two neighbours sends its traffic, an end stage half
        assert out_of == pytest.approx({i: traffic / 2 * (2 if 0 < i < gpus - 1 else 1) for i in range(gpus)})
    else:
        assert all(sent == pytest.approx(traffic) for sent in out_of.values())
    assert estimators.send_bytes(cut, traffic, 1) == 0


def test_a_zero_3_gpu_keeps_its_share_of_every_layers_weights():
    for i, held in enumerate(estimators.cut_slices("zero", 4)):
        assert held.layers == (0.0, 1.0) and held.width == (i / 4, (i + 1) / 4)  # a quarter of each weight matrix
        assert held.state == held.batch == (i / 4, (i + 1) / 4)

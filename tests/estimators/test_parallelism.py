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


def _h100(key="llama3-405b-8k"):
    lay = PRESETS.layout(key)
    return estimators.gpu_preset(lay.gpu, lay.scale_up, lay.scale_out)


def test_llama3_405b_layout_keeps_tensor_parallelism_on_nvlink_and_is_not_communication_bound():
    lay = PRESETS.layout("llama3-405b-8k")
    r = estimators.layout_traffic(LLAMA3_405B.config, Layout(tp=lay.tp, cp=lay.cp, pp=lay.pp, dp=lay.dp), lay.seq_len,
                                  lay.micro_batch, lay.global_batch, _h100())
    cuts = {c.cut: c for c in r.cuts}
    assert list(cuts) == ["tp", "pp", "dp"]
    assert cuts["tp"].scale_up and not cuts["pp"].scale_up and not cuts["dp"].scale_up
    assert r.micro_batches == 16  # 2,048 sequences over 128 replicas, one at a time
    # DP: the gradients of one GPU's Ψ/(tp·pp) parameters all-reduced over 128 replicas.
    assert cuts["dp"].traffic_bytes == pytest.approx(2 * 127 / 128 * LLAMA3_405B.params / 128 * 2)
    assert r.comm_ratio < 1


def test_each_cut_is_timed_by_the_step_models_collectives_on_the_link_its_group_crosses():
    """One link-time model: the α–β collectives of the step model, on group_link's bandwidth and latency."""
    lay = PRESETS.layout("llama3-405b-8k")
    gpu = _h100()
    r = estimators.layout_preset_traffic("llama3-405b-8k")
    cuts = {c.cut: c for c in r.cuts}
    # DP: one GPU of a TP 8 × PP 16 layout shares its server with no other replica: one card, the ring or tree
    # NCCL picks for 2 bytes a gradient of Ψ/(tp·pp) parameters over 128 GPUs.
    bandwidth, latency = estimators.group_link("all_reduce", lay.tp * lay.pp * lay.dp, 1, gpu)
    assert bandwidth == gpu.scale_out_bytes_per_s == cuts["dp"].bytes_per_s
    expected = estimators.collective_seconds("all_reduce", 2 * LLAMA3_405B.params / (lay.tp * lay.pp), lay.dp, bandwidth,
                                             latency).seconds
    assert cuts["dp"].link_seconds == pytest.approx(expected)
    # TP: each block's collectives for each of m micro-batches, over the L/pp layers a GPU holds.
    shape = estimators.shape_of(LLAMA3_405B.config)
    setup = estimators.Setup(tp=lay.tp, pp=lay.pp, dp=lay.dp, zero_stage=0)
    per_block = estimators.tensor_parallel_seconds(shape, setup, lay.seq_len, gpu)
    assert cuts["tp"].link_seconds == pytest.approx(r.micro_batches * shape.layers / lay.pp * per_block)
    # The step's arithmetic is the step model's, for the same layout.
    step = estimators.step_seconds(shape, setup, gpu, lay.seq_len, lay.global_batch)
    assert r.compute_seconds == pytest.approx(step.gemm_seconds + step.attention_seconds + step.memory_bound_seconds)
    assert cuts["dp"].comm_ratio == pytest.approx(cuts["dp"].link_seconds / r.compute_seconds)
    assert math.fsum(c.comm_ratio for c in r.cuts) == pytest.approx(r.comm_ratio)


def test_a_data_parallel_ring_across_servers_runs_on_every_card_of_its_gpus_in_each_server():
    # 128 replicas, 8 to a server: the ring gathers the eight cards of each server (nccl-tests issue 100), so the same
    # bytes take about an eighth of one card's time; a pipeline's sends cross on one card whatever the layout.
    gpu = _h100()
    spread = estimators.layout_traffic(LLAMA3_405B.config, Layout(dp=128), 8192, 1, 2048, gpu).cuts[0]
    one_card = estimators.layout_traffic(LLAMA3_405B.config, Layout(tp=8, dp=128), 8192, 1, 2048, gpu)
    assert spread.bytes_per_s == min(8 * gpu.scale_out_bytes_per_s, gpu.scale_up_bytes_per_s)
    assert next(c for c in one_card.cuts if c.cut == "dp").bytes_per_s == gpu.scale_out_bytes_per_s


def test_fsdp_gathers_and_reduces_for_every_micro_batch():
    # ZeRO-3 as FSDP runs it: 3(N−1)/N·Ψ for each of the m micro-batches, as the step model times it.
    gpu = _h100()
    llama8b = PRESETS.model("llama3-8b")
    r = estimators.layout_traffic(llama8b.config, Layout(dp=8, zero_stage=3), 8192, 1, 32, gpu)
    zero = r.cuts[0]
    assert zero.cut == "zero" and zero.every_micro_batch and r.micro_batches == 4
    assert zero.micro_batch_bytes == pytest.approx(3 * 7 / 8 * llama8b.params * 2)
    assert zero.traffic_bytes == pytest.approx(r.micro_batches * zero.micro_batch_bytes)


def test_expert_parallelism_needs_experts_and_bad_input_is_named():
    with pytest.raises(EstimatorError) as e:
        estimators.layout_traffic(LLAMA3_405B.config, Layout(dp=4, ep=4), 8192, 1, 4, _h100())
    assert e.value.argument == "ep"
    for call, argument in [
        (lambda: estimators.data_parallel_traffic_bytes(-1, 8), "params"),
        (lambda: estimators.data_parallel_traffic_bytes(1e9, 8, 4), "zero_stage"),
        (lambda: estimators.tensor_parallel_traffic_bytes(2048, 1, 4096, 32, 0), "tp"),
        (lambda: estimators.pipeline_traffic_bytes(2048, 0, 4096), "micro_batch"),
        (lambda: estimators.layout_traffic(LLAMA3_405B.config, Layout(dp=4), 8192, 1, 4, 989e12), "gpu"),
    ]:
        with pytest.raises(EstimatorError) as e:
            call()
        assert e.value.argument == argument


@pytest.mark.parametrize("key", ["llama3-405b-8k", "llama3-405b-128k"])
def test_a_cuts_step_is_its_micro_batches_traffic_but_the_gradients_sync_once(key):
    t = estimators.layout_preset_traffic(key)
    for c in t.cuts:
        if c.every_micro_batch:
            assert c.micro_batch_bytes * t.micro_batches == pytest.approx(c.traffic_bytes)
        else:
            assert c.cut == "dp" and c.micro_batch_bytes == c.traffic_bytes


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

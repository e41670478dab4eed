"""The composed memory bill: its parts are the ZeRO breakdown plus the model's own activations,
and each remedy is the bill recomputed with one change."""

import math

import pytest

import estimators
from estimators import EstimatorError

PRESETS = estimators.load_presets()
LLAMA3_8B = PRESETS.model("llama3-8b")
H100 = PRESETS.gpu("h100-sxm")


def bill(stage=0, gpus=8, recompute="selective", optimizer="adam", tp=1, micro_batch=1):
    return estimators.memory_bill(LLAMA3_8B.config, gpus, stage, optimizer, 8192, micro_batch, recompute, tp, H100.memory_bytes)


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_parts_are_the_zero_breakdown_plus_the_activations(stage):
    b = bill(stage)
    state = estimators.zero_breakdown(LLAMA3_8B.params, 8, stage)
    activations = estimators.model_activation_bytes(LLAMA3_8B.config, 8192, 1, 1, sequence_parallel=True, recompute="selective")
    assert (b.memory.weights, b.memory.master, b.memory.activations) == (state.weights, state.master, activations)
    assert math.isclose(b.memory.total, state.total + activations)
    assert b.fit == estimators.memory_fit(b.memory.total, H100.memory_bytes)


def test_an_unsharded_8b_does_not_fit_and_each_remedy_is_the_bill_recomputed():
    # 16 B/param × 8.03B = 128.5 GB of state alone, over one 80 GB H100 before any activation.
    b = bill(0)
    assert not b.fit.fits
    remedies = {r.change: r for r in b.remedies}
    assert remedies["zero_stage"].total_bytes == bill(3).memory.total and remedies["zero_stage"].fits
    assert remedies["recompute"].total_bytes == bill(0, recompute="full").memory.total
    assert "gpus" not in remedies  # ZeRO-3 already fits at 8 GPUs: counting GPUs adds nothing


def test_the_gpu_remedy_is_the_fewest_gpus_that_fit_at_that_stage():
    # ZeRO-1 over one server's 8 GPUs shards only the optimizer state: still over the H100's memory.
    b = bill(1)
    gpus = next(r for r in b.remedies if r.change == "gpus")
    assert gpus.value > 8 and gpus.fits
    assert bill(1, gpus=gpus.value).fit.fits and not bill(1, gpus=gpus.value - 1).fit.fits


def test_when_activations_alone_are_over_no_gpu_count_fits():
    # Two sequences of 8K with nothing recomputed: the logits and blocks outweigh any sharded state.
    gpus = next(r for r in bill(3, recompute="none", micro_batch=2).remedies if r.change == "gpus")
    assert gpus.value is None and gpus.total_bytes is None and not gpus.fits


def test_a_fitting_bill_has_no_remedy():
    assert bill(3).fit.fits and bill(3).remedies == ()


def test_tensor_parallelism_must_divide_the_heads():
    with pytest.raises(EstimatorError) as error:
        bill(tp=3)
    assert error.value.argument == "tp"


def _megatron_theoretical_memory(c, tp, pp, dp, seq_len, micro_batch):
    """Megatron-LM's theoretical_memory_usage.py, term by term, for a dense SwiGLU decoder with RMSNorm, untied
    embeddings, the distributed optimizer and selective recomputation with sequence parallelism (its default
    vocabulary padding to a multiple of 128 × tp)."""
    h, layers, f = c.d_model, c.layers, c.ffn_dim
    padded_vocab = -(-c.vocab // (128 * tp)) * (128 * tp)
    attention = 2 * h * h * (1 + c.kv_heads / c.heads)  # q and o, k and v; kv_channels · heads = h
    layer = 2 * h * (f * 3 / 2 + 1) + attention  # SwiGLU MLP, one RMSNorm weight per norm
    block = layer * layers + h  # + the final norm
    most_loaded = (block / pp + h * padded_vocab) / tp  # the first stage: L/p layers and the embedding
    weights_and_optimizer = most_loaded * (6 + 12 / dp)
    activations = seq_len * micro_batch * h * (18 + 4 * f / h) * layers  # p micro-batches × L/p layers
    activations += 8 * seq_len * micro_batch * pp + seq_len * micro_batch * h * pp  # embedding input and dropout
    return weights_and_optimizer, activations / tp


def test_pipeline_bill_against_megatron_lm_theoretical_memory_for_llama3_405b():
    # Llama 3 405B on its published layout (Llama 3 paper, table 4): TP 8, PP 16, DP 128, 8K tokens, 1 a micro-batch.
    st = PRESETS.setup("llama3-405b-3d")
    model = PRESETS.model(st.model)
    b = estimators.memory_bill(model.config, st.gpus, st.zero_stage, st.optimizer, st.seq_len, st.micro_batch,
                               st.recompute, st.tp, H100.memory_bytes, st.pp)
    weights_and_optimizer, activations = _megatron_theoretical_memory(model.config, st.tp, st.pp, st.gpus, st.seq_len,
                                                                     st.micro_batch)
    # The model state is Megatron's to within its vocabulary padding (128,256 → 129,024 rows): 20.7 GB both.
    assert b.memory.total - b.memory.activations == pytest.approx(weights_and_optimizer, rel=1e-3)
    # Activations: Megatron's 18 + 4F/h per s·b·h assumes a GeLU MLP and full attention; Llama's own block
    # (SwiGLU keeps 8F/h, grouped-query K and V, no dropout) keeps 8 + 4 + 4·G/a + 8F/h = 38.25 against 31:
    # 80.9 GB against 65.8 GB, 23% more. Both count L layers in flight on the first stage under 1F1B.
    c = model.config
    ours_per_sbh = 8 + 4 + 4 * c.kv_heads / c.heads + 8 * c.ffn_dim / c.d_model
    megatron_per_sbh = 18 + 4 * c.ffn_dim / c.d_model
    embedding_terms = (8 * st.seq_len * st.pp + st.seq_len * c.d_model * st.pp) / st.tp
    assert b.memory.activations / (activations - embedding_terms) == pytest.approx(ours_per_sbh / megatron_per_sbh)


def test_one_pipeline_stage_is_the_whole_model_and_more_stages_shrink_only_the_state():
    one = bill(0)
    assert estimators.first_stage_params(LLAMA3_8B.config, 1) == LLAMA3_8B.params
    four = estimators.memory_bill(LLAMA3_8B.config, 8, 0, "adam", 8192, 1, "selective", 1, H100.memory_bytes, 4)
    assert four.memory.weights < one.memory.weights / 3
    # 1F1B: four micro-batches of L/4 layers in flight, the same L layers' worth; no output layer on stage one.
    assert four.memory.activations == estimators.model_activation_bytes(
        LLAMA3_8B.config, 8192, 1, 1, sequence_parallel=True, recompute="selective", include_output=False)
    with pytest.raises(EstimatorError) as e:
        estimators.memory_bill(LLAMA3_8B.config, 8, 0, "adam", 8192, 1, "selective", 1, H100.memory_bytes, 33)
    assert e.value.argument == "pp"


@pytest.mark.parametrize("stage, sharded", [(0, set()), (1, {"master", "momentum", "variance"}),
                                            (2, {"gradients", "master", "momentum", "variance"}),
                                            (3, {"weights", "gradients", "master", "momentum", "variance"})])
def test_each_stage_slices_its_parts_across_the_data_parallel_gpus(stage, sharded):
    shards = bill(stage).shards
    assert {part for part in estimators.memory.SHARDED_FROM_STAGE if getattr(shards, part) == 8} == sharded
    assert {part for part in estimators.memory.SHARDED_FROM_STAGE if getattr(shards, part) == 1} == set(
        estimators.memory.SHARDED_FROM_STAGE) - sharded
    # A sliced part on one GPU is the whole part over the GPUs that share it.
    whole = bill(stage).unsharded
    assert whole == bill(0).memory
    for part in sharded:
        assert math.isclose(getattr(bill(stage).memory, part) * 8, getattr(whole, part))


def test_the_inference_column_is_the_bf16_weights_alone():
    # 2 bytes a parameter, the whole model on one GPU; split by tensor and pipeline parallelism as training is.
    assert estimators.inference_weight_bytes(LLAMA3_8B.config) == 2 * LLAMA3_8B.params
    assert bill().inference == bill(0).memory.weights
    assert math.isclose(estimators.inference_weight_bytes(LLAMA3_8B.config, tp=4), LLAMA3_8B.params / 2)
    four = estimators.memory_bill(LLAMA3_8B.config, 8, 0, "adam", 8192, 1, "selective", 1, H100.memory_bytes, 4)
    assert four.inference == four.memory.weights


def test_bad_picture_inputs_name_their_argument():
    for call, argument in ((lambda: estimators.zero_shards(8, 4), "stage"),
                           (lambda: estimators.inference_weight_bytes(LLAMA3_8B.config, tp=0), "tp")):
        with pytest.raises(EstimatorError) as error:
            call()
        assert error.value.argument == argument


def test_the_weights_format_sets_the_weights_bytes_and_nothing_else():
    """FP8 working weights (DeepSeek-V3 report §3.3) take 1 byte a parameter for BF16's 2; gradients, the FP32 master
    copy and the moments keep theirs: mixed-precision Adam goes from 16 to 15 bytes a parameter."""
    bf16 = bill(0)
    fp8 = estimators.memory_bill(LLAMA3_8B.config, 8, 0, "adam", 8192, 1, "selective", 1, H100.memory_bytes,
                                 weights_format="fp8_e4m3")
    assert fp8.memory.weights == bf16.memory.weights / 2 == LLAMA3_8B.params
    assert (fp8.memory.gradients, fp8.memory.master, fp8.memory.variance) == (
        bf16.memory.gradients, bf16.memory.master, bf16.memory.variance)
    assert (bf16.per_param.total, fp8.per_param.total) == (16, 15)
    assert fp8.inference == bf16.inference / 2
    with pytest.raises(EstimatorError) as raised:
        estimators.memory_bill(LLAMA3_8B.config, 8, 0, "adam", 8192, 1, "selective", 1, H100.memory_bytes,
                               weights_format="fp7")
    assert raised.value.argument == "number_format"

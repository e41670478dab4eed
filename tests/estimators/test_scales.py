"""The scale ladder in presets.toml: its rungs, their sources, and the loader's checks."""

import pytest

from estimators import EstimatorError, load_presets
from estimators.presets import parse_presets

PRESETS = load_presets()


def ladder(*rungs: tuple) -> str:
    """TOML for a ladder of (key, min_gpus, max_gpus or None) rungs, in that order."""
    tables = []
    for key, low, high in rungs:
        top = "" if high is None else f"max_gpus = {high}\n"
        tables.append(f'[scales.{key}]\nname = "{key}"\nmin_gpus = {low}\n{top}source = "s"\n')
    return "\n".join(tables)


def test_the_ladder_climbs_in_the_articles_order():
    assert list(PRESETS.scales) == ["gpu", "server", "rack", "cluster", "frontier"]
    for scale in PRESETS.scales.values():
        assert scale.name.strip() and scale.source.strip()


def test_the_rungs_the_sources_give():
    # one GPU; an HGX/DGX server of eight; a GB200 NVL72 rack of 72 in one NVLink domain
    assert (PRESETS.scale("gpu").min_gpus, PRESETS.scale("gpu").max_gpus) == (1, 1)
    assert PRESETS.scale("server").max_gpus == 8
    assert PRESETS.scale("rack").max_gpus == 72
    assert "HGX" in PRESETS.scale("server").source
    assert "NVL72" in PRESETS.scale("rack").source
    assert PRESETS.scale("frontier").max_gpus is None  # open-ended: tens of thousands and up


def test_every_gpu_count_has_exactly_one_rung():
    rungs = list(PRESETS.scales.values())
    assert rungs[0].min_gpus == 1
    for lower, upper in zip(rungs, rungs[1:]):
        assert upper.min_gpus == lower.max_gpus + 1


def test_the_example_runs_sit_on_the_rungs_the_article_puts_them():
    def rung(gpus: int) -> str:
        [key] = [k for k, s in PRESETS.scales.items() if s.min_gpus <= gpus <= (s.max_gpus or gpus)]
        return key

    assert rung(PRESETS.run("gpt2-124m-10b-a5000").gpus) == "gpu"
    assert rung(PRESETS.run("gpt2-124m-10b-8xh100").gpus) == "server"
    assert rung(PRESETS.run("llama3-405b").gpus) == "frontier"


def test_a_well_formed_ladder_loads_in_order():
    scales = parse_presets(ladder(("a", 1, 1), ("b", 2, 8), ("c", 9, None))).scales
    assert list(scales) == ["a", "b", "c"]
    assert scales["c"].max_gpus is None


def test_an_unknown_rung_is_named():
    with pytest.raises(EstimatorError) as error:
        PRESETS.scale("datacentre")
    assert error.value.argument == "scale"


@pytest.mark.parametrize(
    "rungs, field",
    [
        ((("a", 1, 8), ("b", 8, 72)), "scales.b.min_gpus"),  # overlaps the rung below
        ((("a", 9, 72), ("b", 1, 8)), "scales.b.min_gpus"),  # out of order
        ((("a", 1, None), ("b", 9, 72)), "scales.a.max_gpus"),  # open end below the top
        ((("a", 8, 2),), "scales.a.max_gpus"),  # ends before it starts
        ((("a", 0, 1),), "scales.a.min_gpus"),  # no GPUs
        ((("a", 1.5, 2),), "scales.a.min_gpus"),  # not whole
    ],
)
def test_a_broken_ladder_names_the_field(rungs, field):
    with pytest.raises(EstimatorError) as error:
        parse_presets(ladder(*rungs))
    assert error.value.argument == field


def test_an_unknown_field_is_rejected():
    with pytest.raises(EstimatorError) as error:
        parse_presets('[scales.a]\nname = "a"\nmin_gpus = 1\ngpus = 8\nsource = "s"\n')
    assert error.value.argument == "scales.a.gpus"


@pytest.mark.parametrize(
    "gpus, domain, rung",
    [
        (1, 8, "gpu"),
        (8, 8, "server"),  # one HGX H100: eight GPUs on one NVSwitch fabric (HGX H100 datasheet)
        (16, 8, "cluster"),  # two HGX servers: the traffic between them crosses InfiniBand
        (16, 72, "rack"),  # inside one GB200 NVL72: 72 GPUs in one NVLink domain (NVL72 datasheet)
        (72, 72, "rack"),
        (73, 72, "cluster"),
        (16384, 8, "frontier"),  # Llama 3 405B's 16K H100s (Llama 3 paper, §3.3)
    ],
)
def test_a_job_sits_on_the_rung_of_what_it_crosses(gpus, domain, rung):
    from estimators import scale_rung

    assert scale_rung(gpus, domain, PRESETS.scales) == rung


def test_every_rung_says_what_it_crosses_and_gpus_say_their_nvlink_domain():
    from estimators.ladder import CROSSES

    assert [s.crosses for s in PRESETS.scales.values()] == ["nothing", "nvlink", "nvlink", "scale-out", "scale-out"]
    assert set(CROSSES) == {"nothing", "nvlink", "scale-out"}
    assert PRESETS.gpu("h100-sxm").nvlink_domain_gpus == PRESETS.scale("server").max_gpus == 8
    assert PRESETS.gpu("gb200").nvlink_domain_gpus == PRESETS.scale("rack").max_gpus == 72


def test_an_unknown_crossing_is_a_loader_error():
    text = ladder(("gpu", 1, 1)).replace('source = "s"', 'crosses = "wifi"\nsource = "s"')
    with pytest.raises(EstimatorError) as error:
        parse_presets(text)
    assert error.value.argument == "scales.gpu.crosses"

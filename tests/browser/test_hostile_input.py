"""Numbers are read as a reader means them, typed or from a link,
and an extreme but valid value is answered beside its field, in its units.

`1,5` once read as 15 (MFU 15%, "180.5 days"); it is refused, and `1,000`
still reads as a thousand, by the one reader (contract.parse_number) that
serves the form and the URL alike.
"""


from .test_runtime import GARBAGE, PAGE, widget_text
from harness.widgets import address, form_state, look_at, root, shown_outputs, type_into, wait_for_cpython_outputs, wait_live

WIDGET = "training_time"
# A thousand GPUs as a reader may group it.
GROUPED = ("1,000", "1 000", " 1000 ")


def error_beside(page, field: str) -> str:
    error = page.locator(f'{root(WIDGET)} [data-error-for="{field}"]')
    error.filter(has_text="Must be").wait_for()
    look_at(page, WIDGET)
    assert page.get_attribute(f'{root(WIDGET)} [name="{field}"]', "aria-invalid") == "true"
    return error.inner_text()


def test_typed_a_decimal_comma_is_refused_grouped_thousands_read_as_one_number_and_an_extreme_value_is_answered(
        browser, page, site_url):
    """Each typed into one visit, in turn; each grouped number also opened from the address it wrote."""
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    good = wait_for_cpython_outputs(page, WIDGET)
    mfu = form_state(page, WIDGET)["mfu"]
    type_into(page, WIDGET, "mfu", "1,5")
    assert "commas only between thousands" in error_beside(page, "mfu")
    assert {key: text for key, text in shown_outputs(page, WIDGET).items() if key in good} == good
    type_into(page, WIDGET, "mfu", mfu)  # mended, so the numbers below are answered

    for text in GROUPED:
        type_into(page, WIDGET, "gpus", text)
        typed = wait_for_cpython_outputs(page, WIDGET)
        assert "1,000 ×" in typed["fleet"], text
        linked = browser.new_context().new_page()
        linked.goto(address(page))
        assert form_state(linked, WIDGET)["gpus"] == text
        wait_live(linked, WIDGET)
        assert wait_for_cpython_outputs(linked, WIDGET) == typed, text
        linked.close()

    type_into(page, WIDGET, "mfu", "1e-310")
    message = error_beside(page, "mfu")
    assert "% of peak" in message and "_" not in message, message
    assert page.inner_text(f"{root(WIDGET)} [data-status]").strip() == ""
    type_into(page, WIDGET, "mfu", "0.1")  # the field's minimum, a thousandth of peak: every output readable
    outputs = wait_for_cpython_outputs(page, WIDGET)
    assert all(len(text) < 80 for text in outputs.values()), outputs
    assert not GARBAGE.search(widget_text(page))
    assert page.log.page_errors == [] and page.log.console_errors == []


def test_a_decimal_comma_from_a_link_is_refused_beside_its_field(page, site_url):
    page.goto(f"{site_url}{PAGE}?training_time.mfu=1,5")
    wait_live(page, WIDGET)
    assert "commas only between thousands" in error_beside(page, "mfu")
    assert page.input_value(f'{root(WIDGET)} [name="mfu"]') == "1,5"

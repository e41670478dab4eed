"""Every widget's picture on the site's own pages, measured as a reader meets it, in one visit per page
and screen: at 390 px (a phone) in the dark palette and at 1280 px in the light one.

- it fits its column: no picture, table or grid scrolls sideways inside its widget, nor the page;
- on the phone its text is drawn at 11 px or more;
- in the dark palette every mark it draws (a shape's fill or stroke, a text) stands at least 3:1
  against the page's background, its opacity and its colour's alpha laid over that background;
- and what each picture says at a glance: the memory bill's parts are told apart by a reader with
  any of the three common colour-vision deficiencies; the interruptions' timeline and its hours
  start at zero; the planner's grid keys its shades.

Static pictures are drawn at build time: none of this waits for Python.
"""

import pytest

import pyodide_widgets
from figures import memory_bill
from harness.site import widget_pages
from harness.widgets import look_at

PAGES = tuple(widget_pages())
SCREENS = {"phone": (390, "dark"), "desktop": (1280, "light")}
SMALLEST_TEXT_PX = 11
CONTRAST = 3.0

# What sticks out of each widget: an element wider than the widget's column, or one that scrolls sideways.
# Beside a laptop's picture the one row of example buttons is the widget's single sideways scroller by
# design (it keeps the widget within a screen): it must still fit the column, and the buttons in it are
# its own. On a phone the row wraps (widgets.css), and nothing of the widget scrolls sideways.
SIDEWAYS = """(w) => {
  const column = w.getBoundingClientRect();
  const row = matchMedia('(max-width: 44.9375em)').matches ? null : '.widget__presets';
  return [...w.querySelectorAll('*')].filter((el) => {
    const box = el.getBoundingClientRect();
    if (!box.width || el.closest('noscript, [hidden], .widget__live')) return false;
    if (row && el.parentElement.closest(row)) return false;
    const style = getComputedStyle(el);
    const scrolls = !(row && el.matches(row)) && ['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    return scrolls || box.right > column.right + 1 || box.left < column.left - 1;
  }).map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute('class') || ''} ${Math.round(el.getBoundingClientRect().width)} px`
  ).slice(0, 5);
}"""

# Each text of the widget's pictures as drawn: its font size times its SVG's scale on screen.
TEXT_PX = """(w) => [...w.querySelectorAll('svg')].filter((svg) => svg.getBoundingClientRect().width > 0 && svg.viewBox.baseVal)
  .flatMap((svg) => { const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
      .map((t) => [t.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(t).fontSize) * scale]); })"""

# Each mark's best contrast against the page's background: its stroke's or its fill's, whichever a
# reader sees it by, after its own and its groups' opacity and its colour's alpha.
CONTRASTS = """(w) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g); return m && m.length >= 3 ? [...m.map(Number), 1].slice(0, 4) : null; };
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const bg = parse(getComputedStyle(document.body).backgroundColor);
  const ratio = (c, alpha) => { const l = lum(c.slice(0, 3).map((v, i) => v * alpha + bg[i] * (1 - alpha))), b = lum(bg);
                                return (Math.max(l, b) + 0.05) / (Math.min(l, b) + 0.05); };
  const found = [];
  for (const el of w.querySelectorAll('svg :is(path, rect, circle, line, polygon, text)')) {
    if (el.closest('defs, clipPath, .role-axis-grid, .role-axis-tick, .role-axis-domain')) continue;  // the plot's ruling
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!box.width && !box.height) continue;
    let opacity = 1;
    for (let e = el; e && e.tagName !== 'svg'; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
    if (!opacity) continue;  // drawn for screen readers only
    const paints = [[style.fill, style.fillOpacity]];
    if (el.tagName !== 'text' && parseFloat(style.strokeWidth) > 0) paints.push([style.stroke, style.strokeOpacity]);
    const ratios = paints.map(([c, o]) => [parse(c), parseFloat(o)]).filter(([c]) => c && c[3] > 0)
      .map(([c, o]) => ratio(c, c[3] * o * opacity));
    if (ratios.length) found.push([el.getAttribute('aria-label') || el.textContent.trim() || el.getAttribute('class') || el.tagName,
                                   Math.max(...ratios)]);
  }
  return found;
}"""


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, browser, site_url):
    """Each page at one screen, every widget looked at in turn: {page: {widget id: what it measured}}."""
    width, scheme = SCREENS[request.param]
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    measured = {}
    for path in PAGES:
        page.goto(f"{site_url}{path}")
        for widget in page.locator("[data-widget]").all():
            selector = f"#{widget.get_attribute('id')}"
            look_at(page, selector)
            measured.setdefault(path, {})[selector] = {
                "sideways": widget.evaluate(SIDEWAYS), "text": widget.evaluate(TEXT_PX), "contrast": widget.evaluate(CONTRASTS),
                "page": page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
                "fills": widget.evaluate("(w) => [...w.querySelectorAll('[data-chart] [aria-label]')].map((el) =>"
                                         " [el.getAttribute('aria-label'), getComputedStyle(el).fill])"),
                "axes": widget.evaluate("(w) => [...w.querySelectorAll('[data-chart] [aria-roledescription=axis]')].map((a) =>"
                                        " [a.getAttribute('aria-label'), [...a.querySelectorAll('text')].map((t) => t.textContent)])"),
                "texts": widget.evaluate("(w) => [...w.querySelectorAll('[data-chart] svg text')].map((t) => t.textContent)"),
            }
    context.close()
    return request.param, measured


def every_widget(measured):
    return [(path, widget, seen) for path, widgets in measured.items() for widget, seen in widgets.items()]


def test_every_picture_fits_its_column_without_sideways_scrolling(screen):
    name, measured = screen
    wide = {f"{path} {widget}": seen["sideways"] for path, widget, seen in every_widget(measured) if seen["sideways"]}
    assert wide == {}, name
    assert all(seen["page"] for _, _, seen in every_widget(measured))


def test_on_a_phone_every_label_is_drawn_at_11_px_or_more(screen):
    name, measured = screen
    if name != "phone":
        pytest.skip("the phone's screen")
    small = {f"{path} {widget}": sorted({(text, round(px, 1)) for text, px in seen["text"] if px < SMALLEST_TEXT_PX - 0.05})[:4]
             for path, widget, seen in every_widget(measured)}
    assert {key: value for key, value in small.items() if value} == {}


def test_in_the_dark_palette_every_mark_stands_3_to_1_against_the_page(screen):
    name, measured = screen
    if name != "phone":
        pytest.skip("the dark palette is measured on the phone")
    faint = {f"{path} {widget}": sorted({(mark[:50], round(ratio, 2)) for mark, ratio in seen["contrast"] if ratio < CONTRAST})[:4]
             for path, widget, seen in every_widget(measured)}
    assert {key: value for key, value in faint.items() if value} == {}


# Machado, Oliveira and Fernandes (2009), severity 1.0: how a reader with each deficiency sees an sRGB colour
# (applied to linear RGB).
DEFICIENCIES = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
# The least difference (CIE76 ΔE in Lab) at which two flat colours read as two at a glance.
DISTINCT_DELTA_E = 10


def _lab(rgb: tuple) -> tuple:
    """CIE Lab (D65) of a linear-RGB colour."""
    xyz = [sum(m * c for m, c in zip(row, rgb)) for row in
           ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))]
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in
         (xyz[0] / 0.95047, xyz[1], xyz[2] / 1.08883)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _seen(css: str, deficiency: str | None) -> tuple:
    channels = [int(v) / 255 for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    if deficiency:
        linear = [min(max(sum(m * c for m, c in zip(row, linear)), 0), 1) for row in DEFICIENCIES[deficiency]]
    return _lab(linear)


def test_the_memory_bills_parts_are_told_apart_by_every_reader(screen):
    _, measured = screen
    fills = dict((label.split(":")[1].split(",")[0].strip(), fill) for label, fill in measured["/training/"]["#memory_bill"]["fills"]
                 if label.startswith("GPU 1: "))
    assert len(fills) == len(memory_bill.PART_COLOURS)  # weights, gradients, master weights, momentum, variance, activations
    for deficiency in (None, *DEFICIENCIES):
        seen = {part: _seen(fill, deficiency) for part, fill in fills.items()}
        closest = min((sum((a - b) ** 2 for a, b in zip(seen[p], seen[q])) ** 0.5, p, q)
                      for i, p in enumerate(seen) for q in list(seen)[i + 1:])
        assert closest[0] >= DISTINCT_DELTA_E, (deficiency, closest)


def test_the_interruptions_timeline_and_its_hours_start_at_zero(screen):
    _, measured = screen
    axes = dict(measured["/training/"]["#interruptions"]["axes"])
    assert axes["X-axis: days into the window"][0] == "0"
    assert axes["Y-axis: hours thrown away"][0] == "0"


def test_the_planners_grid_keys_its_shades_and_its_servers(screen):
    _, measured = screen
    texts = measured["/model-sizing/"]["#planner"]["texts"]
    assert any("tensor-parallel group" in t for t in texts) and any(t.startswith("a server") for t in texts)


def lit(page) -> dict:
    """{scale: [steps lit in its column]}, and the scale whose column is picked, as the grid shows them."""
    return page.eval_on_selector(
        '[data-widget="ten_steps"] table',
        """(table) => { const scales = [...table.querySelectorAll('thead [data-pick]')].map((b) => b.dataset.pick.split('=')[1]);
             const cells = {}, picked = [];
             for (const row of table.querySelectorAll('tbody tr')) {
               const step = row.querySelector('[data-pick]').dataset.pick.split('=')[1];
               [...row.querySelectorAll('td')].forEach((td, i) => {
                 const paint = getComputedStyle(td, '::before').backgroundColor;
                 if (td.classList.contains('is-picked')) picked.push(scales[i]);
                 if (getComputedStyle(td, '::before').content !== 'none' && paint !== 'rgba(0, 0, 0, 0)')
                   (cells[scales[i]] ??= []).push([step, paint]); });
             }
             return {cells, picked: [...new Set(picked)]}; }""")


def test_the_ten_steps_grid_lights_the_hard_steps_and_a_scale_keeps_the_picked_step(browser, site_url):
    widget = pyodide_widgets.module("ten_steps")
    page = browser.new_context(viewport={"width": 390, "height": 900}).new_page()
    page.goto(f"{site_url}/ten-steps/?ten_steps.step=checkpoint")
    look_at(page, "ten_steps")
    page.wait_for_function("() => document.querySelector('[data-widget=ten_steps]').dataset.enhanced")
    for scale in widget.SCALES:
        page.click(f'[data-widget="ten_steps"] thead [data-pick="scale={scale}"]')
        seen = lit(page)
        assert seen["picked"] == [scale]
        # Every column lights its hard steps; the picked one in a colour of its own.
        for column in widget.SCALES:
            assert [step for step, _ in seen["cells"].get(column, [])] == [key for key, _ in widget.attention(column)]
        colours = {paint for column, cells in seen["cells"].items() for _, paint in cells if column == scale}
        others = {paint for column, cells in seen["cells"].items() for _, paint in cells if column != scale}
        assert len(colours) <= 1 and not colours & others
        # The step the reader picked stays picked.
        assert page.input_value('[data-widget="ten_steps"] [name="step"]') == "checkpoint"


def test_what_looks_tappable_in_a_picture_is_tappable_by_pointer_and_keyboard(browser, site_url):
    page = browser.new_context(viewport={"width": 390, "height": 900}).new_page()
    page.goto(f"{site_url}/training/")
    for widget, field in (("training_loop", "station"), ("audit_lanes", "practice")):
        look_at(page, widget)
        page.wait_for_function("(w) => document.querySelector(`[data-widget=${w}]`).dataset.enhanced", arg=widget)
        parts = page.locator(f'[data-widget="{widget}"] svg [data-pick]')
        values = [part.get_attribute("data-pick").split("=")[1] for part in parts.all()]
        assert len(values) >= 4
        # A tap on the picture's part, then Enter on another one, each picks it.
        parts.nth(1).click()
        assert page.input_value(f'[data-widget="{widget}"] [name="{field}"]') == values[1]
        parts.nth(2).focus()
        page.keyboard.press("Enter")
        assert page.input_value(f'[data-widget="{widget}"] [name="{field}"]') == values[2]
        assert page.eval_on_selector_all(f'[data-widget="{widget}"] svg [data-pick].is-picked',
                                         "els => els.map((el) => el.dataset.pick)") == [f"{field}={values[2]}"]
    # The ruler's markers, tapped on a fresh page before the live chart is drawn: the tap picks its model.
    widget = pyodide_widgets.module("tokens_per_param")
    marker = next(row for row in widget.update(next(iter(widget.presets().values()))["state"])["data"]["markers"] if not row["picked"])
    look_at(page, "tokens_per_param")
    page.locator(f'[data-widget="tokens_per_param"] [data-chart] [aria-label="{marker["label"]}"]').first.click()
    page.wait_for_function("(v) => document.querySelector('[data-widget=tokens_per_param] [name=model]').value === v",
                           arg=marker["pick"].split("=")[1], timeout=120_000)

"""The methods page's tables read in the page's column on a desktop: none is wider than the box
the theme gives it, so none scrolls sideways (site.css narrows the many-column preset tables and each folds
its sources, site_build/preset_tables.folded_source)."""

DESKTOP = {"width": 1280, "height": 900}


def test_every_methods_table_fits_the_column_at_1280_px(browser, site_url):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{site_url}/methods/")
    too_wide = page.evaluate("""() => {
      // Every section drawn, as a reader scrolling through would have them (site.css: content-visibility).
      for (const s of document.querySelectorAll('.page-section > div')) s.style.contentVisibility = 'visible';
      // The theme wraps each table in a box that scrolls sideways: the table must not need it.
      return [...document.querySelectorAll('.md-typeset table')]
        .map((t) => [t.closest('section')?.querySelector('h2')?.id, t.scrollWidth, t.closest('.md-typeset__scrollwrap').clientWidth])
        .filter(([, width, column]) => width > column);
    }""")
    assert too_wide == []
    context.close()

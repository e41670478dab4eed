"""Helpers shared by the tests (tests/) and the benchmark (bench/), so that
neither imports the other: the built site on 127.0.0.1 (`site`), Debian's
Chromium under Playwright (`browser`), and a widget driven through its DOM
contract (`widgets`)."""

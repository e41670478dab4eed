"""Build-time only: rendering widgets into pages, packing the wheel, the mkdocs
hooks and the modules they call, the checks that stop a wrong build, and the
files the browser runs (browser/)."""

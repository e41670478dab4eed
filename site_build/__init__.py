"""Build-time only: rendering widgets into pages, packing the wheel, the mkdocs
hooks, the checks that stop a wrong build, and the browser runtime's static files."""
